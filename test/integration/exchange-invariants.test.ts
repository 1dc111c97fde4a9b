/**
 * Invariants of the exchange over real HTTP against the real service (SPEC "Market (session)",
 * "Order states", CONTRACT C14, ARCHITECTURE "Actors"): seeded streams (EXCHANGE_SEED, EXCHANGE_STEPS,
 * EXCHANGE_ROUNDING_STEPS) of operations on a BTC/USDT book among eight wallets — passive and crossing
 * limit buys and sells around a mid price, post-only orders (some of which would match: 10090),
 * market sells, market buys by budget and with a toAmount, cancels of open orders (and of closed or
 * foreign ones: 10092, 10091), and orders beyond the free balance (10002) — under Exchange tariffs
 * with a fixed and a percentage fee. Sizes are either whole price-grid multiples (so several makers
 * share a level) or odd satoshi amounts at odd prices (so fills round). Two streams: 320 steps on the
 * public room at 50 000 USDT/BTC, and 160 steps in a private room at 150 USDT/BTC, where a satoshi
 * is worth 1.5 USDT minor units and nearly every fill rounds.
 *
 * An independent model replays every operation: the book is test/support/ExchangeModel.ts (exact
 * rationals: every limit price is the exact ratio of the order's own amounts, CONTRACT C14 "Same
 * price, same trade"; fills rounded in the maker's favour, dust and self-trade prevention per
 * docs/DESIGN.md), and this file keeps the orders, locks, fees and balances: settlement per
 * participant per match with the tariff's fee (percent on every fill, the fixed part once per order
 * on its first fill, rounded up, capped at the gross). Orders come from random amounts in both
 * orientations (ratios no decimal tick represents), some mirror a resting order's exact ratio from the
 * other side (they must trade), and wallets meet their own orders (self-trade prevention).
 *
 * After EVERY step it asserts:
 *  (a) the book (get_trade_info) is never crossed and equals the model's levels (price, amount, total);
 *  (b) Σ = 0 per currency over all wallets incl. system wallets, no negative user bucket (ledger_audit);
 *  (c) per wallet and currency: lockOrders = Σ `locked` of its Active orders (get_orders?ord_states=Active,
 *      paged), and the Active set equals the model's;
 *  (d) every wallet's free and lockOrders equal the model's, and Σ users (free + lockOrders) + fees
 *      collected = Σ funded per currency (the Broker ends every match flat);
 *  plus the reply of each step itself (figures of the placed or cancelled order, the taker's fills
 *  from order_tx_info, the error code of a refusal).
 * Every 10 steps (and at the end) it also reads every order of every wallet (all states, paged) and
 * asserts: each order's figures equal the model's; per wallet, free + lockOrders = funded − Σ given +
 * Σ received (from the service's own order figures); each order's fills (order_tx_info) add up to its
 * given / received + fee; every trade appears once as taker and once as maker; and the book derived
 * from the Active orders and their fills equals get_trade_info.
 *
 * Beside the streams, a race: one wallet's 20 concurrent sells (funds for 5) against another wallet's 20
 * concurrent crossing buys (funds for 2) — exactly 5 and 2 are accepted, the rest get 10002, lockOrders
 * sampled during the race never exceeds what was funded, and the fills settle exactly.
 * And a regression, pinned: a limit buy whose budget runs out at a level that still has asks used
 * to rest its rounding dust across that level, which killed the room actor on every rebuild.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { makeClient, type Reply, type TestClient } from "../support/Client.ts"
import { type RunningService, startService } from "../support/Service.ts"
import {
  assertFillsAddUp,
  assertNotCrossed,
  bookFromOrders,
  ceilDiv,
  cost,
  type Currency,
  currencies,
  decimals,
  errorCode,
  exchangeReads,
  type Level,
  levelText,
  SAT,
  shownPrice,
  toMinor,
  toText,
  within
} from "../support/ExchangeReads.ts"
import { BookModel, cmp, frac, type Frac, type ModelResult } from "../support/ExchangeModel.ts"
import { seeded } from "../unit/Random.ts"

const seed = Number(process.env.EXCHANGE_SEED ?? 20_261_123)
const steps = Number(process.env.EXCHANGE_STEPS ?? 320)
const walletCount = 8
const fullCheckEvery = 10
const maxActive = 50

// Exchange tariffs: fee in the currency received. USDT 0.01 fixed + 0.1 %, BTC 0.25 %.
const tariffs = { USDT: { fixed: 10_000n, hundredths: 10n }, BTC: { fixed: 0n, hundredths: 25n } } as const

let service: RunningService
let client: TestClient
const { readBook, readOrders, readFills, readBalances } = exchangeReads(() => client)

beforeAll(async () => {
  service = await startService()
  client = makeClient(service)
  const reply = await client.priv("POST", "set_tariffs", [
    { txClass: "Exchange", currency: "USDT", feeFixed: "0.01", feePercent: "0.1" },
    { txClass: "Exchange", currency: "BTC", feeFixed: "0", feePercent: "0.25" }
  ])
  assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
})
afterAll(async () => {
  await service?.stop()
})

// ---------------------------------------------------------------------------------------------
// Fees (this file's tariffs)

const minOf = (a: bigint, b: bigint) => (a < b ? a : b)
/** C14: feePercent on every fill, feeFixed once per order (its first fill), never more than received. */
const feeOf = (currency: Currency, gross: bigint, first: boolean): bigint => {
  if (gross === 0n) return 0n
  const rule = tariffs[currency]
  return minOf(gross, (first ? rule.fixed : 0n) + ceilDiv(gross * rule.hundredths, 10_000n))
}

// ---------------------------------------------------------------------------------------------
// The model: the book is test/support/ExchangeModel.ts (exact rationals, from the rules); here the
// orders, their locks, fees and balances. A lot is one sat, a quote unit one USDT minor unit.

type Side = "buy" | "sell"
type Kind = "limit" | "post" | "market"
type State = "Active" | "Completed" | "Canceled"

interface ModelOrder {
  readonly id: string
  readonly bookId: number
  readonly wallet: number
  readonly side: Side
  readonly kind: Kind
  readonly fromAmount: bigint
  /** The exact limit ratio (USDT minor units per sat), null for market orders. */
  readonly ratio: Frac | null
  locked: bigint
  given: bigint
  received: bigint
  fee: bigint
  state: State
}

interface Plan {
  readonly error?: 10002 | 10090 | 10094
  readonly result?: ModelResult
  readonly bookId: number
}

interface OrderInput {
  readonly wallet: number
  readonly side: Side
  readonly kind: Kind
  readonly fromAmount: bigint
  /** toAmount in the currency received (a limit order's ratio is fromAmount / toAmount). */
  readonly toAmount: bigint | null
  readonly body: Record<string, unknown>
}

const fromOf = (side: Side): Currency => (side === "sell" ? "BTC" : "USDT")
const toOf = (side: Side): Currency => (side === "sell" ? "USDT" : "BTC")
const ratioOfInput = (input: OrderInput): Frac | null =>
  input.kind === "market" || input.toAmount === null
    ? null
    : input.side === "sell"
      ? frac(input.toAmount, input.fromAmount)
      : frac(input.fromAmount, input.toAmount)

const makeModel = () => {
  const balances = Array.from({ length: walletCount }, () => ({
    BTC: { free: 0n, lock: 0n },
    USDT: { free: 0n, lock: 0n }
  }))
  const funded = { BTC: 0n, USDT: 0n }
  const fees = { BTC: 0n, USDT: 0n }
  const orders = new Map<string, ModelOrder>()
  const byBookId = new Map<number, ModelOrder>()
  const book = new BookModel()
  let nextBookId = 1

  /** Levels as get_trade_info shows them: exact ratio, shown price, Σ lots, total as one fill would move it. */
  const levels = (side: Side): Array<Level> => {
    const out: Array<{ price: Frac; lots: bigint }> = []
    for (const o of book.side(side)) {
      const last = out[out.length - 1]
      if (last !== undefined && cmp(last.price, o.price) === 0) last.lots += o.remaining
      else out.push({ price: o.price, lots: o.remaining })
    }
    return out.map((l) => ({
      price: shownPrice(l.price.n, l.price.d),
      lots: l.lots,
      total: side === "sell" ? ceilDiv(l.lots * l.price.n, l.price.d) : (l.lots * l.price.n) / l.price.d
    }))
  }
  const activeOf = (wallet: number) => [...orders.values()].filter((o) => o.wallet === wallet && o.state === "Active")

  /** The wallet's and the room's checks, then the book's decision (the book changes only when accepted). */
  const plan = (input: OrderInput): Plan => {
    const bookId = nextBookId++
    const { wallet, side, kind, fromAmount } = input
    if (activeOf(wallet).length >= maxActive) return { error: 10094, bookId }
    if (balances[wallet][fromOf(side)].free < fromAmount) return { error: 10002, bookId }
    const ratio = ratioOfInput(input)
    const result = book.submit({
      id: bookId,
      side,
      kind: kind === "post" ? "limitOnly" : kind,
      owner: wallet + 1,
      ...(ratio === null ? {} : { price: ratio }),
      // A sell gives its sats; a buy spends its budget (a market buy's toAmount does not bound it).
      ...(side === "sell" ? { lots: fromAmount } : { budget: fromAmount })
    })
    if (result.outcome === "rejected") return { error: 10090, bookId }
    return { result, bookId }
  }

  const settle = (order: ModelOrder, given: bigint, gross: bigint, ends: boolean) => {
    const from = fromOf(order.side),
      to = toOf(order.side)
    const fee = feeOf(to, gross, order.given === 0n)
    const bucket = balances[order.wallet]
    bucket[from].lock -= given
    bucket[to].free += gross - fee
    fees[to] += fee
    order.locked -= given
    order.given += given
    order.received += gross - fee
    order.fee += fee
    if (order.locked < 0n) throw new Error(`model: order ${order.id} spent more than it locked`)
    if (ends && order.locked > 0n) {
      bucket[from].lock -= order.locked
      bucket[from].free += order.locked
      order.locked = 0n
    }
  }

  const apply = (id: string, input: OrderInput, p: Plan): ModelOrder => {
    const order: ModelOrder = {
      id,
      bookId: p.bookId,
      wallet: input.wallet,
      side: input.side,
      kind: input.kind,
      fromAmount: input.fromAmount,
      ratio: ratioOfInput(input),
      locked: input.fromAmount,
      given: 0n,
      received: 0n,
      fee: 0n,
      state: "Active"
    }
    orders.set(id, order)
    byBookId.set(p.bookId, order)
    const from = fromOf(input.side)
    balances[input.wallet][from].free -= input.fromAmount
    balances[input.wallet][from].lock += input.fromAmount
    if (p.error === 10090) {
      order.state = "Canceled"
      settle(order, 0n, 0n, true)
      return order
    }
    const result = p.result!
    const taker = { given: 0n, gross: 0n }
    const makers = new Map<ModelOrder, { given: bigint; gross: bigint }>()
    for (const fill of result.fills) {
      const maker = byBookId.get(fill.maker)!
      let leg = makers.get(maker)
      if (leg === undefined) makers.set(maker, (leg = { given: 0n, gross: 0n }))
      if (input.side === "sell") {
        ;((taker.given += fill.lots), (taker.gross += fill.quote), (leg.given += fill.quote), (leg.gross += fill.lots))
      } else {
        ;((taker.given += fill.quote), (taker.gross += fill.lots), (leg.given += fill.lots), (leg.gross += fill.quote))
      }
    }
    const endedReason = new Map(result.removed.map(([bookId, , reason]) => [byBookId.get(bookId)!, reason]))
    for (const maker of endedReason.keys()) if (!makers.has(maker)) makers.set(maker, { given: 0n, gross: 0n })
    order.state = result.outcome === "rested" ? "Active" : result.fills.length > 0 ? "Completed" : "Canceled"
    settle(order, taker.given, taker.gross, order.state !== "Active")
    const resting = new Set(book.orders.map((o) => o.id))
    for (const [maker, leg] of makers) {
      const reason = endedReason.get(maker)
      if (reason === "selfTrade") maker.state = "Canceled"
      else if (reason === "dust") maker.state = maker.given + leg.given > 0n ? "Completed" : "Canceled"
      else if (!resting.has(maker.bookId)) maker.state = "Completed"
      settle(maker, leg.given, leg.gross, maker.state !== "Active")
    }
    return order
  }

  const cancel = (order: ModelOrder) => {
    order.state = "Canceled"
    settle(order, 0n, 0n, true)
    book.cancel(order.bookId)
  }

  return { balances, funded, fees, orders, levels, activeOf, plan, apply, cancel }
}
type Model = ReturnType<typeof makeModel>

const assertOrderMatches = (actual: any, expected: ModelOrder, where: string) => {
  const from = fromOf(expected.side),
    to = toOf(expected.side)
  const got = {
    state: actual.state,
    given: toMinor(actual.given, decimals[from]),
    received: toMinor(actual.received, decimals[to]),
    fee: toMinor(actual.fee, decimals[to]),
    locked: toMinor(actual.locked, decimals[from]),
    price: actual.price,
    fromAmount: toMinor(actual.fromAmount, decimals[from])
  }
  const want = {
    state: expected.state,
    given: expected.given,
    received: expected.received,
    fee: expected.fee,
    locked: expected.locked,
    price: expected.ratio === null ? null : shownPrice(expected.ratio.n, expected.ratio.d),
    fromAmount: expected.fromAmount
  }
  assert.deepStrictEqual(got, want, `${where}: order ${expected.id} (${expected.side} ${expected.kind})`)
}

// ---------------------------------------------------------------------------------------------
// The stream

interface Wallet {
  readonly id: string
  readonly sid: string
}

const makeWallets = async (base: number, btc: bigint, usdt: bigint, model?: Model): Promise<Array<Wallet>> => {
  const wallets: Array<Wallet> = []
  for (let i = 0; i < walletCount; i++) {
    const created = await client.walletWithSession(String(base + i))
    wallets.push(created)
    await client.fund(created.id, "BTC", toText(btc, 8))
    await client.fund(created.id, "USDT", toText(usdt, 6))
    if (model !== undefined) {
      model.balances[i].BTC.free += btc
      model.balances[i].USDT.free += usdt
      model.funded.BTC += btc
      model.funded.USDT += usdt
    }
  }
  return wallets
}

interface Regime {
  readonly name: string
  readonly seed: number
  readonly steps: number
  /** Mid price and price grid, in ticks (10^-6 USDT per BTC). */
  readonly mid: bigint
  readonly grid: bigint
  readonly clientIdBase: number
  /** Streams other than the public room's run in a private room of their own wallets. */
  readonly privateRoom: boolean
}

const runStream = async (regime: Regime) => {
  const { seed, steps } = regime
  const MID = regime.mid,
    GRID = regime.grid
  const random = seeded(seed)
  const model = makeModel()
  const fundedEach = { BTC: 300_000_000n, USDT: 150_000_000_000n }
  const wallets = await makeWallets(regime.clientIdBase + (seed % 1000) * 10, fundedEach.BTC, fundedEach.USDT, model)
  const roomKey = regime.privateRoom ? await privateRoom(wallets[0], wallets.slice(1)) : "0"
  let nonce = 1
  const pick = <A>(items: ReadonlyArray<A>): A => items[random.int(0, items.length - 1)]
  const seen = new Map<string, number>()
  const saw = (what: string) => seen.set(what, (seen.get(what) ?? 0) + 1)

  /** A limit / post-only order near `ticks`: whole grid multiples, or odd satoshis at an odd price. */
  const limitInput = (wallet: number, side: Side, kind: "limit" | "post", targetTicks: bigint): OrderInput => {
    const exact = random.next() < 0.65
    const ticks = exact ? targetTicks : targetTicks + BigInt(random.int(0, Number(GRID) - 1))
    let lots = exact ? BigInt(random.int(1, 2000)) * 10_000n : BigInt(random.int(1, 20_000_000))
    // Mostly fit the free balance; sometimes not (then 10002 is the expected answer).
    const free = model.balances[wallet][fromOf(side)].free
    const need = (l: bigint) => (side === "sell" ? l : ceilDiv(ticks * l, SAT))
    if (need(lots) > free && random.next() < 0.85) {
      lots = side === "sell" ? free : (free * SAT) / ticks
      if (exact) lots = (lots / 10_000n) * 10_000n
    }
    if (lots <= 0n) lots = 10_000n
    if (side === "sell") {
      const to = cost(ticks, lots) > 0n ? cost(ticks, lots) : 1n
      return {
        wallet,
        side,
        kind,
        fromAmount: lots,
        toAmount: to,
        body: {
          fromCurrency: "BTC",
          toCurrency: "USDT",
          fromAmount: toText(lots, 8),
          toAmount: toText(to, 6),
          postOnly: kind === "post"
        }
      }
    }
    const from = ceilDiv(ticks * lots, SAT)
    return {
      wallet,
      side,
      kind,
      fromAmount: from,
      toAmount: lots,
      body: {
        fromCurrency: "USDT",
        toCurrency: "BTC",
        fromAmount: toText(from, 6),
        toAmount: toText(lots, 8),
        postOnly: kind === "post"
      }
    }
  }

  const marketInput = (wallet: number, side: Side): OrderInput => {
    const free = model.balances[wallet][fromOf(side)].free
    if (side === "sell") {
      let lots = BigInt(random.int(1, 30_000_000))
      if (lots > free && free > 0n) lots = free
      return {
        wallet,
        side,
        kind: "market",
        fromAmount: lots,
        toAmount: null,
        body: { fromCurrency: "BTC", toCurrency: "USDT", fromAmount: toText(lots, 8), isLimit: false }
      }
    }
    let budget = cost(MID, BigInt(random.int(1, 30_000_000))) + 1n
    if (budget > free && free > 0n) budget = free
    const body: Record<string, unknown> = {
      fromCurrency: "USDT",
      toCurrency: "BTC",
      fromAmount: toText(budget, 6),
      isLimit: false
    }
    // A toAmount does not bound a market buy (C14: it gives its fromAmount at most, at the makers' prices).
    const toAmount = random.next() < 0.4 ? BigInt(random.int(1, 10_000_000)) : null
    if (toAmount !== null) body.toAmount = toText(toAmount, 8)
    return { wallet, side, kind: "market", fromAmount: budget, toAmount, body }
  }

  /**
   * The same price written the other way round (C14 "Same price, same trade"): an order whose exact
   * ratio equals a resting opposite order's, in whole multiples of that ratio — it must trade.
   * Any wallet may write it, its own included (then self-trade prevention cancels the resting one).
   */
  const mirrorInput = (wallet: number): OrderInput | undefined => {
    const resting = [...model.orders.values()].filter((o) => o.state === "Active" && o.ratio !== null)
    if (resting.length === 0) return undefined
    const target = pick(resting)
    const { n, d } = target.ratio!
    const k = BigInt(random.int(1, 3))
    if (target.side === "buy") {
      const body = { fromCurrency: "BTC", toCurrency: "USDT", fromAmount: toText(d * k, 8), toAmount: toText(n * k, 6) }
      return { wallet, side: "sell", kind: "limit", fromAmount: d * k, toAmount: n * k, body }
    }
    const body = { fromCurrency: "USDT", toCurrency: "BTC", fromAmount: toText(n * k, 6), toAmount: toText(d * k, 8) }
    return { wallet, side: "buy", kind: "limit", fromAmount: n * k, toAmount: d * k, body }
  }

  const placeOrder = async (input: OrderInput, where: string, mirror = false) => {
    const expected = model.plan(input)
    const reply = await within(
      client.call("POST", "/core/v1/market/create_order", {
        sid: wallets[input.wallet].sid,
        body: { ...input.body, roomKey, clientNonce: nonce++ }
      }),
      where
    )
    if (expected.error === 10002 || expected.error === 10094) {
      assert.strictEqual(errorCode(reply), expected.error, `${where}: ${JSON.stringify(reply.body)}`)
      saw(`refused ${expected.error}`)
      return
    }
    if (expected.error === 10090) {
      assert.strictEqual(errorCode(reply), 10090, `${where}: ${JSON.stringify(reply.body)}`)
      // The refused post-only order exists, Canceled, with nothing given and nothing locked.
      const [newest] = await readOrders(wallets[input.wallet].sid).then((all) => all.slice(0, 1))
      assert.isFalse(model.orders.has(newest.id), `${where}: a 10090 refusal leaves its own Canceled order`)
      assertOrderMatches(newest, model.apply(newest.id, input, expected), where)
      saw("post-only refused 10090")
      return
    }
    assert.strictEqual(reply.status, 200, `${where}: ${JSON.stringify(reply.body)}`)
    const order = model.apply(reply.body.result.id, input, expected)
    assertOrderMatches(reply.body.result, order, where)
    // The taker's fills: best price first, at the makers' exact ratios, each rounded in the maker's favour.
    const fills = expected.result!.fills
    const [info] = await readFills(wallets[input.wallet].sid, [order.id])
    const takerFills = info.fills
      .filter((f: any) => f.role === "taker")
      .map((f: any) => `${f.price}×${toMinor(f.amount, 8)}=${toMinor(f.total, 6)}`)
    const wantFills = fills.map((f) => `${shownPrice(f.price.n, f.price.d)}×${f.lots}=${f.quote}`)
    assert.deepStrictEqual(takerFills, wantFills, `${where}: taker fills`)
    assert.strictEqual(info.fills.length, fills.length, `${where}: a new order has no maker fills yet`)
    saw(`${input.side} ${input.kind} ${order.state}${fills.length > 0 ? " with fills" : ""}`)
    for (const [, , reason] of expected.result!.removed)
      saw(reason === "selfTrade" ? "self-trade cancelled a maker" : "dust maker left")
    if (expected.result!.takerDust) saw("dust taker released")
    if (mirror && fills.length > 0) saw("a mirrored ratio traded")
  }

  const cancelOrder = async (wallet: number, target: string, expected: ModelOrder | 10091 | 10092, where: string) => {
    const reply = await within(
      client.call("POST", `/core/v1/market/cancel_order?id=${target}`, { sid: wallets[wallet].sid }),
      where
    )
    if (typeof expected === "number") {
      assert.strictEqual(errorCode(reply), expected, `${where}: ${JSON.stringify(reply.body)}`)
      saw(`cancel refused ${expected}`)
      return
    }
    assert.strictEqual(reply.status, 200, `${where}: ${JSON.stringify(reply.body)}`)
    model.cancel(expected)
    assertOrderMatches(reply.body.result, expected, where)
    saw("cancel")
  }

  const step = async (index: number) => {
    const wallet = random.int(0, walletCount - 1)
    const where = `step ${index} (seed ${seed})`
    const r = random.next()
    if (r < 0.2) {
      const open = model.activeOf(wallet)
      if (open.length > 0) {
        const target = pick(open)
        return cancelOrder(wallet, target.id, target, where)
      }
    } else if (r < 0.22) {
      const closed = [...model.orders.values()].filter((o) => o.wallet === wallet && o.state !== "Active")
      if (closed.length > 0) return cancelOrder(wallet, pick(closed).id, 10092, where)
    } else if (r < 0.23) {
      const foreign = [...model.orders.values()].filter((o) => o.wallet !== wallet && o.state === "Active")
      if (foreign.length > 0) return cancelOrder(wallet, pick(foreign).id, 10091, where)
    } else if (r < 0.27) {
      // Beyond the free balance: always 10002, nothing locked.
      const side: Side = random.next() < 0.5 ? "sell" : "buy"
      const free = model.balances[wallet][fromOf(side)].free
      const over = free + BigInt(random.int(1, 5_000_000))
      const body =
        side === "sell"
          ? {
              fromCurrency: "BTC",
              toCurrency: "USDT",
              fromAmount: toText(over, 8),
              toAmount: toText(cost(MID * 2n, over) + 1n, 6)
            }
          : {
              fromCurrency: "USDT",
              toCurrency: "BTC",
              fromAmount: toText(over, 6),
              toAmount: toText((over * SAT) / MID + 1n, 8)
            }
      return placeOrder(
        { wallet, side, kind: "limit", fromAmount: over, toAmount: null, body },
        `${where} over balance`
      )
    } else if (r < 0.33) {
      const mirror = mirrorInput(wallet)
      if (mirror !== undefined) return placeOrder(mirror, `${where} mirror`, true)
    }
    const side: Side = random.next() < 0.5 ? "sell" : "buy"
    const away = side === "sell" ? 1n : -1n
    const k = random.next()
    if (k < 0.5) {
      // Passive: on its own side of the mid (it may still meet an aggressive order resting there).
      return placeOrder(limitInput(wallet, side, "limit", MID + away * GRID * BigInt(random.int(0, 15))), where)
    }
    if (k < 0.72) {
      // Crossing: priced into the other side, so it takes liquidity before it rests (if it rests).
      return placeOrder(limitInput(wallet, side, "limit", MID - away * GRID * BigInt(random.int(0, 12))), where)
    }
    if (k < 0.87)
      return placeOrder(limitInput(wallet, side, "post", MID + away * GRID * BigInt(random.int(-4, 10))), where)
    return placeOrder(marketInput(wallet, side), where)
  }

  const checkEveryStep = async (where: string) => {
    // (a) the book: never crossed, and exactly the model's levels.
    const book = await readBook(wallets[0].sid, roomKey)
    assertNotCrossed(book, where)
    assert.strictEqual(levelText(book.asks), levelText(model.levels("sell").slice(0, 100)), `${where}: asks`)
    assert.strictEqual(levelText(book.bids), levelText(model.levels("buy").slice(0, 100)), `${where}: bids`)
    // (b) the ledger.
    await client.assertLedgerSound(where)
    const totals = { BTC: 0n, USDT: 0n }
    for (const [i, w] of wallets.entries()) {
      const [balances, active] = await Promise.all([readBalances(w.sid), readOrders(w.sid, "&ord_states=Active")])
      // (c) lockOrders = Σ locked of the wallet's Active orders, per currency; the Active set is the model's.
      for (const c of currencies) {
        const locked = active
          .filter((o) => o.fromCurrency === c)
          .reduce((s, o) => s + toMinor(o.locked, decimals[c]), 0n)
        assert.strictEqual(
          balances[c].lock,
          locked,
          `${where}: wallet ${i} ${c} lockOrders = Σ locked of Active orders`
        )
        totals[c] += balances[c].free + balances[c].lock
      }
      for (const o of active) assert.strictEqual(o.state, "Active", `${where}: ord_states=Active filter`)
      assert.deepStrictEqual(
        active.map((o) => o.id).sort(),
        model
          .activeOf(i)
          .map((o) => o.id)
          .sort(),
        `${where}: wallet ${i} Active orders`
      )
      // (d) balances are the model's.
      assert.deepStrictEqual(balances, model.balances[i], `${where}: wallet ${i} balances`)
    }
    // (d) conservation in aggregate: what users hold plus the fees collected is what was funded.
    for (const c of currencies)
      assert.strictEqual(totals[c] + model.fees[c], model.funded[c], `${where}: Σ ${c} users + fees = funded`)
  }

  const checkEverything = async (where: string) => {
    const activeWithFills: Array<any> = []
    const fees = { BTC: 0n, USDT: 0n }
    let takerFills = 0,
      makerFills = 0,
      takerAmount = 0n,
      makerAmount = 0n
    for (const [i, w] of wallets.entries()) {
      const orders = await readOrders(w.sid)
      assert.deepStrictEqual(
        orders.map((o) => o.id).sort(),
        [...model.orders.values()]
          .filter((o) => o.wallet === i)
          .map((o) => o.id)
          .sort(),
        `${where}: wallet ${i} orders (a refusal other than 10090 creates none)`
      )
      for (const o of orders) assertOrderMatches(o, model.orders.get(o.id)!, where)
      // Per wallet, from the service's own figures: free + lockOrders = funded − Σ given + Σ received.
      const balances = await readBalances(w.sid)
      for (const c of currencies) {
        const given = orders.filter((o) => o.fromCurrency === c).reduce((s, o) => s + toMinor(o.given, decimals[c]), 0n)
        const received = orders
          .filter((o) => o.toCurrency === c)
          .reduce((s, o) => s + toMinor(o.received, decimals[c]), 0n)
        fees[c] += orders.filter((o) => o.toCurrency === c).reduce((s, o) => s + toMinor(o.fee, decimals[c]), 0n)
        assert.strictEqual(
          balances[c].free + balances[c].lock,
          fundedEach[c] - given + received,
          `${where}: wallet ${i} ${c} conservation`
        )
      }
      for (const info of await readFills(
        w.sid,
        orders.map((o) => o.id)
      )) {
        assertFillsAddUp(info, where)
        for (const f of info.fills) {
          if (f.role === "taker") (takerFills++, (takerAmount += toMinor(f.amount, 8)))
          else (makerFills++, (makerAmount += toMinor(f.amount, 8)))
        }
        if (info.state === "Active") activeWithFills.push(info)
      }
    }
    assert.strictEqual(takerFills, makerFills, `${where}: every trade once as taker, once as maker`)
    assert.strictEqual(takerAmount, makerAmount, `${where}: Σ taker fills = Σ maker fills`)
    assert.deepStrictEqual(fees, model.fees, `${where}: Σ order fees = the model's`)
    const derived = bookFromOrders(activeWithFills)
    const book = await readBook(wallets[0].sid, roomKey)
    assert.strictEqual(levelText(book.asks), levelText(derived.asks.slice(0, 100)), `${where}: asks = Active sells`)
    assert.strictEqual(levelText(book.bids), levelText(derived.bids.slice(0, 100)), `${where}: bids = Active buys`)
  }

  const started = Date.now()
  const deepest = { buy: 0, sell: 0 }
  for (let i = 0; i < steps; i++) {
    await step(i)
    await checkEveryStep(`after step ${i} (seed ${seed})`)
    deepest.buy = Math.max(deepest.buy, model.levels("buy").length)
    deepest.sell = Math.max(deepest.sell, model.levels("sell").length)
    if ((i + 1) % fullCheckEvery === 0) await checkEverything(`full check after step ${i} (seed ${seed})`)
  }
  await checkEverything(`final (seed ${seed})`)
  const summary = [...seen.entries()]
    .sort()
    .map(([k, v]) => `${k}: ${v}`)
    .join(", ")
  console.log(
    `exchange stream ${regime.name}, seed ${seed}: ${steps} steps in ${((Date.now() - started) / 1000).toFixed(1)} s; ${summary}`
  )
  // A full-length stream must have reached the interesting paths (a short EXCHANGE_STEPS run is a smoke run).
  if (steps < 150) return
  for (const path of [
    "refused 10002",
    "post-only refused 10090",
    "cancel",
    "cancel refused 10092",
    "self-trade cancelled a maker",
    "a mirrored ratio traded"
  ]) {
    assert.isTrue(seen.has(path), `stream never hit: ${path}`)
  }
  assert.isTrue(
    [...seen.keys()].some((k) => k.startsWith("sell limit Active with fills")),
    "a partially filled sell that rests"
  )
  assert.isTrue(
    [...seen.keys()].some((k) => k.startsWith("buy limit Completed with fills")),
    "a buy that completes"
  )
  assert.isTrue(
    [...seen.keys()].some((k) => k.startsWith("buy market")),
    "market buys"
  )
  assert.isTrue(
    deepest.buy > 3 && deepest.sell > 3,
    `a book with depth on both sides at some point: ${JSON.stringify(deepest)}`
  )
}

const publicRegime: Regime = {
  name: "public room at 50 000 USDT/BTC",
  seed,
  steps,
  mid: 50_000n * 1_000_000n,
  grid: 20n * 1_000_000n,
  clientIdBase: 640_000,
  privateRoom: false
}
// At 150 USDT/BTC a satoshi is worth 1.5 USDT minor units, so nearly every fill rounds: this regime
// found the buy whose rounding dust rested across the book (see the regression below).
const roundingRegime: Regime = {
  name: "private room at 150 USDT/BTC",
  seed: seed + 1,
  steps: Number(process.env.EXCHANGE_ROUNDING_STEPS ?? 160),
  mid: 150n * 1_000_000n,
  grid: 50_000n,
  clientIdBase: 650_000,
  privateRoom: true
}

describe("a random stream of orders and cancels keeps the book, the locks and the ledger exact", () => {
  it(
    `${publicRegime.name}, seed ${publicRegime.seed}: ${publicRegime.steps} steps, invariants after every step`,
    () => runStream(publicRegime),
    300_000
  )
  it(
    `${roundingRegime.name}, seed ${roundingRegime.seed}: ${roundingRegime.steps} steps, invariants after every step`,
    () => runStream(roundingRegime),
    300_000
  )
})

// ---------------------------------------------------------------------------------------------
// Races and a regression, each in its own private BTC/USDT room (the stream owns the public book).

let extraWallets = 0
const wallet = (): Promise<Wallet> => client.walletWithSession(String(649_000 + extraWallets++))
let extraNonce = 1_000_000
const privateRoom = async (owner: Wallet, members: ReadonlyArray<Wallet>): Promise<string> => {
  const created = await client.call("POST", "/core/v1/market/create_room", {
    sid: owner.sid,
    body: { currency1: "BTC", currency2: "USDT" }
  })
  assert.strictEqual(created.status, 200, JSON.stringify(created.body))
  for (const member of members) {
    const joined = await client.call(
      "POST",
      `/core/v1/apply_code?code=${created.body.result.shareCode}&client_nonce=${extraNonce++}`,
      { sid: member.sid }
    )
    assert.strictEqual(joined.status, 200, JSON.stringify(joined.body))
  }
  return created.body.result.roomKey
}
const create = (w: Wallet, body: Record<string, unknown>, what = "create_order") =>
  within(
    client.call("POST", "/core/v1/market/create_order", { sid: w.sid, body: { clientNonce: extraNonce++, ...body } }),
    what
  )

describe("races on one wallet's money", () => {
  it("20 concurrent sells (funds for 5) race 20 concurrent crossing buys (funds for 2): exactly 5 and 2 accepted, locks never exceed the funds", async () => {
    const seller = await wallet(),
      buyer = await wallet()
    const roomKey = await privateRoom(seller, [buyer])
    await client.fund(seller.id, "BTC", "0.05")
    await client.fund(buyer.id, "USDT", "1000")
    const sell = { fromCurrency: "BTC", toCurrency: "USDT", fromAmount: "0.01", toAmount: "500", roomKey }
    const buy = { fromCurrency: "USDT", toCurrency: "BTC", fromAmount: "500", toAmount: "0.01", roomKey }

    // Sample both wallets' buckets for as long as the race runs.
    let racing = true
    const samples: Array<{
      seller: Awaited<ReturnType<typeof readBalances>>
      buyer: Awaited<ReturnType<typeof readBalances>>
    }> = []
    const sampler = (async () => {
      while (racing) samples.push({ seller: await readBalances(seller.sid), buyer: await readBalances(buyer.sid) })
    })()
    const replies = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        i % 2 === 0 ? create(seller, sell, `sell ${i}`) : create(buyer, buy, `buy ${i}`)
      )
    )
    racing = false
    await sampler
    const sells = replies.filter((_, i) => i % 2 === 0),
      buys = replies.filter((_, i) => i % 2 === 1)
    const accepted = (rs: Array<Reply>) => rs.filter((r) => r.status === 200)
    assert.strictEqual(
      accepted(sells).length,
      5,
      JSON.stringify(sells.map((r) => r.body.error?.code ?? r.body.result.state))
    )
    assert.strictEqual(
      accepted(buys).length,
      2,
      JSON.stringify(buys.map((r) => r.body.error?.code ?? r.body.result.state))
    )
    for (const r of [...sells, ...buys].filter((r) => r.status !== 200))
      assert.strictEqual(errorCode(r), 10002, JSON.stringify(r.body))

    assert.isAbove(samples.length, 0)
    for (const s of samples) {
      assert.isTrue(
        s.seller.BTC.lock <= 5_000_000n &&
          s.seller.BTC.free >= 0n &&
          s.seller.BTC.free + s.seller.BTC.lock <= 5_000_000n,
        JSON.stringify(s, (_, v) => (typeof v === "bigint" ? String(v) : v))
      )
      assert.isTrue(
        s.buyer.USDT.lock <= 1_000_000_000n &&
          s.buyer.USDT.free >= 0n &&
          s.buyer.USDT.free + s.buyer.USDT.lock <= 1_000_000_000n,
        JSON.stringify(s, (_, v) => (typeof v === "bigint" ? String(v) : v))
      )
    }
    // Two matches of 0.01 BTC at 50000 (each buy meets one sell, whichever arrived first):
    // the seller pays 0.01 + 0.1 % of 500 = 0.51 USDT per match, the buyer 0.25 % of 0.01 BTC.
    assert.deepStrictEqual(await readBalances(seller.sid), {
      BTC: { free: 0n, lock: 3_000_000n },
      USDT: { free: 998_980_000n, lock: 0n }
    })
    assert.deepStrictEqual(await readBalances(buyer.sid), {
      BTC: { free: 1_995_000n, lock: 0n },
      USDT: { free: 0n, lock: 0n }
    })
    const sellerOrders = await readOrders(seller.sid)
    assert.deepStrictEqual(sellerOrders.map((o) => o.state).sort(), [
      "Active",
      "Active",
      "Active",
      "Completed",
      "Completed"
    ])
    assert.deepStrictEqual(
      (await readOrders(buyer.sid)).map((o) => o.state),
      ["Completed", "Completed"]
    )
    const book = await readBook(seller.sid, roomKey)
    assert.strictEqual(levelText(book.asks), `50000:${3_000_000n}:${1_500_000_000n}`)
    assert.strictEqual(book.bids.length, 0)
    for (const info of await readFills(
      seller.sid,
      sellerOrders.map((o) => o.id)
    ))
      assertFillsAddUp(info, "race seller")
    await client.assertLedgerSound("after the race")
  })
})

describe("regression: a limit buy's rounding dust never rests across the book", () => {
  it("a buy whose budget runs out inside a level completes and returns its dust; the room keeps working", async () => {
    // Asks: 3 sats for 0.001499 USDT (1499/3 minor units a sat, shown 49966.6666667), 2000 sats at
    // exactly 500. The buy gives 0.501999 USDT for 0.00001002 BTC (a ratio of 501999/1002): its budget
    // takes the 3 sats for 1499 and 1001 of the 2000 for 500500 — nothing is left, so nothing rests
    // (a buy's leftover budget that buys less than a sat at its ratio used to rest across the book
    // and kill the room on every rebuild).
    const maker = await wallet(),
      taker = await wallet()
    const roomKey = await privateRoom(maker, [taker])
    await client.fund(maker.id, "BTC", "1")
    await client.fund(taker.id, "USDT", "10")
    const ask1 = await create(maker, {
      fromCurrency: "BTC",
      toCurrency: "USDT",
      fromAmount: "0.00000003",
      toAmount: "0.001499",
      roomKey
    })
    const ask2 = await create(maker, {
      fromCurrency: "BTC",
      toCurrency: "USDT",
      fromAmount: "0.00002",
      toAmount: "1",
      roomKey
    })
    assert.strictEqual(ask1.body.result?.price, "49966.6666667", JSON.stringify(ask1.body))
    assert.strictEqual(ask2.body.result?.price, "50000", JSON.stringify(ask2.body))
    const bought = await create(taker, {
      fromCurrency: "USDT",
      toCurrency: "BTC",
      fromAmount: "0.501999",
      toAmount: "0.00001002",
      roomKey
    })
    assert.strictEqual(bought.status, 200, JSON.stringify(bought.body))
    // Fees in this file: the buyer pays 0.25 % of 1004 sats (3 sats, rounded up); it receives more than toAmount (C14).
    assert.deepStrictEqual(
      [
        bought.body.result.state,
        bought.body.result.given,
        bought.body.result.received,
        bought.body.result.fee,
        bought.body.result.locked
      ],
      ["Completed", "0.501999", "0.00001001", "0.00000003", "0"]
    )
    assert.deepStrictEqual(await readBalances(taker.sid), {
      BTC: { free: 1001n, lock: 0n },
      USDT: { free: 9_498_001n, lock: 0n }
    })
    const book = await readBook(maker.sid, roomKey)
    assertNotCrossed(book, "after the buy")
    assert.strictEqual(levelText(book.asks), "50000:999:499500")
    assert.strictEqual(book.bids.length, 0)
    // The room still answers, and matches against what is left.
    const more = await create(taker, {
      fromCurrency: "USDT",
      toCurrency: "BTC",
      fromAmount: "0.4995",
      toAmount: "0.00000999",
      roomKey
    })
    assert.strictEqual(more.status, 200, JSON.stringify(more.body))
    assert.strictEqual(more.body.result.state, "Completed")
    assert.strictEqual((await readBook(maker.sid, roomKey)).asks.length, 0)
    await client.assertLedgerSound("after the regression")
  })
})
