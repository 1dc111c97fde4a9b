/**
 * An independent, deliberately simple model of one order book on exact rationals (BigInt fractions),
 * written from the rules in docs/DESIGN.md "Exchange: exact ratios" (not from the engine's code):
 * a plain array of resting orders, sorted by price then arrival on every step, and each fill decided
 * by comparing fractions. The model-based test runs it beside Engine.ts fill for fill.
 */

export type ModelSide = "buy" | "sell"
export type ModelKind = "limit" | "limitOnly" | "market"

/** A reduced fraction n/d, d > 0. */
export interface Frac {
  readonly n: bigint
  readonly d: bigint
}

const gcd = (a: bigint, b: bigint): bigint => (b === 0n ? (a < 0n ? -a : a) : gcd(b, a % b))
export const frac = (n: bigint, d: bigint): Frac => {
  const g = gcd(n, d)
  return { n: n / g, d: d / g }
}
/** Sign of x − y. */
export const cmp = (x: Frac, y: Frac): number => {
  const l = x.n * y.d,
    r = y.n * x.d
  return l < r ? -1 : l > r ? 1 : 0
}
const floorOf = (x: Frac) => x.n / x.d
const ceilOf = (x: Frac) => (x.n + x.d - 1n) / x.d
const times = (x: Frac, k: bigint): Frac => frac(x.n * k, x.d)

export interface ModelOrder {
  readonly id: number
  readonly side: ModelSide
  readonly kind: ModelKind
  /** Limit price in quote units per lot (limit kinds). */
  readonly price?: Frac
  /** Lots bound (a sell's amount, optional for a buy). */
  readonly lots?: bigint
  /** Quote units a buy may spend (optional). */
  readonly budget?: bigint
  readonly owner: number
}

export interface ModelResting {
  readonly id: number
  readonly side: ModelSide
  readonly price: Frac
  remaining: bigint
  readonly owner: number
  readonly arrival: number
}

export interface ModelFill {
  readonly maker: number
  readonly lots: bigint
  readonly quote: bigint
  readonly price: Frac
}

export interface ModelResult {
  readonly outcome: "rejected" | "rested" | "done"
  readonly fills: Array<ModelFill>
  /** Makers taken off the book without trading further: [id, remaining lots, reason]. */
  readonly removed: Array<readonly [number, bigint, "selfTrade" | "dust"]>
  readonly rested: bigint
  readonly takerDust: boolean
}

export class BookModel {
  orders: Array<ModelResting> = []
  private arrival = 0

  /** Resting orders of a side, best price first, then arrival. */
  side(side: ModelSide): Array<ModelResting> {
    return this.orders
      .filter((o) => o.side === side)
      .sort((a, b) => (side === "buy" ? cmp(b.price, a.price) : cmp(a.price, b.price)) || a.arrival - b.arrival)
  }

  cancel(id: number): bigint | undefined {
    const at = this.orders.findIndex((o) => o.id === id)
    if (at < 0) return undefined
    const [o] = this.orders.splice(at, 1)
    return o.remaining
  }

  submit(order: ModelOrder): ModelResult {
    const buy = order.side === "buy"
    const market = order.kind === "market"
    const fills: Array<ModelFill> = []
    const removed: Array<readonly [number, bigint, "selfTrade" | "dust"]> = []
    const own = order.price
    // The taker's price compared with a maker's: does the maker's price cross (or equal) it?
    const crosses = (maker: Frac) => market || (buy ? cmp(maker, own!) <= 0 : cmp(maker, own!) >= 0)
    const opposite = () => this.side(buy ? "sell" : "buy")
    if (order.kind === "limitOnly") {
      const best = opposite()[0]
      if (best !== undefined && crosses(best.price))
        return { outcome: "rejected", fills, removed, rested: 0n, takerDust: false }
    }
    let lots = order.lots // undefined = no bound
    let budget = order.budget
    let takerDust = false
    for (;;) {
      if (lots === 0n) break
      const maker = opposite()[0]
      if (maker === undefined || !crosses(maker.price)) break
      let cap = lots
      if (budget !== undefined) {
        const affordable = floorOf(frac(budget * maker.price.d, maker.price.n))
        if (cap === undefined || affordable < cap) cap = affordable
      }
      if (cap === 0n) break
      const leave = (reason: "selfTrade" | "dust") => {
        removed.push([maker.id, maker.remaining, reason])
        this.orders.splice(this.orders.indexOf(maker), 1)
      }
      if (maker.owner !== 0 && maker.owner === order.owner) {
        leave("selfTrade")
        continue
      }
      let fill = maker.remaining < cap! ? maker.remaining : cap!
      const value = times(maker.price, fill)
      let quote = buy ? ceilOf(value) : floorOf(value)
      // The taker's own bound: it pays at most (buys) / receives at least (sells) fill × its price.
      const worse =
        !market && (buy ? cmp(frac(quote, 1n), times(own!, fill)) > 0 : cmp(frac(quote, 1n), times(own!, fill)) < 0)
      if (quote === 0n || worse) {
        const granule = maker.price.d
        const whole = (fill / granule) * granule
        if (whole === 0n) {
          if (maker.remaining < cap!) {
            leave("dust")
            continue
          }
          takerDust = true
          break
        }
        fill = whole
        quote = floorOf(times(maker.price, whole))
      }
      fills.push({ maker: maker.id, lots: fill, quote, price: maker.price })
      maker.remaining -= fill
      if (maker.remaining === 0n) this.orders.splice(this.orders.indexOf(maker), 1)
      if (lots !== undefined) lots -= fill
      if (budget !== undefined) budget -= quote
    }
    if (market || takerDust) return { outcome: "done", fills, removed, rested: 0n, takerDust }
    let rest = lots
    if (budget !== undefined) {
      const affordable = floorOf(frac(budget * own!.d, own!.n))
      if (rest === undefined || affordable < rest) rest = affordable
    }
    if (rest === undefined || rest === 0n) return { outcome: "done", fills, removed, rested: 0n, takerDust }
    this.orders.push({
      id: order.id,
      side: order.side,
      price: own!,
      remaining: rest,
      owner: order.owner,
      arrival: this.arrival++
    })
    return { outcome: "rested", fills, removed, rested: rest, takerDust }
  }
}
