/**
 * The order-side model of the exchange-invariants stream (test/integration/exchange-invariants-stream):
 * the book is test/support/ExchangeModel.ts (exact rationals, from the rules); here the orders, their
 * locks, the Exchange tariffs' fees and the balances of the stream's wallets, and the comparison of a
 * service order with the model's.
 */
import { assert } from "@effect/vitest"
import { BookModel, cmp, frac, type Frac, type ModelResult } from "./ExchangeModel.ts"
import { ceilDiv, type Currency, decimals, type Level, shownPrice, toMinor } from "./ExchangeReads.ts"

export const walletCount = 8
const maxActive = 50

// Exchange tariffs (exchangeInvariantsFile): fee in the currency received. USDT 0.01 fixed + 0.1 %, BTC 0.25 %.
const tariffs = { USDT: { fixed: 10_000n, hundredths: 10n }, BTC: { fixed: 0n, hundredths: 25n } } as const

// ---------------------------------------------------------------------------------------------
// Fees (this file's tariffs)

const minOf = (a: bigint, b: bigint) => (a < b ? a : b)
/** C14: feePercent on every fill, feeFixed once per order (its first fill), never more than received. */
export const feeOf = (currency: Currency, gross: bigint, first: boolean): bigint => {
  if (gross === 0n) return 0n
  const rule = tariffs[currency]
  return minOf(gross, (first ? rule.fixed : 0n) + ceilDiv(gross * rule.hundredths, 10_000n))
}

// ---------------------------------------------------------------------------------------------
// The model: the book is test/support/ExchangeModel.ts (exact rationals, from the rules); here the
// orders, their locks, fees and balances. A lot is one sat, a quote unit one USDT minor unit.

export type Side = "buy" | "sell"
export type Kind = "limit" | "post" | "market"
export type State = "Active" | "Completed" | "Canceled"

export interface ModelOrder {
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

export interface Plan {
  readonly error?: 10002 | 10090 | 10094
  readonly result?: ModelResult
  readonly bookId: number
}

export interface OrderInput {
  readonly wallet: number
  readonly side: Side
  readonly kind: Kind
  readonly fromAmount: bigint
  /** toAmount in the currency received (a limit order's ratio is fromAmount / toAmount). */
  readonly toAmount: bigint | null
  readonly body: Record<string, unknown>
}

export const fromOf = (side: Side): Currency => (side === "sell" ? "BTC" : "USDT")
export const toOf = (side: Side): Currency => (side === "sell" ? "USDT" : "BTC")
export const ratioOfInput = (input: OrderInput): Frac | null =>
  input.kind === "market" || input.toAmount === null
    ? null
    : input.side === "sell"
      ? frac(input.toAmount, input.fromAmount)
      : frac(input.fromAmount, input.toAmount)

export const makeModel = () => {
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
export type Model = ReturnType<typeof makeModel>

export const assertOrderMatches = (actual: any, expected: ModelOrder, where: string) => {
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
