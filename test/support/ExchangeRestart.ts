/**
 * What the exchange restart test (exchange-restart) drives and reads: a database that outlives the
 * process (with DATABASE_URL a fresh database on that server, with the embedded default one
 * DATA_DIR, reused by every start) and the process itself (boot, halt by SIGKILL or SIGTERM); reads
 * through the client of the current start; the traders and the sweeper (ids survive restarts,
 * sessions are made again on each start) and their orders; the audit of everything the service says
 * about them, a snapshot of a quiescent book, and a sweep of both sides whose fills must be the levels.
 */
import { afterAll, assert } from "@effect/vitest"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { makeClient, type TestClient } from "./Client.ts"
import {
  assertFillsAddUp,
  assertNotCrossed,
  ceilDiv,
  cost,
  currencies,
  decimals,
  exchangeReads,
  type Level,
  levelText,
  SAT,
  toMinor,
  toText,
  within
} from "./ExchangeReads.ts"
import { createDatabase, dropDatabase } from "./Postgres.ts"
import { type RunningService, startService, usingRealPostgres } from "./Service.ts"

// ---------------------------------------------------------------------------------------------
// The database that survives the process, and the process itself.

let databaseUrl: string | undefined
let dataDir: string | undefined
let service: RunningService | undefined
export let client: TestClient

export const boot = async () => {
  if (usingRealPostgres()) databaseUrl ??= await createDatabase(process.env.DATABASE_URL!)
  else dataDir ??= mkdtempSync(join(tmpdir(), "core-exchange-restart-"))
  service = await startService(usingRealPostgres() ? { databaseUrl } : { dataDir })
  client = makeClient(service)
}
/** Stops the process (never deleting its data): SIGKILL is kill -9, SIGTERM a clean stop. */
export const halt = async (signal: NodeJS.Signals) => {
  const code = await service!.stop(signal, true)
  service = undefined
  return code
}

afterAll(async () => {
  if (service !== undefined) await halt("SIGTERM")
  if (databaseUrl !== undefined) await dropDatabase(databaseUrl)
  if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true })
})

// ---------------------------------------------------------------------------------------------
// Reads (through the client of the current start)

const reads = exchangeReads(() => client)
export const { readOrders, readFills, readBalances } = reads
/** get_trade_info of the public BTC/USDT room, which here must fit one read. */
export const readBook = async (sid: string) => {
  const book = await reads.readBook(sid)
  assert.isBelow(book.asks.length, 100, "the book fits one read")
  assert.isBelow(book.bids.length, 100, "the book fits one read")
  return book
}

// ---------------------------------------------------------------------------------------------
// Wallets (ids survive restarts; sessions are made again on each start)

export interface Wallet {
  readonly id: string
  sid: string
}
export const fundedEach = { BTC: 200_000_000n, USDT: 100_000_000_000n }
export const traders: Array<Wallet> = []
export let sweeper: Wallet
let nonce = 1

export const resume = async () => {
  for (const w of [...traders, sweeper]) w.sid = await client.createSession(w.id)
}

export const create = (w: Wallet, body: Record<string, unknown>, what = "create_order") =>
  within(
    client.call("POST", "/core/v1/market/create_order", { sid: w.sid, body: { clientNonce: nonce++, ...body } }),
    what
  )

export const sellBody = (lots: bigint, ticks: bigint) => ({
  fromCurrency: "BTC",
  toCurrency: "USDT",
  fromAmount: toText(lots, 8),
  toAmount: toText(cost(ticks, lots), 6)
})
export const buyBody = (lots: bigint, ticks: bigint) => ({
  fromCurrency: "USDT",
  toCurrency: "BTC",
  fromAmount: toText(ceilDiv(ticks * lots, SAT), 6),
  toAmount: toText(lots, 8)
})

export const MID = 50_000n * 1_000_000n
export const GRID = 20n * 1_000_000n

/** Everything the service says about the traders, with the invariants that must hold at any quiescent moment. */
export const audit = async (where: string) => {
  await client.assertLedgerSound(where)
  const book = await readBook(traders[0].sid)
  assertNotCrossed(book, where)
  const byWallet: Array<Array<any>> = []
  const active: Array<any> = []
  let takerFills = 0,
    makerFills = 0,
    takerAmount = 0n,
    makerAmount = 0n
  for (const [i, w] of [...traders, sweeper].entries()) {
    const orders = await readOrders(w.sid)
    const infos = await readFills(
      w.sid,
      orders.map((o) => o.id)
    )
    assert.strictEqual(infos.length, orders.length)
    byWallet.push(infos)
    for (const info of infos) {
      assertFillsAddUp(info, `${where}, wallet ${i}`)
      for (const f of info.fills) {
        if (f.role === "taker") (takerFills++, (takerAmount += toMinor(f.amount, 8)))
        else (makerFills++, (makerAmount += toMinor(f.amount, 8)))
      }
      if (info.state === "Active") active.push(info)
    }
    const balances = await readBalances(w.sid)
    const funded = w === sweeper ? sweeperFunded : fundedEach
    for (const c of currencies) {
      const locked = orders
        .filter((o) => o.state === "Active" && o.fromCurrency === c)
        .reduce((s, o) => s + toMinor(o.locked, decimals[c]), 0n)
      assert.strictEqual(balances[c].lock, locked, `${where}: wallet ${i} ${c} lockOrders = Σ locked of Active orders`)
      const given = orders.filter((o) => o.fromCurrency === c).reduce((s, o) => s + toMinor(o.given, decimals[c]), 0n)
      const received = orders
        .filter((o) => o.toCurrency === c)
        .reduce((s, o) => s + toMinor(o.received, decimals[c]), 0n)
      assert.strictEqual(
        balances[c].free + balances[c].lock,
        funded[c] - given + received,
        `${where}: wallet ${i} ${c} = funded − given + received`
      )
    }
    // ord_states=Active agrees with the states of the full read.
    const activeOnly = await readOrders(w.sid, "&ord_states=Active")
    assert.deepStrictEqual(
      activeOnly.map((o) => o.id),
      orders.filter((o) => o.state === "Active").map((o) => o.id),
      `${where}: wallet ${i} Active filter`
    )
  }
  assert.strictEqual(takerFills, makerFills, `${where}: every trade once as taker and once as maker`)
  assert.strictEqual(takerAmount, makerAmount, `${where}: Σ taker fills = Σ maker fills`)
  return { book, byWallet, active }
}
export let sweeperFunded = { BTC: 0n, USDT: 0n }
/** The sweeper, once the test has made it. */
export const setSweeper = (wallet: Wallet) => {
  sweeper = wallet
}
/** What the sweeper was funded with, once the test has funded it. */
export const setSweeperFunded = (funded: typeof sweeperFunded) => {
  sweeperFunded = funded
}

export const snapshot = async () => {
  const book = await readBook(traders[0].sid)
  const orders = []
  const balances = []
  for (const w of [...traders, sweeper]) {
    orders.push(
      (await readOrders(w.sid)).map((o) => `${o.id} ${o.state} ${o.given} ${o.received} ${o.fee} ${o.locked}`)
    )
    const b = await readBalances(w.sid)
    balances.push(currencies.map((c) => `${c} ${b[c].free} ${b[c].lock}`).join(", "))
  }
  return { asks: levelText(book.asks), bids: levelText(book.bids), lastPrice: book.lastPrice, orders, balances }
}

/** Taker fills grouped by consecutive price: the levels a sweeping order went through (price:lots). */
export const grouped = (fills: ReadonlyArray<any>) => {
  const levels: Array<Level> = []
  for (const f of fills.filter((x) => x.role === "taker")) {
    const price = f.price as string,
      lots = toMinor(f.amount, 8)
    const last = levels[levels.length - 1]
    if (last !== undefined && last.price === price)
      levels[levels.length - 1] = { price, lots: last.lots + lots, total: 0n }
    else levels.push({ price, lots, total: 0n })
  }
  return levels
}
/** Levels as price:lots (a sweep's fills each round on their own, so their totals are not the level's). */
export const priceLots = (levels: ReadonlyArray<Level>) => levels.map((l) => `${l.price}:${l.lots}`).join(" ")

/** A market sell through every bid, then a market buy by budget through every ask: fills = the levels. */
export const sweep = async (where: string) => {
  const book = await readBook(traders[0].sid)
  const bidLots = book.bids.reduce((s, l) => s + l.lots, 0n)
  if (bidLots > 0n) {
    const sold = await create(sweeper, {
      fromCurrency: "BTC",
      toCurrency: "USDT",
      fromAmount: toText(bidLots + 12_345n, 8),
      isLimit: false
    })
    assert.strictEqual(sold.body.result?.state, "Completed", JSON.stringify(sold.body))
    assert.strictEqual(
      toMinor(sold.body.result.given, 8),
      bidLots,
      `${where}: a market sell gives what the bids take; the rest returns`
    )
    const [info] = await readFills(sweeper.sid, [sold.body.result.id])
    assert.strictEqual(
      priceLots(grouped(info.fills)),
      priceLots(book.bids),
      `${where}: the sell's fills are the bid levels, best first`
    )
  }
  if (book.asks.length > 0) {
    const budget = book.asks.reduce((s, l) => s + l.total + 1n, 0n) + 1_000_000n
    const bought = await create(sweeper, {
      fromCurrency: "USDT",
      toCurrency: "BTC",
      fromAmount: toText(budget, 6),
      isLimit: false
    })
    assert.strictEqual(bought.body.result?.state, "Completed", JSON.stringify(bought.body))
    const [info] = await readFills(sweeper.sid, [bought.body.result.id])
    assert.strictEqual(
      priceLots(grouped(info.fills)),
      priceLots(book.asks),
      `${where}: the buy's fills are the ask levels, best first`
    )
  }
  const after = await readBook(traders[0].sid)
  assert.strictEqual(after.asks.length + after.bids.length, 0, `${where}: swept`)
}
