/**
 * Fixtures of the order benchmark on a running service (the tests' client): `count` wallets with
 * sessions, each funded in every currency the rooms trade (one execute_transactions call per
 * wallet), and the rooms themselves: the public room `0` of each pair plus `privateRooms` private
 * rooms (created by different wallets, the creator limit being five) that every wallet joins
 * through apply_code with the room's share code. The markets are fixed: BTC/USDT, ETH/USDT and
 * USDC/USDT around realistic mids, bands of ±0.25 %.
 */
import type { TestClient } from "../../test/support/Client.ts"
import type { OrderRoom } from "../load/orders.ts"
import type { BenchWallet } from "./TransferFixture.ts"

type Market = Omit<OrderRoom, "roomKey">

export const markets: ReadonlyArray<Market> = [
  // 0.0001..0.01 BTC at 60000 ± 150 USDT (whole dollars).
  { base: "BTC", quote: "USDT", mid: 60_000, priceDecimals: 0, band: 150, quantityDecimals: 4, minQuantity: 1, maxQuantity: 100 },
  // 0.001..1 ETH at 3000.0 ± 7.5 USDT (dimes).
  { base: "ETH", quote: "USDT", mid: 30_000, priceDecimals: 1, band: 75, quantityDecimals: 3, minQuantity: 1, maxQuantity: 1000 },
  // 10..1000 USDC at 1.0000 ± 0.0025 USDT.
  { base: "USDC", quote: "USDT", mid: 10_000, priceDecimals: 4, band: 25, quantityDecimals: 0, minQuantity: 10, maxQuantity: 1000 }
]

/** Per wallet: far more than any run can lock or trade away (each order moves at most ~3000 USDT). */
export const funding: Record<string, string> = { BTC: "1000", ETH: "10000", USDC: "100000000", USDT: "100000000" }

const pool = async (count: number, concurrency: number, work: (i: number) => Promise<void>) => {
  let next = 0
  const worker = async () => {
    for (let i = next++; i < count; i = next++) await work(i)
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
}

export const createTradingWallets = async (client: TestClient, count: number): Promise<Array<BenchWallet>> => {
  const wallets: Array<BenchWallet> = new Array(count)
  await pool(count, 8, async (i) => {
    const wallet = await client.createWallet(String(820_000_000 + i), { name: `Order bench ${i}` })
    const items = Object.entries(funding).map(([currency, amount]) => ({
      externalId: `order-bench-fund-${wallet.id}-${currency}`, walletId: wallet.id, currency, amount, direction: "credit"
    }))
    const reply = await client.priv("POST", "execute_transactions", items)
    if (reply.status !== 200 || reply.body.result.some((row: any) => row.error !== null)) {
      throw new Error(`fund: ${JSON.stringify(reply.body).slice(0, 500)}`)
    }
    wallets[i] = { id: wallet.id, sid: await client.createSession(wallet.id) }
  })
  return wallets
}

/** The public rooms of every market, then `privateRooms` private ones (markets in turn), every wallet a member. */
export const createRooms = async (client: TestClient, wallets: ReadonlyArray<BenchWallet>, privateRooms: number): Promise<Array<OrderRoom>> => {
  const rooms: Array<OrderRoom> = markets.map((market) => ({ ...market, roomKey: "0" }))
  for (let i = 0; i < privateRooms; i++) {
    const market = markets[i % markets.length]
    const creator = wallets[i % wallets.length]
    const reply = await client.call("POST", "/core/v1/market/create_room", { sid: creator.sid, body: { currency1: market.base, currency2: market.quote } })
    if (reply.status !== 200 || reply.body.error !== null) throw new Error(`create_room: ${JSON.stringify(reply.body)}`)
    const { roomKey, shareCode } = reply.body.result as { roomKey: string; shareCode: string }
    await pool(wallets.length, 8, async (w) => {
      if (wallets[w].id === creator.id) return
      const query = new URLSearchParams({ code: shareCode, client_nonce: String(1 + i) })
      const joined = await client.call("POST", `/core/v1/apply_code?${query}`, { sid: wallets[w].sid })
      if (joined.status !== 200 || joined.body.error !== null || joined.body.result.result !== roomKey) {
        throw new Error(`apply_code (join room ${roomKey}): ${JSON.stringify(joined.body)}`)
      }
    })
    rooms.push({ ...market, roomKey })
  }
  return rooms
}

export interface AuditReport {
  readonly sums: ReadonlyArray<{ readonly currency: string; readonly total: string }>
  readonly negativeUserBuckets: number
}

/** The operator's ledger audit; throws, naming what is wrong, unless every Σ is "0" and no user bucket is negative. */
export const requireSoundLedger = async (client: TestClient, where: string): Promise<AuditReport> => {
  const reply = await client.priv("GET", "ledger_audit")
  if (reply.status !== 200 || reply.body.error !== null) throw new Error(`ledger audit (${where}): ${reply.status} ${JSON.stringify(reply.body)}`)
  const report = reply.body.result as AuditReport
  const unbalanced = report.sums.filter((row) => row.total !== "0")
  if (unbalanced.length > 0 || report.negativeUserBuckets !== 0) {
    throw new Error(`LEDGER AUDIT FAILED (${where}): ` +
      `${unbalanced.map((row) => `Σ ${row.currency} = ${row.total}`).join(", ") || "every Σ is 0"}; negativeUserBuckets ${report.negativeUserBuckets}`)
  }
  return report
}
