/**
 * The order book's convenient form, for tests, the differential check and the benchmark's event mode:
 * one order in, its events out (trades, rest, cancels, rejections), and read-outs of the book. The room
 * actor drives the allocation-free raw API of Engine.ts directly; this class only translates.
 */
import { NONE } from "./BookStore.ts"
import {
  Engine,
  KIND_LIMIT,
  KIND_LIMIT_ONLY,
  KIND_MARKET,
  RAW_CANCELLED,
  RAW_REJECT_DUPLICATE,
  RAW_REJECT_INVALID,
  RAW_REJECT_WOULD_MATCH,
  RAW_RESTED,
  REMOVED_SELF_TRADE,
  SIDE_BUY,
  SIDE_SELL,
  type OrderKind,
  type Side
} from "./Engine.ts"

export interface OrderInput {
  readonly id: number
  readonly side: Side
  readonly kind: OrderKind
  /** Limit price as a whole number of quote units per lot (shorthand for num = price, den = 1). */
  readonly price?: number
  /** Limit price as the ratio num/den quote units per lot (limit / limitOnly; ignored for market). */
  readonly num?: number
  readonly den?: number
  /** Lots: a sell's amount; a buy's bound (a buy gives `quantity`, `funds` or both). */
  readonly quantity?: number
  /** Buy only: spend at most this many quote units. */
  readonly funds?: number
  /** The wallet (self-trade prevention); 0 or absent = none. */
  readonly owner?: number
}

export type RejectReason = "invalid" | "duplicateId" | "wouldMatch" | "unknownOrder"
export type CancelReason = "user" | "noLiquidity" | "selfTrade" | "dust"

export type EngineEvent =
  | {
      readonly type: "trade"
      readonly taker: number
      readonly maker: number
      readonly price: number
      readonly quantity: number
      readonly quote: number
    }
  | {
      readonly type: "rest"
      readonly id: number
      readonly side: Side
      readonly price: number
      readonly remaining: number
    }
  | { readonly type: "cancel"; readonly id: number; readonly remaining: number; readonly reason: CancelReason }
  | { readonly type: "reject"; readonly id: number; readonly reason: RejectReason }

export interface BookSnapshot {
  /** Levels best first: [price (num/den as a float), total quantity]. */
  readonly bids: ReadonlyArray<readonly [number, number]>
  readonly asks: ReadonlyArray<readonly [number, number]>
  /** Resting orders, best level first, time order (FIFO) within a level: [id, price, remaining]. */
  readonly bidOrders: ReadonlyArray<readonly [number, number, number]>
  readonly askOrders: ReadonlyArray<readonly [number, number, number]>
}

/** A resting order with its exact ratio, in priority order (best level first, FIFO within it). */
export interface RestingOrder {
  readonly id: number
  readonly num: number
  readonly den: number
  readonly remaining: number
  readonly owner: number
}

/** The engine with its event-returning API. */
export class EventEngine extends Engine {
  /** The convenient form: returns the events of one order. */
  submit(order: OrderInput): Array<EngineEvent> {
    const side = order.side === "buy" ? SIDE_BUY : order.side === "sell" ? SIDE_SELL : -1
    const kind =
      order.kind === "limit"
        ? KIND_LIMIT
        : order.kind === "limitOnly"
          ? KIND_LIMIT_ONLY
          : order.kind === "market"
            ? KIND_MARKET
            : -1
    const num = order.num ?? order.price ?? 0,
      den = order.num !== undefined ? (order.den ?? 1) : 1
    const code = this.submitRaw(order.id, side, kind, num, den, order.quantity ?? 0, order.funds ?? 0, order.owner ?? 0)
    const id = order.id
    switch (code) {
      case RAW_REJECT_INVALID:
        return [{ type: "reject", id, reason: "invalid" }]
      case RAW_REJECT_DUPLICATE:
        return [{ type: "reject", id, reason: "duplicateId" }]
      case RAW_REJECT_WOULD_MATCH:
        return [{ type: "reject", id, reason: "wouldMatch" }]
    }
    const events: Array<EngineEvent> = []
    for (let i = 0; i < this.removedCount; i++) {
      events.push({
        type: "cancel",
        id: this.removedId[i],
        remaining: this.removedRemaining[i],
        reason: this.removedReason[i] === REMOVED_SELF_TRADE ? "selfTrade" : "dust"
      })
    }
    for (let i = 0; i < this.fillCount; i++) {
      events.push({
        type: "trade",
        taker: id,
        maker: this.fillMaker[i],
        price: this.fillNum[i] / this.fillDen[i],
        quantity: this.fillQty[i],
        quote: this.fillQuote[i]
      })
    }
    if (code === RAW_RESTED)
      events.push({ type: "rest", id, side: order.side, price: num / den, remaining: this.restRemaining })
    else if (this.unfilled > 0)
      events.push({ type: "cancel", id, remaining: this.unfilled, reason: this.takerDust ? "dust" : "noLiquidity" })
    return events
  }

  cancel(id: number): EngineEvent {
    return this.cancelRaw(id) === RAW_CANCELLED
      ? { type: "cancel", id, remaining: this.restRemaining, reason: "user" }
      : { type: "reject", id, reason: "unknownOrder" }
  }

  /** A resting order (its level's reduced ratio and its remaining lots), or undefined. */
  order(
    id: number
  ): { readonly side: Side; readonly num: number; readonly den: number; readonly remaining: number } | undefined {
    const slot = this.store.ids.get(id)
    if (slot < 0) return undefined
    const s = this.store
    const lvl = s.oLevel[slot]
    return {
      side: s.lSide[lvl] === SIDE_BUY ? "buy" : "sell",
      num: s.lNum[lvl],
      den: s.lDen[lvl],
      remaining: s.oQty[slot]
    }
  }

  /** The best bid's ratio as a float (num/den), or undefined. */
  bestBid(): number | undefined {
    const b = this.store.bids
    return b.len > 0 ? this.store.lApprox[b.levels[b.len - 1]] : undefined
  }

  bestAsk(): number | undefined {
    const a = this.store.asks
    return a.len > 0 ? this.store.lApprox[a.levels[a.len - 1]] : undefined
  }

  /** One side's resting orders with their exact ratios, best level first, FIFO within a level. */
  resting(side: Side): Array<RestingOrder> {
    const s = this.store
    const levels = side === "buy" ? s.bids : s.asks
    const out: Array<RestingOrder> = []
    for (let i = levels.len - 1; i >= 0; i--) {
      const lvl = levels.levels[i]
      for (let slot = s.lHead[lvl]; slot !== NONE; slot = s.oNext[slot]) {
        out.push({
          id: s.oId[slot],
          num: s.lNum[lvl],
          den: s.lDen[lvl],
          remaining: s.oQty[slot],
          owner: s.oOwner[slot]
        })
      }
    }
    return out
  }

  snapshot(): BookSnapshot {
    const s = this.store
    const dump = (side: typeof s.bids) => {
      const levels: Array<readonly [number, number]> = []
      const orders: Array<readonly [number, number, number]> = []
      for (let i = side.len - 1; i >= 0; i--) {
        const lvl = side.levels[i]
        const p = s.lApprox[lvl]
        levels.push([p, s.lTotal[lvl]])
        for (let slot = s.lHead[lvl]; slot !== NONE; slot = s.oNext[slot]) orders.push([s.oId[slot], p, s.oQty[slot]])
      }
      return { levels, orders }
    }
    const b = dump(s.bids)
    const a = dump(s.asks)
    return { bids: b.levels, asks: a.levels, bidOrders: b.orders, askOrders: a.orders }
  }
}
