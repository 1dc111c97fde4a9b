/**
 * Pure mapping from SPEC's order form (NewOrderInfo: fromCurrency/toCurrency, fromAmount/toAmount as
 * decimal strings, isLimit/postOnly) onto the engine's integer side / kind / price / quantity for one pair.
 *
 * The pair fixes the units:
 * - `base` is the currency whose amounts are the book's quantities (C14's "A": levels are `amount in A`);
 *   one lot = 10^-baseDecimals base.
 * - `quote` is the currency prices are expressed in (C14's "B": price in B per A); one tick =
 *   10^-priceDecimals quote per base. One notional unit (tick × lot) = 10^-(priceDecimals+baseDecimals) quote.
 *
 * Mapping (price = toAmount/fromAmount in SPEC's from/to terms, turned into quote per base):
 * - from = base (a SELL of base): quantity = fromAmount in lots; limit price = toAmount / fromAmount,
 *   rounded UP to a tick, so the seller never receives less than toAmount in total.
 * - from = quote (a BUY of base): quantity = toAmount in lots; limit price = fromAmount / toAmount,
 *   rounded DOWN to a tick, so price × quantity never exceeds fromAmount (the order gives at most
 *   fromAmount, C14). When makers are cheaper the buyer pays less for the same toAmount.
 *   NOTE for the lead: C14 says an order "receives more than toAmount" when makers beat its limit; with
 *   base-quantity buys that holds for sells only — a buyer receives exactly toAmount and pays less.
 * - Market: sell → quantity = fromAmount; buy → quantity = toAmount when given, else `funds` =
 *   fromAmount in notional units (rounded down), spent at the makers' prices.
 * Amounts that are not exact multiples of a lot are rejected (InvalidAmount), never silently truncated.
 * Arithmetic here is exact (BigInt); only the final integers, checked to be safe, reach the engine.
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

export type MappedOrder =
  | { readonly ok: true; readonly side: Side; readonly kind: OrderKind; readonly price?: number; readonly quantity?: number; readonly funds?: number }
  | { readonly ok: false; readonly reason: "WrongPair" | "InvalidAmount" | "InvalidPrice" }

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

const ceilDiv = (a: bigint, b: bigint) => (a + b - 1n) / b

export const mapOrderForm = (pair: PairSpec, form: OrderFormInput): MappedOrder => {
  const sell = form.fromCurrency === pair.base && form.toCurrency === pair.quote
  const buy = form.fromCurrency === pair.quote && form.toCurrency === pair.base
  if (!sell && !buy) return { ok: false, reason: "WrongPair" }
  const from = parseScaled(form.fromAmount)
  if (from === null || from === 0n) return { ok: false, reason: "InvalidAmount" }
  const hasTo = form.toAmount !== undefined && form.toAmount !== null && form.toAmount !== ""
  const to = hasTo ? parseScaled(form.toAmount as string) : null
  if (hasTo && (to === null || to === 0n)) return { ok: false, reason: "InvalidAmount" }
  const tickScale = TEN ** BigInt(pair.priceDecimals)

  if (!form.isLimit) {
    if (sell) {
      const q = toUnits(from, pair.baseDecimals)
      const quantity = q === null ? null : safe(q)
      return quantity === null ? { ok: false, reason: "InvalidAmount" } : { ok: true, side: "sell", kind: "market", quantity }
    }
    if (to !== null) {
      const q = toUnits(to, pair.baseDecimals)
      const quantity = q === null ? null : safe(q)
      return quantity === null ? { ok: false, reason: "InvalidAmount" } : { ok: true, side: "buy", kind: "market", quantity }
    }
    const funds = safe((from * TEN ** BigInt(pair.priceDecimals + pair.baseDecimals)) / TEN ** BigInt(SCALE))
    return funds === null ? { ok: false, reason: "InvalidAmount" } : { ok: true, side: "buy", kind: "market", funds }
  }

  if (to === null) return { ok: false, reason: "InvalidAmount" }
  const kind: OrderKind = form.postOnly ? "limitOnly" : "limit"
  const baseAmount = sell ? from : to
  const quoteAmount = sell ? to : from
  const q = toUnits(baseAmount, pair.baseDecimals)
  const quantity = q === null ? null : safe(q)
  if (quantity === null) return { ok: false, reason: "InvalidAmount" }
  // Both amounts carry the same 10^SCALE factor, so it cancels in quote/base.
  const ticks = sell ? ceilDiv(quoteAmount * tickScale, baseAmount) : (quoteAmount * tickScale) / baseAmount
  const price = safe(ticks)
  if (price === null) return { ok: false, reason: "InvalidPrice" }
  return { ok: true, side: sell ? "sell" : "buy", kind, price, quantity }
}
