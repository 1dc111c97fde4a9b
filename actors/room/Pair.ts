/**
 * A trading pair's units (pure). Every room trades one canonical pair: `quote` is the currency
 * prices are expressed in, `base` the one whose amounts are the book's quantities. The engine works
 * in integer lots and price ticks; this module converts them to the ledger's minor units exactly.
 *
 * - Lots: 10^-lotDecimals base, lotDecimals = min(base decimals, 8) (an 18-decimal token trades in
 *   steps of 10^-8 so that quantities stay below 2^53).
 * - Ticks: 10^-priceDecimals quote per one base, priceDecimals = min(quote decimals, 8).
 * - A fill of q lots at p ticks is worth p·q·10^(quoteDecimals − priceDecimals − lotDecimals) quote
 *   minor units, rounded DOWN to a minor unit: the buyer never pays more than its limit allows, the
 *   buyer's payment and the seller's proceeds are the same integer, so nothing is created or lost.
 */
import type { PairSpec } from "./OrderForm.ts"

/** Quote preference: the first of these in a pair is its quote; otherwise the later code alphabetically. */
const quotePreference = ["USDT", "USDC", "EUR", "USD", "BTC", "ETH"]

export interface Pair extends PairSpec {
  readonly baseMinorDecimals: number
  readonly quoteMinorDecimals: number
}

export const canonicalPair = (a: string, b: string): { readonly base: string; readonly quote: string } => {
  const ia = quotePreference.indexOf(a), ib = quotePreference.indexOf(b)
  if (ia >= 0 || ib >= 0) {
    const aIsQuote = ia >= 0 && (ib < 0 || ia < ib)
    return aIsQuote ? { base: b, quote: a } : { base: a, quote: b }
  }
  return a < b ? { base: a, quote: b } : { base: b, quote: a }
}

export const makePair = (base: string, quote: string, baseDecimals: number, quoteDecimals: number): Pair => ({
  base, quote,
  baseDecimals: Math.min(baseDecimals, 8),
  priceDecimals: Math.min(quoteDecimals, 8),
  baseMinorDecimals: baseDecimals,
  quoteMinorDecimals: quoteDecimals
})

const pow10 = (n: number): bigint => 10n ** BigInt(n)

/** Base minor units of `lots`. */
export const baseMinorOf = (pair: Pair, lots: bigint): bigint => lots * pow10(pair.baseMinorDecimals - pair.baseDecimals)

/** Lots in `baseMinor`, or null when it is not a whole number of lots. */
export const lotsOf = (pair: Pair, baseMinor: bigint): bigint | null => {
  const unit = pow10(pair.baseMinorDecimals - pair.baseDecimals)
  return baseMinor % unit === 0n ? baseMinor / unit : null
}

/** Quote minor units a fill of `lots` at `ticks` is worth, rounded down. */
export const quoteMinorOf = (pair: Pair, ticks: bigint, lots: bigint): bigint => {
  const shift = pair.quoteMinorDecimals - pair.priceDecimals - pair.baseDecimals
  return shift >= 0 ? ticks * lots * pow10(shift) : (ticks * lots) / pow10(-shift)
}

/** The price of `ticks` as a decimal string in quote per base. */
export const priceText = (pair: Pair, ticks: bigint): string => {
  const d = pair.priceDecimals
  if (d === 0) return ticks.toString()
  const digits = ticks.toString().padStart(d + 1, "0")
  const whole = digits.slice(0, -d), frac = digits.slice(-d).replace(/0+$/, "")
  return frac.length > 0 ? `${whole}.${frac}` : whole
}

/**
 * How many lots a buyer can afford with `budget` quote minor units walking asks best first
 * (exact: the per-fill rounding down only lowers the real cost), at most `want` lots.
 */
export const affordableLots = (
  pair: Pair, budget: bigint, want: bigint | null, walk: (visit: (price: number, total: number) => boolean) => void, maxTicks: bigint | null = null
): bigint => {
  let left = budget
  let lots = 0n
  const shift = pair.quoteMinorDecimals - pair.priceDecimals - pair.baseDecimals
  // Cost of q lots at p ticks as a fraction num/den of quote minor units.
  const den = shift >= 0 ? 1n : pow10(-shift)
  const mul = shift >= 0 ? pow10(shift) : 1n
  walk((price, total) => {
    const p = BigInt(price)
    if (maxTicks !== null && p > maxTicks) return false
    let q = BigInt(total)
    if (want !== null && lots + q > want) q = want - lots
    const cost = p * q * mul // × 1/den
    if (cost <= left * den) {
      left -= (cost + den - 1n) / den
      lots += q
    } else {
      lots += (left * den) / (p * mul)
      return false
    }
    return want === null || lots < want
  })
  return lots
}

/** The most lots `budget` quote minor units pay for at `ticks` (what a buy's remaining budget rests as). */
export const lotsAtPrice = (pair: Pair, ticks: bigint, budget: bigint): bigint => {
  const shift = pair.quoteMinorDecimals - pair.priceDecimals - pair.baseDecimals
  // quoteMinorOf(ticks, q) <= budget, with its rounding down.
  return shift >= 0 ? budget / (ticks * pow10(shift)) : ((budget + 1n) * pow10(-shift) - 1n) / ticks
}
