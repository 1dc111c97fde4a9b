/**
 * Differential test: our Engine against the `nodejs-order-book` package (the oracle) on seeded random
 * streams of limit / post-only / market orders and cancels. After every operation the fills must be
 * identical (taker, maker, price, quantity, in order); periodically and at the end the resting books
 * (levels and per-order remainders in time order) must be identical too.
 *
 * How the oracle's answer is turned into fills: it reports fully consumed makers in `done` (in
 * execution order, with the remaining size they had when consumed; a fully filled limit taker is
 * appended there under its own id) and the one partially consumed maker, if any, in `partial`; that
 * maker's fill is whatever the taker traded beyond the `done` makers, which is always the last fill.
 *
 * Cases where the oracle differs by design are kept out of the stream:
 * - market orders by quote budget (`funds`): the oracle only sizes market orders in base units;
 * - duplicate ids, self-trade prevention, stop/OCO orders, IOC/FOK and modify: not part of our engine.
 * Market orders behave the same in both (never rest; the unfilled remainder is dropped), as do
 * post-only orders (rejected whole when the best opposite level is at or through their price).
 */
import { describe, expect, it } from "vitest"
import { OrderBook, Side } from "nodejs-order-book"
import { EventEngine as Engine } from "../../actors/room/EngineEvents.ts"
import { seeded } from "./Random.ts"

type Fill = readonly [taker: number, maker: number, price: number, quantity: number]

const oracleBook = (ob: OrderBook) => {
  const snap = ob.snapshot()
  // Ours lists levels best first; sort the oracle's the same way (bids descending, asks ascending).
  const levels = (side: typeof snap.bids) =>
    side.map((l) => [l.price, l.orders.reduce((s, o) => s + o.size, 0)] as const)
  const orders = (side: typeof snap.bids) =>
    side.flatMap((l) => l.orders.map((o) => [Number(o.id), o.price, o.size] as const))
  const bidsDesc = [...snap.bids].sort((x, y) => y.price - x.price)
  const asksAsc = [...snap.asks].sort((x, y) => x.price - y.price)
  return { bids: levels(bidsDesc), asks: levels(asksAsc), bidOrders: orders(bidsDesc), askOrders: orders(asksAsc) }
}

const run = (seed: number, operations: number) => {
  const rnd = seeded(seed)
  const ours = new Engine()
  const oracle = new OrderBook()
  const everRested: Array<number> = []
  let nextId = 1
  let trades = 0
  let rejects = 0
  let cancels = 0
  // The mid price drifts slowly so that both deep books and sweeps across many levels occur.
  let mid = 10_000

  const compareBooks = () => {
    const a = ours.snapshot()
    const b = oracleBook(oracle)
    expect(a.bids).toEqual(b.bids)
    expect(a.asks).toEqual(b.asks)
    expect(a.bidOrders).toEqual(b.bidOrders)
    expect(a.askOrders).toEqual(b.askOrders)
  }

  for (let step = 0; step < operations; step++) {
    mid += rnd.int(-3, 3)
    const roll = rnd.next()
    if (roll < 0.2 && everRested.length > 0) {
      // Cancel a random order that once rested (it may have been filled or cancelled since).
      const id = everRested[rnd.int(0, everRested.length - 1)]
      const mine = ours.cancel(id)
      const theirs = oracle.cancel(String(id))
      if (theirs?.order === undefined) {
        expect(mine).toEqual({ type: "reject", id, reason: "unknownOrder" })
      } else {
        expect(mine).toEqual({ type: "cancel", id, remaining: theirs.order.size, reason: "user" })
        cancels++
      }
    } else {
      const id = nextId++
      const side = rnd.next() < 0.5 ? "buy" : "sell"
      const kindRoll = rnd.next()
      const kind = kindRoll < 0.7 ? "limit" : kindRoll < 0.85 ? "limitOnly" : "market"
      // Limit prices straddle the mid so that many orders cross; sizes vary over two orders of magnitude.
      const price = Math.max(1, mid + rnd.int(-40, 40))
      const quantity = rnd.next() < 0.1 ? rnd.int(100, 2_000) : rnd.int(1, 100)

      const events = ours.submit({ id, side, kind, price, quantity })
      const res =
        kind === "market"
          ? oracle.market({ side: side === "buy" ? Side.BUY : Side.SELL, size: quantity })
          : oracle.limit({
              id: String(id),
              side: side === "buy" ? Side.BUY : Side.SELL,
              size: quantity,
              price,
              postOnly: kind === "limitOnly"
            })

      if (res.err !== null) {
        expect(res.err.message).toMatch(/post-only|POST_ONLY|post only/i)
        expect(events).toEqual([{ type: "reject", id, reason: "wouldMatch" }])
        rejects++
      } else {
        const makers = res.done.filter((o) => kind === "market" || o.id !== String(id))
        const expected: Array<Fill> = makers.map(
          (o) => [id, Number(o.id), "price" in o ? o.price : Number.NaN, o.size] as const
        )
        const left = kind === "market" ? res.quantityLeft : (oracle.order(String(id))?.size ?? 0)
        const partialQty = quantity - left - makers.reduce((s, o) => s + o.size, 0)
        if (partialQty > 0) {
          const p = res.partial
          if (p === null || p.id === String(id))
            throw new Error("oracle traded more than its done makers but names no partial maker")
          expected.push([id, Number(p.id), p.price, partialQty])
        }
        const actual: Array<Fill> = events.flatMap((e) =>
          e.type === "trade" ? [[e.taker, e.maker, e.price, e.quantity] as const] : []
        )
        expect(actual).toEqual(expected)
        trades += actual.length
        const rest = events.find((e) => e.type === "rest")
        if (kind !== "market" && left > 0) {
          expect(rest).toEqual({ type: "rest", id, side, price, remaining: left })
          everRested.push(id)
        } else expect(rest).toBeUndefined()
        const dropped = events.find((e) => e.type === "cancel")
        if (kind === "market" && left > 0)
          expect(dropped).toEqual({ type: "cancel", id, remaining: left, reason: "noLiquidity" })
        else expect(dropped).toBeUndefined()
      }
    }

    ours.validateInternalState()
    const bid = ours.bestBid()
    const ask = ours.bestAsk()
    if (bid !== undefined && ask !== undefined) expect(bid).toBeLessThan(ask)
    if (step % 250 === 0) compareBooks()
    if (everRested.length > 5_000) everRested.splice(0, 2_500)
  }
  compareBooks()
  return { trades, rejects, cancels, resting: ours.size }
}

describe("order book engine vs nodejs-order-book (differential)", () => {
  for (const seed of [1, 42, 20_240_601, 987_654_321]) {
    it(`seed ${seed}: 12k operations give identical fills and books`, () => {
      const stats = run(seed, 12_000)
      // The stream must actually exercise matching, post-only rejection and cancels.
      expect(stats.trades).toBeGreaterThan(2_000)
      expect(stats.rejects).toBeGreaterThan(100)
      expect(stats.cancels).toBeGreaterThan(100)
      expect(stats.resting).toBeGreaterThan(0)
    })
  }
})
