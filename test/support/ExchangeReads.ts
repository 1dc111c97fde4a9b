/**
 * Money and reads of a BTC/USDT book (BTC 8 decimals: a lot is 1 sat; USDT 6: a quote unit is 1 minor unit) for the exchange's
 * property tests (exchange-invariants-stream and -races, exchange-restart): minor-unit arithmetic, the book's levels,
 * and paged reads of orders, fills and balances, each bounded by `within` so that a stuck room actor
 * fails the test at the read, not at the test timeout.
 *
 * The pure helpers are exported as they are; the reads come from `exchangeReads(getClient)`, which
 * reads the client on every call (a test that restarts the service makes a new one each time).
 */
import { assert } from "@effect/vitest"
import { BigNumber } from "bignumber.js"
import type { Reply, TestClient } from "./Client.ts"

// ---------------------------------------------------------------------------------------------
// Money

export const SAT = 100_000_000n // ticks × lots / SAT = USDT minor units (BTC 8 decimals, USDT 6, price ticks 10^-6)
export const decimals = { BTC: 8, USDT: 6 } as const
export type Currency = keyof typeof decimals
export const currencies: ReadonlyArray<Currency> = ["BTC", "USDT"]

export const toText = (minor: bigint, places: number): string => {
  const negative = minor < 0n
  const digits = (negative ? -minor : minor).toString().padStart(places + 1, "0")
  const whole = digits.slice(0, digits.length - places)
  const fraction = digits.slice(digits.length - places).replace(/0+$/, "")
  return (negative ? "-" : "") + whole + (fraction.length > 0 ? "." + fraction : "")
}
export const toMinor = (value: string | number, places: number): bigint => {
  const text = typeof value === "number" ? value.toFixed(places) : value
  const negative = text.startsWith("-")
  const [whole, fraction = ""] = (negative ? text.slice(1) : text).split(".")
  if (fraction.length > places) throw new Error(`${text}: more than ${places} decimals`)
  const minor = BigInt(whole + fraction.padEnd(places, "0"))
  return negative ? -minor : minor
}
export const cost = (ticks: bigint, lots: bigint): bigint => (ticks * lots) / SAT
export const ceilDiv = (a: bigint, b: bigint) => (a + b - 1n) / b

/**
 * A price as shown (CONTRACT C14): the exact ratio `num` USDT minor units per `den` sats, in USDT per
 * BTC, at most 12 significant digits (half to even), computed here with BigNumber (not the service's code).
 */
export const shownPrice = (num: bigint, den: bigint): string =>
  new (BigNumber.clone({ DECIMAL_PLACES: 40 }))(String(num))
    .times(100)
    .div(String(den))
    .precision(12, BigNumber.ROUND_HALF_EVEN)
    .toFixed()

/** A request that must be answered: a stuck room actor fails the test here, not at the test timeout. */
export const within = async <A>(promise: Promise<A>, what: string, ms = 20_000): Promise<A> => {
  let timer: ReturnType<typeof setTimeout> | undefined
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what}: no answer in ${ms} ms (a room actor stuck?)`)), ms)
      })
    ])
  } finally {
    clearTimeout(timer)
  }
}
export const errorCode = (reply: Reply) => reply.body.error?.code ?? null

// ---------------------------------------------------------------------------------------------
// The book

/** A level as get_trade_info shows it: price (USDT per BTC, ≤ 12 significant digits), sats, USDT minor units. */
export interface Level {
  readonly price: string
  readonly lots: bigint
  readonly total: bigint
}
export interface Book {
  readonly asks: Array<Level>
  readonly bids: Array<Level>
}

export const levelText = (levels: ReadonlyArray<Level>) =>
  levels.map((l) => `${l.price}:${l.lots}:${l.total}`).join(" ")

/** Exact prices are not shown, so this is the shown order (distinct exact ratios may share a rounded price). */
export const assertNotCrossed = (book: { asks: ReadonlyArray<Level>; bids: ReadonlyArray<Level> }, where: string) => {
  const p = (l: Level) => new BigNumber(l.price)
  for (let i = 1; i < book.asks.length; i++)
    assert.isTrue(p(book.asks[i - 1]).lte(p(book.asks[i])), `${where}: asks ascending`)
  for (let i = 1; i < book.bids.length; i++)
    assert.isTrue(p(book.bids[i - 1]).gte(p(book.bids[i])), `${where}: bids descending`)
  if (book.asks.length > 0 && book.bids.length > 0) {
    assert.isTrue(
      p(book.bids[0]).lte(p(book.asks[0])),
      `${where}: crossed book, best bid ${book.bids[0].price} > best ask ${book.asks[0].price}`
    )
  }
  for (const l of [...book.asks, ...book.bids]) {
    assert.isTrue(l.lots > 0n, `${where}: empty level`)
    // The total is the level's exact value rounded to a minor unit: within one unit of price × amount
    // (the shown price is rounded to 12 digits, so allow for that too).
    const approx = p(l).times(String(l.lots)).div(100)
    assert.isTrue(
      approx.minus(String(l.total)).abs().lte(approx.times(1e-11).plus(1)),
      `${where}: level total ≈ price × amount`
    )
  }
}

/** Σ fills of one order (order_tx_info) against its given / received + fee; a closed order holds no lock. */
export const assertFillsAddUp = (order: any, where: string) => {
  const amount = order.fills.reduce((s: bigint, f: any) => s + toMinor(f.amount, 8), 0n)
  const total = order.fills.reduce((s: bigint, f: any) => s + toMinor(f.total, 6), 0n)
  for (const f of order.fills) {
    // A fill moves whole minor units at the maker's exact ratio (shown rounded): total ≈ price × amount.
    const approx = new BigNumber(f.price).times(toMinor(f.amount, 8).toString()).div(100)
    assert.isTrue(
      approx.minus(toMinor(f.total, 6).toString()).abs().lte(approx.times(1e-11).plus(1)),
      `${where}: fill total`
    )
  }
  const sell = order.fromCurrency === "BTC"
  const given = toMinor(order.given, sell ? 8 : 6)
  const grossIn = toMinor(order.received, sell ? 6 : 8) + toMinor(order.fee, sell ? 6 : 8)
  assert.strictEqual(
    given,
    sell ? amount : total,
    `${where}: order ${order.id} given = Σ fills (no fill lost or doubled)`
  )
  assert.strictEqual(grossIn, sell ? total : amount, `${where}: order ${order.id} received + fee = Σ fills`)
  if (order.state !== "Active") assert.strictEqual(order.locked, "0", `${where}: a closed order holds no lock`)
}

/** An order's exact limit ratio from its own amounts (USDT minor units per sat): [num, den]. */
export const ratioOfOrder = (o: any): readonly [bigint, bigint] =>
  o.fromCurrency === "BTC"
    ? [toMinor(o.toAmount, 6), toMinor(o.fromAmount, 8)]
    : [toMinor(o.fromAmount, 6), toMinor(o.toAmount, 8)]

/**
 * The book implied by Active orders and their fills: a sell rests `locked` lots; a buy rests what its
 * budget left after its taker fills buys at its own ratio, less what makers' fills took since.
 * Levels are keyed by the exact ratio (cross-multiplied), shown as get_trade_info shows them.
 */
export const bookFromOrders = (active: ReadonlyArray<any>): Book => {
  const sides = {
    asks: [] as Array<{ n: bigint; d: bigint; lots: bigint }>,
    bids: [] as Array<{ n: bigint; d: bigint; lots: bigint }>
  }
  for (const o of active) {
    assert.isNotNull(
      o.price,
      `Active order ${o.id} has no limit price: a market order never rests, so it was never matched`
    )
    const [n, d] = ratioOfOrder(o)
    let lots: bigint
    if (o.fromCurrency === "BTC") lots = toMinor(o.locked, 8)
    else {
      const spentAsTaker = o.fills
        .filter((f: any) => f.role === "taker")
        .reduce((s: bigint, f: any) => s + toMinor(f.total, 6), 0n)
      const takenAsMaker = o.fills
        .filter((f: any) => f.role === "maker")
        .reduce((s: bigint, f: any) => s + toMinor(f.amount, 8), 0n)
      lots = ((toMinor(o.fromAmount, 6) - spentAsTaker) * d) / n - takenAsMaker
    }
    const side = o.fromCurrency === "BTC" ? sides.asks : sides.bids
    const same = side.find((l) => l.n * d === n * l.d)
    if (same !== undefined) same.lots += lots
    else side.push({ n, d, lots })
  }
  const sorted = (levels: Array<{ n: bigint; d: bigint; lots: bigint }>, asks: boolean) =>
    levels
      .sort((a, b) => {
        const x = a.n * b.d,
          y = b.n * a.d
        return x === y ? 0 : x < y === asks ? -1 : 1
      })
      .map((l): Level => ({
        price: shownPrice(l.n, l.d),
        lots: l.lots,
        total: asks ? ceilDiv(l.lots * l.n, l.d) : (l.lots * l.n) / l.d
      }))
  return { asks: sorted(sides.asks, true), bids: sorted(sides.bids, false) }
}

// ---------------------------------------------------------------------------------------------
// Reads over HTTP

export type Balances = Record<Currency, { free: bigint; lock: bigint }>

/** The reads, through whatever client `getClient` returns at the time of each call. */
export const exchangeReads = (getClient: () => TestClient) => {
  /** get_trade_info of BTC/USDT (up to 100 levels a side), in `roomKey` if given. */
  const readBook = async (sid: string, roomKey?: string): Promise<Book & { lastPrice: string | null; raw: any }> => {
    const room = roomKey === undefined ? "" : `&room_key=${roomKey}`
    const reply = await within(
      getClient().call(
        "GET",
        `/core/v1/market/get_trade_info?currency_from=BTC&currency_to=USDT&results_limit=100${room}`,
        { sid }
      ),
      "get_trade_info"
    )
    assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
    const level = (row: any): Level => ({
      price: row.price,
      lots: toMinor(row.amount, 8),
      total: toMinor(row.total, 6)
    })
    const result = reply.body.result
    return {
      asks: result.asks.map(level),
      bids: result.bids.map(level),
      lastPrice: result.lastPrice as string | null,
      raw: result
    }
  }

  /** Every order of a wallet (newest first), optionally only some states, through from_order_id paging. */
  const readOrders = async (sid: string, states = ""): Promise<Array<any>> => {
    const all: Array<any> = []
    let from: string | undefined
    for (;;) {
      const query = `limit=100${states}${from === undefined ? "" : `&from_order_id=${from}`}`
      const reply = await within(getClient().call("GET", `/core/v1/market/get_orders?${query}`, { sid }), "get_orders")
      assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
      const page = reply.body.result as Array<any>
      for (let i = 1; i < page.length; i++)
        assert.isTrue(BigInt(page[i - 1].id) > BigInt(page[i].id), "get_orders: newest first")
      all.push(...page)
      if (page.length < 100) return all
      from = page[page.length - 1].id
    }
  }

  /** order_tx_info of the given orders, 100 at a time. */
  const readFills = async (sid: string, ids: ReadonlyArray<string>): Promise<Array<any>> => {
    const found: Array<any> = []
    for (let i = 0; i < ids.length; i += 100) {
      const reply = await within(
        getClient().call("POST", "/core/v1/order_tx_info", { sid, body: ids.slice(i, i + 100) }),
        "order_tx_info"
      )
      assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
      found.push(...reply.body.result)
    }
    return found
  }

  /** Free and lockOrders of BTC and USDT, in minor units (0 for a currency the wallet never held). */
  const readBalances = async (sid: string): Promise<Balances> => {
    const reply = await within(getClient().call("GET", "/core/v1/wallet/get_balance", { sid }), "get_balance")
    assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
    const out = {} as Balances
    for (const c of currencies) {
      const row = (reply.body.result as Array<any>).find((r) => r.currency === c)
      out[c] = { free: toMinor(row?.freeBalance ?? 0, decimals[c]), lock: toMinor(row?.lockOrders ?? 0, decimals[c]) }
    }
    return out
  }

  return { readBook, readOrders, readFills, readBalances }
}
