/**
 * A pure, synchronous limit order book for one room (the exchange-core shape): price-time priority,
 * Limit / LimitOnly (post-only) / Market orders, partial fills leaving the remainder at the same level.
 * No I/O, no clock, no randomness: the same input stream always yields the same events.
 *
 * Units (the caller — see OrderForm.ts — maps SPEC's decimal from/to amounts onto these):
 * - `price`: a positive integer number of ticks (quote per base unit, quantized by the pair's tick).
 * - `quantity`: a positive integer number of base units (lots).
 * - `funds` (market buy only): a budget in notional units, 1 notional unit = 1 tick × 1 lot.
 * All three are plain JS numbers that must be safe integers; the engine keeps every sum it forms
 * (level totals, price × quantity for `funds`) below 2^53, which holds as long as a side's resting
 * quantity and any price × quantity stay below Number.MAX_SAFE_INTEGER. No floats with fractions and
 * no bignumbers ever enter the matching loop, so every result is exact.
 *
 * Layout (no per-order allocation in the hot path): orders live in slots of preallocated typed arrays
 * (grown by doubling), each price level is an intrusive doubly linked FIFO of slots (O(1) cancel), and
 * each side keeps its levels in a sorted Int32Array with the best level at the END (bids ascending,
 * asks descending), so consuming the best level is a pop and new levels near the top are cheap to insert.
 *
 * Trades execute at the resting maker's price (CONTRACT C14). A market order never rests: whatever it
 * cannot fill is cancelled. A LimitOnly order that would match on arrival is rejected whole.
 */
import { BookStore, NONE } from "./BookStore.ts"

export type Side = "buy" | "sell"
export type OrderKind = "limit" | "limitOnly" | "market"

export interface OrderInput {
  readonly id: number
  readonly side: Side
  readonly kind: OrderKind
  /** Limit price in ticks (limit / limitOnly; ignored for market). */
  readonly price?: number
  /** Quantity in base units. A market buy may give `funds` instead. */
  readonly quantity?: number
  /** Market buy only: spend at most this many notional units (tick × lot) instead of a base quantity. */
  readonly funds?: number
}

export type RejectReason = "invalid" | "duplicateId" | "wouldMatch" | "unknownOrder"

export type EngineEvent =
  | { readonly type: "trade"; readonly taker: number; readonly maker: number; readonly price: number; readonly quantity: number }
  | { readonly type: "rest"; readonly id: number; readonly side: Side; readonly price: number; readonly remaining: number }
  | { readonly type: "cancel"; readonly id: number; readonly remaining: number; readonly reason: "user" | "noLiquidity" }
  | { readonly type: "reject"; readonly id: number; readonly reason: RejectReason }

export interface BookSnapshot {
  /** Levels best first: [price, total quantity]. */
  readonly bids: ReadonlyArray<readonly [number, number]>
  readonly asks: ReadonlyArray<readonly [number, number]>
  /** Resting orders, best level first, time order (FIFO) within a level: [id, price, remaining]. */
  readonly bidOrders: ReadonlyArray<readonly [number, number, number]>
  readonly askOrders: ReadonlyArray<readonly [number, number, number]>
}

/** Raw result codes of `submitRaw` / `cancelRaw`. */
export const RAW_DONE = 0 // fully filled, or a market order whose remainder was cancelled (see `unfilled`)
export const RAW_RESTED = 1 // remainder rests (see `restRemaining`)
export const RAW_REJECT_INVALID = 2
export const RAW_REJECT_DUPLICATE = 3
export const RAW_REJECT_WOULD_MATCH = 4
export const RAW_REJECT_UNKNOWN = 5
export const RAW_CANCELLED = 6

export const SIDE_BUY = 0
export const SIDE_SELL = 1
export const KIND_LIMIT = 0
export const KIND_LIMIT_ONLY = 1
export const KIND_MARKET = 2

const isPositiveSafeInt = (n: number): boolean => Number.isSafeInteger(n) && n > 0

export class Engine {
  private readonly store = new BookStore()

  // Fills of the last submitRaw, in execution order (reused buffers, grown on demand).
  fillCount = 0
  fillMaker = new Float64Array(64)
  fillPrice = new Float64Array(64)
  fillQty = new Float64Array(64)
  /** After submitRaw: quantity that rests (RAW_RESTED) — or, after cancelRaw, the cancelled remainder. */
  restRemaining = 0
  /** After a market submitRaw: base quantity (or funds, for a funds order) left unfilled and cancelled. */
  unfilled = 0

  /** Orders currently resting. */
  get size(): number {
    return this.store.ids.size
  }

  /**
   * The allocation-free entry point: matches, leaves fills in fillMaker/fillPrice/fillQty[0..fillCount),
   * and returns a RAW_* code. `quantity` is ignored when `funds` > 0 (market buy by budget).
   */
  submitRaw(id: number, side: number, kind: number, price: number, quantity: number, funds: number): number {
    this.fillCount = 0
    this.restRemaining = 0
    this.unfilled = 0
    const s = this.store
    const byFunds = funds > 0
    if (!Number.isSafeInteger(id) || (side !== SIDE_BUY && side !== SIDE_SELL)) return RAW_REJECT_INVALID
    if (kind === KIND_MARKET) {
      if (byFunds ? side !== SIDE_BUY || !isPositiveSafeInt(funds) : !isPositiveSafeInt(quantity)) return RAW_REJECT_INVALID
    } else if (kind === KIND_LIMIT || kind === KIND_LIMIT_ONLY) {
      if (byFunds || !isPositiveSafeInt(quantity) || !isPositiveSafeInt(price)) return RAW_REJECT_INVALID
    } else return RAW_REJECT_INVALID
    if (s.ids.has(id)) return RAW_REJECT_DUPLICATE

    const buy = side === SIDE_BUY
    const market = kind === KIND_MARKET
    // Opposite side: a buy takes asks, a sell takes bids; best level is the last entry.
    const opp = buy ? s.asks : s.bids
    if (kind === KIND_LIMIT_ONLY && opp.len > 0) {
      const best = s.lPrice[opp.levels[opp.len - 1]]
      if (buy ? best <= price : best >= price) return RAW_REJECT_WOULD_MATCH
    }

    let remaining = byFunds ? funds : quantity
    const lPrice = s.lPrice
    const oQty = s.oQty
    while (remaining > 0 && opp.len > 0) {
      const lvl = opp.levels[opp.len - 1]
      const lp = lPrice[lvl]
      if (!market && (buy ? lp > price : lp < price)) break
      let slot = s.lHead[lvl]
      let total = s.lTotal[lvl]
      while (slot !== NONE && remaining > 0) {
        const q = oQty[slot]
        let fill: number
        if (byFunds) {
          const affordable = Math.floor(remaining / lp)
          if (affordable === 0) break
          fill = q < affordable ? q : affordable
          remaining -= fill * lp
        } else {
          fill = q < remaining ? q : remaining
          remaining -= fill
        }
        this.pushFill(s.oId[slot], lp, fill)
        total -= fill
        if (fill === q) {
          const next = s.oNext[slot]
          s.ids.delete(s.oId[slot])
          s.freeSlot(slot)
          s.lCount[lvl]--
          slot = next
        } else {
          oQty[slot] = q - fill
        }
      }
      s.lHead[lvl] = slot
      s.lTotal[lvl] = total
      if (slot === NONE) {
        s.lTail[lvl] = NONE
        opp.len--
        s.freeLevel(lvl)
      } else {
        s.oPrev[slot] = NONE
        break // the taker is exhausted (or, by funds, cannot afford one more unit here)
      }
    }

    if (market) {
      this.unfilled = remaining
      return RAW_DONE
    }
    if (remaining === 0) return RAW_DONE
    s.rest(id, side, price, remaining)
    this.restRemaining = remaining
    return RAW_RESTED
  }

  /** Cancels a resting order; returns RAW_CANCELLED (remainder in `restRemaining`) or RAW_REJECT_UNKNOWN. */
  cancelRaw(id: number): number {
    const rem = this.store.remove(id)
    if (rem < 0) return RAW_REJECT_UNKNOWN
    this.restRemaining = rem
    return RAW_CANCELLED
  }

  /** The convenient form: returns the events of one order. */
  submit(order: OrderInput): Array<EngineEvent> {
    const side = order.side === "buy" ? SIDE_BUY : order.side === "sell" ? SIDE_SELL : -1
    const kind = order.kind === "limit" ? KIND_LIMIT : order.kind === "limitOnly" ? KIND_LIMIT_ONLY : order.kind === "market" ? KIND_MARKET : -1
    const code = this.submitRaw(order.id, side, kind, order.price ?? 0, order.quantity ?? 0, order.funds ?? 0)
    const id = order.id
    switch (code) {
      case RAW_REJECT_INVALID: return [{ type: "reject", id, reason: "invalid" }]
      case RAW_REJECT_DUPLICATE: return [{ type: "reject", id, reason: "duplicateId" }]
      case RAW_REJECT_WOULD_MATCH: return [{ type: "reject", id, reason: "wouldMatch" }]
    }
    const events: Array<EngineEvent> = []
    for (let i = 0; i < this.fillCount; i++) {
      events.push({ type: "trade", taker: id, maker: this.fillMaker[i], price: this.fillPrice[i], quantity: this.fillQty[i] })
    }
    if (code === RAW_RESTED) events.push({ type: "rest", id, side: order.side, price: order.price!, remaining: this.restRemaining })
    else if (this.unfilled > 0) events.push({ type: "cancel", id, remaining: this.unfilled, reason: "noLiquidity" })
    return events
  }

  cancel(id: number): EngineEvent {
    return this.cancelRaw(id) === RAW_CANCELLED
      ? { type: "cancel", id, remaining: this.restRemaining, reason: "user" }
      : { type: "reject", id, reason: "unknownOrder" }
  }

  /** Remaining quantity of a resting order, or undefined. */
  order(id: number): { readonly side: Side; readonly price: number; readonly remaining: number } | undefined {
    const slot = this.store.ids.get(id)
    if (slot === undefined) return undefined
    const s = this.store
    const lvl = s.oLevel[slot]
    return { side: s.lSide[lvl] === SIDE_BUY ? "buy" : "sell", price: s.lPrice[lvl], remaining: s.oQty[slot] }
  }

  bestBid(): number | undefined {
    const b = this.store.bids
    return b.len > 0 ? this.store.lPrice[b.levels[b.len - 1]] : undefined
  }

  bestAsk(): number | undefined {
    const a = this.store.asks
    return a.len > 0 ? this.store.lPrice[a.levels[a.len - 1]] : undefined
  }

  /**
   * Visits one side's levels best first with (price, total quantity) until `visit` returns false.
   * `side` is the side of the resting orders ("sell" walks the asks a buyer would take).
   */
  walkLevels(side: Side, visit: (price: number, total: number) => boolean): void {
    const s = this.store
    const levels = side === "buy" ? s.bids : s.asks
    for (let i = levels.len - 1; i >= 0; i--) {
      const lvl = levels.levels[i]
      if (!visit(s.lPrice[lvl], s.lTotal[lvl])) return
    }
  }

  snapshot(): BookSnapshot {
    const s = this.store
    const dump = (side: typeof s.bids) => {
      const levels: Array<readonly [number, number]> = []
      const orders: Array<readonly [number, number, number]> = []
      for (let i = side.len - 1; i >= 0; i--) {
        const lvl = side.levels[i]
        const p = s.lPrice[lvl]
        levels.push([p, s.lTotal[lvl]])
        for (let slot = s.lHead[lvl]; slot !== NONE; slot = s.oNext[slot]) orders.push([s.oId[slot], p, s.oQty[slot]])
      }
      return { levels, orders }
    }
    const b = dump(s.bids)
    const a = dump(s.asks)
    return { bids: b.levels, asks: a.levels, bidOrders: b.orders, askOrders: a.orders }
  }

  /** Throws on a crossed book, broken FIFO links, level total/count mismatch or index inconsistency. */
  validateInternalState(): void {
    this.store.validate()
  }

  private pushFill(maker: number, price: number, qty: number): void {
    const n = this.fillCount
    if (n === this.fillMaker.length) {
      const grow = (a: Float64Array) => {
        const b = new Float64Array(a.length * 2)
        b.set(a)
        return b
      }
      this.fillMaker = grow(this.fillMaker)
      this.fillPrice = grow(this.fillPrice)
      this.fillQty = grow(this.fillQty)
    }
    this.fillMaker[n] = maker
    this.fillPrice[n] = price
    this.fillQty[n] = qty
    this.fillCount = n + 1
  }
}
