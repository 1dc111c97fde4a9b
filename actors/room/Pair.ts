/**
 * A trading pair's units (pure). Every room trades one canonical pair: `quote` is the currency
 * prices are expressed in, `base` the one whose amounts are the book's quantities. The engine works
 * in integer lots and quote units; this module converts them to the ledger's minor units exactly.
 *
 * - Lots: 10^-lotDecimals base, lotDecimals = min(base decimals, 8) (an 18-decimal token trades in
 *   steps of 10^-8 so that quantities stay below 2^53).
 * - Quote units: 10^-priceDecimals quote, priceDecimals = min(quote decimals, 8) — the quote's minor
 *   unit whenever it has at most 8 decimals; an order's quote amount is a whole number of them.
 * - A limit price is the exact ratio n/d quote units per lot (Ratio.ts); a fill moves a whole number
 *   of quote units (Ratio.ts's rounding rule), so the buyer's payment and the seller's proceeds are
 *   the same integer and nothing is created or lost.
 * - Ticks (10^-priceDecimals quote per base) remain only as a rounded display of a ratio (rates).
 */
import type { PairSpec } from "./OrderForm.ts"
import { ratioText } from "./Ratio.ts"

/** Quote preference: the first of these in a pair is its quote; otherwise the later code alphabetically. */
const quotePreference = ["USDT", "USDC", "EUR", "USD", "BTC", "ETH"]

export interface Pair extends PairSpec {
  readonly baseMinorDecimals: number
  readonly quoteMinorDecimals: number
}

export const canonicalPair = (a: string, b: string): { readonly base: string; readonly quote: string } => {
  const ia = quotePreference.indexOf(a),
    ib = quotePreference.indexOf(b)
  if (ia >= 0 || ib >= 0) {
    const aIsQuote = ia >= 0 && (ib < 0 || ia < ib)
    return aIsQuote ? { base: b, quote: a } : { base: a, quote: b }
  }
  return a < b ? { base: a, quote: b } : { base: b, quote: a }
}

export const makePair = (base: string, quote: string, baseDecimals: number, quoteDecimals: number): Pair => ({
  base,
  quote,
  baseDecimals: Math.min(baseDecimals, 8),
  priceDecimals: Math.min(quoteDecimals, 8),
  baseMinorDecimals: baseDecimals,
  quoteMinorDecimals: quoteDecimals
})

const pow10 = (n: number): bigint => 10n ** BigInt(n)

/** Base minor units of `lots`. */
export const baseMinorOf = (pair: Pair, lots: bigint): bigint =>
  lots * pow10(pair.baseMinorDecimals - pair.baseDecimals)

/** Lots in `baseMinor`, or null when it is not a whole number of lots. */
export const lotsOf = (pair: Pair, baseMinor: bigint): bigint | null => {
  const unit = pow10(pair.baseMinorDecimals - pair.baseDecimals)
  return baseMinor % unit === 0n ? baseMinor / unit : null
}

/** Quote minor units of `units` quote units (10^-priceDecimals quote each). */
export const quoteMinorOfUnits = (pair: Pair, units: bigint): bigint =>
  units * pow10(pair.quoteMinorDecimals - pair.priceDecimals)

/** Whole quote units in `quoteMinor` (rounded down: what a budget can spend). */
export const quoteUnitsFloor = (pair: Pair, quoteMinor: bigint): bigint =>
  quoteMinor / pow10(pair.quoteMinorDecimals - pair.priceDecimals)

/**
 * The price of a ratio n/d (quote units per lot) as shown: quote per base, or base per quote when
 * `inverted`, at most `digits` significant digits (CONTRACT C14: book levels show a rounded price).
 */
export const priceOfRatio = (pair: Pair, n: bigint, d: bigint, inverted = false, digits = 12): string =>
  inverted
    ? ratioText(d, n, pair.priceDecimals - pair.baseDecimals, digits)
    : ratioText(n, d, pair.baseDecimals - pair.priceDecimals, digits)

const TICKS_MAX = 2n ** 63n - 1n

/** The ratio n/d in price ticks (10^-priceDecimals quote per base), rounded up or down (display and rates only). */
export const ticksOfRatio = (pair: Pair, n: bigint, d: bigint, up: boolean): bigint => {
  const scaled = n * pow10(pair.baseDecimals)
  const t = up ? (scaled + d - 1n) / d : scaled / d
  return t > TICKS_MAX ? TICKS_MAX : t
}

/**
 * Quote minor units `lots` of a level at n/d are worth as one fill would move them (CONTRACT C14's
 * level total): rounded up for asks (what a buyer pays), down for bids (what a seller receives).
 */
export const levelTotal = (pair: Pair, n: bigint, d: bigint, lots: bigint, asks: boolean): bigint =>
  quoteMinorOfUnits(pair, asks ? (lots * n + d - 1n) / d : (lots * n) / d)
