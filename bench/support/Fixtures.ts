/**
 * What the end-to-end benchmarks set up on a running service and read from it: funded wallets with
 * sessions (USDT for transfers; BTC, ETH, USDC and USDT for orders), the order rooms (the public room
 * `0` of each market plus private rooms every wallet joins through the share code), the operator's
 * ledger audit and the ledger writer's counters from the private monitoring_stats.
 * The markets are fixed: BTC/USDT, ETH/USDT and USDC/USDT around realistic mids, bands of ±0.25 %.
 */
import type { OrderRoom } from "../load/orders.ts"
import type { Client } from "./Client.ts"

export interface BenchWallet {
  readonly id: string
  readonly sid: string
}

type Market = Omit<OrderRoom, "roomKey">

export const markets: ReadonlyArray<Market> = [
  // 0.0001..0.01 BTC at 60000 ± 150 USDT (whole dollars).
  {
    base: "BTC",
    quote: "USDT",
    mid: 60_000,
    priceDecimals: 0,
    band: 150,
    quantityDecimals: 4,
    minQuantity: 1,
    maxQuantity: 100
  },
  // 0.001..1 ETH at 3000.0 ± 7.5 USDT (dimes).
  {
    base: "ETH",
    quote: "USDT",
    mid: 30_000,
    priceDecimals: 1,
    band: 75,
    quantityDecimals: 3,
    minQuantity: 1,
    maxQuantity: 1000
  },
  // 10..1000 USDC at 1.0000 ± 0.0025 USDT.
  {
    base: "USDC",
    quote: "USDT",
    mid: 10_000,
    priceDecimals: 4,
    band: 25,
    quantityDecimals: 0,
    minQuantity: 10,
    maxQuantity: 1000
  }
]

/** Per trading wallet: far more than any run can lock or trade away (each order moves at most ~3000 USDT). */
const tradingFunds: Record<string, string> = { BTC: "1000", ETH: "10000", USDC: "100000000", USDT: "100000000" }

/** Runs `work(0..count-1)` with at most `concurrency` at a time. */
const pool = async (count: number, concurrency: number, work: (i: number) => Promise<void>) => {
  let next = 0
  const worker = async () => {
    for (let i = next++; i < count; i = next++) await work(i)
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
}

/** `count` wallets (clients 810000000…), each funded with `amount` USDT, with a session. */
export const createFundedWallets = async (
  client: Client,
  count: number,
  amount: string
): Promise<Array<BenchWallet>> => {
  const wallets: Array<BenchWallet> = new Array(count)
  await pool(count, 8, async (i) => {
    const wallet = await client.createWallet(String(810_000_000 + i), { name: `Bench ${i}` })
    await client.fund(wallet.id, "USDT", amount)
    wallets[i] = { id: wallet.id, sid: await client.createSession(wallet.id) }
  })
  return wallets
}

/** `count` wallets (clients 820000000…), each funded in every traded currency (one call), with a session. */
export const createTradingWallets = async (client: Client, count: number): Promise<Array<BenchWallet>> => {
  const wallets: Array<BenchWallet> = new Array(count)
  await pool(count, 8, async (i) => {
    const wallet = await client.createWallet(String(820_000_000 + i), { name: `Order bench ${i}` })
    const items = Object.entries(tradingFunds).map(([currency, amount]) => ({
      externalId: `order-bench-fund-${wallet.id}-${currency}`,
      walletId: wallet.id,
      currency,
      amount,
      direction: "credit"
    }))
    const results = (await client.privResult("execute_transactions", items)) as Array<{ error: unknown }>
    if (results.some((row) => row.error !== null)) throw new Error(`fund: ${JSON.stringify(results).slice(0, 500)}`)
    wallets[i] = { id: wallet.id, sid: await client.createSession(wallet.id) }
  })
  return wallets
}

/** The public rooms of every market, then `privateRooms` private ones (markets in turn), every wallet a member. */
export const createRooms = async (
  client: Client,
  wallets: ReadonlyArray<BenchWallet>,
  privateRooms: number
): Promise<Array<OrderRoom>> => {
  const rooms: Array<OrderRoom> = markets.map((market) => ({ ...market, roomKey: "0" }))
  for (let i = 0; i < privateRooms; i++) {
    const market = markets[i % markets.length]
    // Different creators: one wallet may hold only five open rooms.
    const creator = wallets[i % wallets.length]
    const reply = await client.call("POST", "/core/v1/market/create_room", {
      sid: creator.sid,
      body: { currency1: market.base, currency2: market.quote }
    })
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
export const requireSoundLedger = async (client: Client, where: string): Promise<AuditReport> => {
  const report = (await client.privResult("ledger_audit")) as AuditReport
  const unbalanced = report.sums.filter((row) => row.total !== "0")
  if (unbalanced.length > 0 || report.negativeUserBuckets !== 0) {
    throw new Error(
      `LEDGER AUDIT FAILED (${where}): ` +
        `${unbalanced.map((row) => `Σ ${row.currency} = ${row.total}`).join(", ") || "every Σ is 0"}; negativeUserBuckets ${report.negativeUserBuckets}`
    )
  }
  return report
}

export interface LedgerFigures {
  readonly commits: number
  readonly operations: number
  readonly commitMsSum: number
}

/** The ledger writer's counters so far (group commits, operations, total commit time). */
export const ledgerFigures = async (client: Client): Promise<LedgerFigures> => {
  const ledger = (await client.privResult("monitoring_stats")).ledger as {
    commits: number
    operations: number
    meanCommitMs: number
  }
  return { commits: ledger.commits, operations: ledger.operations, commitMsSum: ledger.meanCommitMs * ledger.commits }
}
