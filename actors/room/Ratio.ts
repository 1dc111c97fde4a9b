/**
 * Exact ratios and the exchange's rounding rules (pure; the one place they live — docs/DESIGN.md
 * "Exchange: exact ratios" states them in prose).
 *
 * An order's price is the exact ratio r = n/d of its own amounts, in QUOTE UNITS per LOT (a quote unit
 * is 10^-priceDecimals quote, which is the quote's minor unit whenever it has at most 8 decimals; see
 * Pair.ts): a sell gives d = fromAmount lots for n = toAmount quote units, a buy gives n = fromAmount
 * quote units for d = toAmount lots. Ratios are kept reduced (gcd 1), so two ratios are equal exactly
 * when their numerators and denominators are.
 *
 * Every operand is a JS number that is a safe integer (< 2^53). Products can exceed 2^53: each helper
 * takes a float fast path when it is provably exact or decisive, and falls back to BigInt otherwise,
 * so every result is exact while the matching loop stays allocation-free on ordinary figures.
 *
 * The fill rule (Engine.ts applies it, test/support/ExchangeModel.ts restates it independently):
 * 1. A fill of L lots at the maker's ratio r_m moves q quote units, rounded in the MAKER's favour:
 *    the maker sells → q = ceil(L·r_m); the maker buys → q = floor(L·r_m).
 *    L = min(maker remaining, taker capacity at r_m); a buy taker with a budget B can pay for
 *    floor(B / r_m) lots (ceil(L·r_m) ≤ B exactly then).
 * 2. If q is 0, or (limit taker) q would make the taker execute worse than its own ratio r_t
 *    (buy: q > L·r_t; sell: q < L·r_t), L becomes the largest multiple of the maker's granule (its
 *    reduced denominator) not above L, where L·r_m is a whole number and both bounds hold exactly.
 *    If that is 0, one side is dust against the other: the maker when its remaining is the smaller
 *    (it leaves the book and matching continues), else the taker (its remainder is released, it
 *    never rests crossed). Market takers have no bound of their own (only q > 0).
 * 3. A buy's resting quantity is what its remaining budget buys at its own ratio: floor(B / r).
 */

export const MAX = Number.MAX_SAFE_INTEGER
/** Below this, a + b and a product's float are exact (both operands of a sum stay below 2^53). */
const HALF = 2 ** 52

export const gcd = (a: number, b: number): number => {
  if (a <= 0x7fffffff && b <= 0x7fffffff) {
    // Small integers: int32 remainders (a float remainder is several times slower).
    let x = a | 0,
      y = b | 0
    while (y !== 0) {
      const t = x % y
      x = y
      y = t
    }
    return x
  }
  while (b !== 0) {
    const t = a % b
    a = b
    b = t
  }
  return a
}

export const gcdBig = (a: bigint, b: bigint): bigint => {
  while (b !== 0n) [a, b] = [b, a % b]
  return a < 0n ? -a : a
}

const big = (a: number, b: number, c: number): bigint => (BigInt(a) * BigInt(b)) / BigInt(c)
const clamp = (x: bigint): number => (x > BigInt(MAX) ? MAX : Number(x))

/** floor(a·b / c), exact (clamped to 2^53 − 1 when larger: callers take it as a bound). */
export const mulDivFloor = (a: number, b: number, c: number): number => {
  const p = a * b
  if (p < HALF && c < HALF) {
    if (c === 1) return p
    const q = Math.floor(p / c)
    // p / c is correctly rounded, so q is the floor or one above it (never below).
    return q * c > p ? q - 1 : q
  }
  return clamp(big(a, b, c))
}

/** ceil(a·b / c), exact (clamped like mulDivFloor). */
export const mulDivCeil = (a: number, b: number, c: number): number => {
  const p = a * b
  if (p < HALF && c < HALF) {
    if (c === 1) return p
    let q = Math.floor(p / c)
    if (q * c > p) q--
    return q * c === p ? q : q + 1
  }
  const n = BigInt(a) * BigInt(b),
    d = BigInt(c)
  return clamp((n + d - 1n) / d)
}

/** The sign of a·b − c·e, exact. */
export const cmpProducts = (a: number, b: number, c: number, e: number): number => {
  const x = a * b,
    y = c * e
  if (x < HALF && y < HALF) return x < y ? -1 : x > y ? 1 : 0
  // Each float product is within a relative 2^-53 of the truth: a wider gap is decisive.
  if (x > y * (1 + 2 ** -50)) return 1
  if (y > x * (1 + 2 ** -50)) return -1
  const X = BigInt(a) * BigInt(b),
    Y = BigInt(c) * BigInt(e)
  return X < Y ? -1 : X > Y ? 1 : 0
}

/** The sign of n1/d1 − n2/d2, exact (positive denominators). */
export const cmpRatio = (n1: number, d1: number, n2: number, d2: number): number => cmpProducts(n1, d2, n2, d1)

/** Quote units a fill of `lots` at the maker's ratio n/d moves, rounded in the maker's favour. */
export const fillQuote = (makerSells: boolean, lots: number, n: number, d: number): number =>
  makerSells ? mulDivCeil(lots, n, d) : mulDivFloor(lots, n, d)

/** How many lots `budget` quote units pay for at n/d (each fill's ceil stays within the budget). */
export const lotsForBudget = (budget: number, n: number, d: number): number => mulDivFloor(budget, d, n)

/** Does a taker of ratio n/d execute at least as well as its own ratio when `q` moves for `lots`? */
export const withinTakerBound = (takerBuys: boolean, q: number, lots: number, n: number, d: number): boolean => {
  const c = cmpProducts(q, d, lots, n) // sign of q/lots − n/d
  return takerBuys ? c <= 0 : c >= 0
}

/** The largest multiple of the maker's granule (its reduced denominator) not above `lots`. */
export const granuleFloor = (lots: number, d: number): number => lots - (lots % d)

/**
 * A ratio n/d (quote units per lot) times 10^shift as a decimal string of at most `digits`
 * significant digits (round half to even, no trailing zeros): BigInt throughout.
 */
export const ratioText = (n: bigint, d: bigint, shift: number, digits = 12): string => {
  if (n === 0n) return "0"
  if (shift >= 0) n *= 10n ** BigInt(shift)
  else d *= 10n ** BigInt(-shift)
  // Scale so that the integer part of n·10^k / d has exactly `digits` digits.
  let k = digits - (n.toString().length - d.toString().length)
  const scaled = (k: number): [bigint, bigint] => (k >= 0 ? [n * 10n ** BigInt(k), d] : [n, d * 10n ** BigInt(-k)])
  let [a, b] = scaled(k)
  if (a / b >= 10n ** BigInt(digits)) [a, b] = scaled(--k)
  else if (a / b < 10n ** BigInt(digits - 1)) [a, b] = scaled(++k)
  let q = a / b
  const r2 = (a % b) * 2n
  if (r2 > b || (r2 === b && q % 2n === 1n)) q++
  // q · 10^-k, written out.
  let s = q.toString()
  if (k <= 0) return s + "0".repeat(-k)
  if (s.length <= k) s = "0".repeat(k - s.length + 1) + s
  const whole = s.slice(0, s.length - k),
    frac = s.slice(s.length - k).replace(/0+$/, "")
  return frac.length > 0 ? `${whole}.${frac}` : whole
}
