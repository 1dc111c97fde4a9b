/**
 * Pure mapping from SPEC's order form (NewOrderInfo: fromCurrency/toCurrency, fromAmount/toAmount as
 * decimal strings, isLimit/postOnly) onto the engine's integer side / kind / ratio / lots / budget for one pair.
 *
 * The pair fixes the units (Pair.ts):
 * - `base` is the currency whose amounts are the book's quantities (C14's "A"); one lot = 10^-baseDecimals base.
 * - `quote` is the currency prices are expressed in (C14's "B"); one quote unit = 10^-priceDecimals quote.
 *
 * Mapping (CONTRACT C14 "Same price, same trade": the price IS the exact ratio of the two amounts):
 * - from = base (a SELL of base): quantity = fromAmount in lots; ratio = toAmount quote units / quantity.
 *   The seller gives exactly its lots and never receives less than its ratio.
 * - from = quote (a BUY of base): budget = fromAmount in quote units; ratio = budget / (toAmount in lots).
 *   The buyer spends at most its budget, never pays more than its ratio, and receives more than
 *   toAmount when makers are cheaper (C14).
 * - Market: sell → quantity = fromAmount; buy → budget = fromAmount, plus quantity = toAmount when given.
 * The ratio is reduced (gcd). Amounts that are not whole lots / quote units are rejected
 * (InvalidAmount), never silently truncated; arithmetic is BigInt and only checked safe integers
 * (< 2^53) reach the engine.
 */
import type { OrderKind, Side } from "./Engine.ts"

export interface PairSpec {
  readonly base: string
  readonly quote: string
  readonly baseDecimals: number
  readonly priceDecimals: number
}

export interface OrderFormInput {
  readonly fromCurrency: string
  readonly toCurrency: string
  readonly fromAmount: string
  readonly toAmount?: string | null
  readonly isLimit: boolean
  readonly postOnly: boolean
}

export interface MappedOk {
  readonly ok: true
  readonly side: Side
  readonly kind: OrderKind
  /** The reduced limit ratio, quote units per lot (limit kinds). */
  readonly num?: number
  readonly den?: number
  /** Lots: a sell's amount, a market buy's bound when toAmount is given; a limit buy's toAmount. */
  readonly quantity?: number
  /** Quote units a buy spends at most. */
  readonly budget?: number
}

export type MappedOrder =
  MappedOk | { readonly ok: false; readonly reason: "WrongPair" | "InvalidAmount" | "InvalidPrice" }

const SCALE = 18
const TEN = 10n

/** A non-negative decimal string as an integer scaled by 10^SCALE, or null when malformed. */
export const parseScaled = (s: string): bigint | null => {
  const m = /^(\d+)(?:\.(\d+))?$/.exec(s)
  if (m === null) return null
  const frac = m[2] ?? ""
  if (frac.length > SCALE) return null
  return BigInt(m[1]) * TEN ** BigInt(SCALE) + BigInt(frac.padEnd(SCALE, "0") || "0")
}

/** A scaled amount in units of 10^-decimals, only when exact. */
const toUnits = (scaled: bigint, decimals: number): bigint | null => {
  const div = TEN ** BigInt(SCALE - decimals)
  return scaled % div === 0n ? scaled / div : null
}

const safe = (n: bigint): number | null => (n > 0n && n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : null)

const gcd = (a: bigint, b: bigint): bigint => {
  while (b !== 0n) [a, b] = [b, a % b]
  return a
}

export const mapOrderForm = (pair: PairSpec, form: OrderFormInput): MappedOrder => {
  const sell = form.fromCurrency === pair.base && form.toCurrency === pair.quote
  const buy = form.fromCurrency === pair.quote && form.toCurrency === pair.base
  if (!sell && !buy) return { ok: false, reason: "WrongPair" }
  const from = parseScaled(form.fromAmount)
  if (from === null || from === 0n) return { ok: false, reason: "InvalidAmount" }
  const hasTo = form.toAmount !== undefined && form.toAmount !== null && form.toAmount !== ""
  const to = hasTo ? parseScaled(form.toAmount as string) : null
  if (hasTo && (to === null || to === 0n)) return { ok: false, reason: "InvalidAmount" }
  const lotsOf = (scaled: bigint) => {
    const q = toUnits(scaled, pair.baseDecimals)
    return q === null ? null : safe(q)
  }
  const unitsOf = (scaled: bigint) => {
    const q = toUnits(scaled, pair.priceDecimals)
    return q === null ? null : safe(q)
  }
  const invalid = { ok: false, reason: "InvalidAmount" } as const

  if (!form.isLimit) {
    if (sell) {
      const quantity = lotsOf(from)
      return quantity === null ? invalid : { ok: true, side: "sell", kind: "market", quantity }
    }
    const budget = unitsOf(from)
    if (budget === null) return invalid
    if (to === null) return { ok: true, side: "buy", kind: "market", budget }
    const quantity = lotsOf(to)
    return quantity === null ? invalid : { ok: true, side: "buy", kind: "market", budget, quantity }
  }

  if (to === null) return invalid
  const kind: OrderKind = form.postOnly ? "limitOnly" : "limit"
  const lots = lotsOf(sell ? from : to)
  const units = unitsOf(sell ? to : from)
  if (lots === null || units === null) return invalid
  const g = gcd(BigInt(units), BigInt(lots))
  const num = Number(BigInt(units) / g),
    den = Number(BigInt(lots) / g)
  return sell
    ? { ok: true, side: "sell", kind, num, den, quantity: lots }
    : { ok: true, side: "buy", kind, num, den, quantity: lots, budget: units }
}
