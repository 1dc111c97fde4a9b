/**
 * Model-based test of the engine on exact ratios: seeded streams of orders stated as from/to amounts
 * in BOTH orientations (a sell gives lots for quote units, a buy gives quote units for lots; most
 * ratios are ones no decimal tick represents, some are the same ratio written both ways, some are
 * large enough that the cross-products leave 2^53), random owners (so self-trades occur),
 * limit / post-only / market orders and cancels. After every step the engine must agree with the
 * independent BigInt model (test/support/ExchangeModel.ts) fill for fill, on removed makers and on
 * the whole book, and every invariant of the rounding rule must hold.
 */
import { describe, expect, it } from "vitest"
import {
  KIND_LIMIT,
  KIND_LIMIT_ONLY,
  KIND_MARKET,
  RAW_DONE,
  RAW_REJECT_WOULD_MATCH,
  RAW_RESTED,
  REMOVED_SELF_TRADE,
  SIDE_BUY,
  SIDE_SELL
} from "../../actors/room/Engine.ts"
import { EventEngine } from "../../actors/room/EngineEvents.ts"
import { BookModel, cmp, frac, type Frac, type ModelKind, type ModelOrder } from "../support/ExchangeModel.ts"
import { seeded } from "./Random.ts"

interface Placed {
  readonly side: "buy" | "sell"
  readonly kind: ModelKind
  readonly price?: Frac
  readonly lots?: bigint
  readonly budget?: bigint
  lotsTraded: bigint
  quoteTraded: bigint
}

const run = (seed: number, steps: number) => {
  const rnd = seeded(seed)
  const engine = new EventEngine()
  const model = new BookModel()
  const placed = new Map<number, Placed>()
  const ids: Array<number> = []
  let nextId = 1
  let mid = 1.1
  const stats = { fills: 0, selfTrades: 0, dust: 0, takerDust: 0, rejects: 0, mirrored: 0, big: 0 }
  // A few exact ratios written both ways (9 for 10 and 10 for 9, …) so equal prices meet from both sides.
  const exact: Array<readonly [number, number]> = [
    [9, 10],
    [10, 9],
    [7, 3],
    [3, 7],
    [1, 1],
    [11, 12]
  ]

  for (let step = 0; step < steps; step++) {
    mid = Math.min(3, Math.max(0.3, mid * (1 + (rnd.next() - 0.5) * 0.02)))
    if (rnd.next() < 0.15 && ids.length > 0) {
      const id = ids[rnd.int(0, ids.length - 1)]
      const mine = engine.cancel(id)
      const theirs = model.cancel(id)
      if (theirs === undefined) expect(mine).toEqual({ type: "reject", id, reason: "unknownOrder" })
      else expect(mine).toEqual({ type: "cancel", id, remaining: Number(theirs), reason: "user" })
      continue
    }
    const id = nextId++
    const sell = rnd.next() < 0.5
    const k = rnd.next()
    const kind: ModelKind = k < 0.7 ? "limit" : k < 0.85 ? "limitOnly" : "market"
    const owner = rnd.next() < 0.1 ? 0 : rnd.int(1, 4)
    const scale = rnd.next() < 0.08 ? (stats.big++, 1_000_000) : 1
    // Amounts: lots and quote units around `mid` quote units per lot, off by up to ±3%.
    let lotsAmount = rnd.int(1, 300) * scale
    let quoteAmount = Math.max(1, Math.round(lotsAmount * mid * (1 + (rnd.next() - 0.5) * 0.06)))
    if (rnd.next() < 0.2) {
      const [q, l] = exact[rnd.int(0, exact.length - 1)]
      const m = rnd.int(1, 40) * scale
      lotsAmount = l * m
      quoteAmount = q * m
      stats.mirrored++
    }
    let order: ModelOrder
    if (kind === "market") {
      order = sell
        ? { id, side: "sell", kind, lots: BigInt(lotsAmount), owner }
        : {
            id,
            side: "buy",
            kind,
            budget: BigInt(quoteAmount),
            ...(rnd.next() < 0.3 ? { lots: BigInt(lotsAmount) } : {}),
            owner
          }
    } else {
      // A sell gives lotsAmount for quoteAmount; a buy gives quoteAmount for lotsAmount (by budget).
      order = sell
        ? {
            id,
            side: "sell",
            kind,
            price: frac(BigInt(quoteAmount), BigInt(lotsAmount)),
            lots: BigInt(lotsAmount),
            owner
          }
        : {
            id,
            side: "buy",
            kind,
            price: frac(BigInt(quoteAmount), BigInt(lotsAmount)),
            budget: BigInt(quoteAmount),
            owner
          }
    }
    const code = engine.submitRaw(
      id,
      sell ? SIDE_SELL : SIDE_BUY,
      kind === "market" ? KIND_MARKET : kind === "limitOnly" ? KIND_LIMIT_ONLY : KIND_LIMIT,
      kind === "market" ? 0 : quoteAmount,
      kind === "market" ? 0 : lotsAmount,
      Number(order.lots ?? 0n),
      Number(order.budget ?? 0n),
      owner
    )
    const expected = model.submit(order)

    // Same decision, fill for fill.
    if (expected.outcome === "rejected") {
      expect(code).toBe(RAW_REJECT_WOULD_MATCH)
      stats.rejects++
    } else expect(code).toBe(expected.outcome === "rested" ? RAW_RESTED : RAW_DONE)
    const fills = Array.from({ length: engine.fillCount }, (_, i) => [
      engine.fillMaker[i],
      BigInt(engine.fillQty[i]),
      BigInt(engine.fillQuote[i]),
      BigInt(engine.fillNum[i]),
      BigInt(engine.fillDen[i])
    ])
    expect(fills).toEqual(expected.fills.map((f) => [f.maker, f.lots, f.quote, f.price.n, f.price.d]))
    const removed = Array.from({ length: engine.removedCount }, (_, i) => [
      engine.removedId[i],
      BigInt(engine.removedRemaining[i]),
      engine.removedReason[i] === REMOVED_SELF_TRADE ? "selfTrade" : "dust"
    ])
    expect(removed).toEqual(expected.removed)
    expect(engine.takerDust).toBe(expected.takerDust)
    if (code === RAW_RESTED) expect(BigInt(engine.restRemaining)).toBe(expected.rested)

    // Invariants of every fill: whole quote units, the maker never below its ratio (rounding in its
    // favour), a limit taker never below its own, the same amount paid and received.
    const taker: Placed = {
      side: order.side,
      kind,
      price: order.price,
      lots: order.lots,
      budget: order.budget,
      lotsTraded: 0n,
      quoteTraded: 0n
    }
    placed.set(id, taker)
    for (const f of expected.fills) {
      stats.fills++
      expect(f.quote > 0n && f.lots > 0n).toBe(true)
      const at = frac(f.quote, f.lots)
      expect(sell ? cmp(at, f.price) <= 0 : cmp(at, f.price) >= 0).toBe(true)
      if (kind !== "market") expect(sell ? cmp(at, order.price!) >= 0 : cmp(at, order.price!) <= 0).toBe(true)
      const maker = placed.get(f.maker)!
      ;((maker.lotsTraded += f.lots), (maker.quoteTraded += f.quote))
      ;((taker.lotsTraded += f.lots), (taker.quoteTraded += f.quote))
    }
    for (const r of expected.removed) r[2] === "selfTrade" ? stats.selfTrades++ : stats.dust++
    if (expected.takerDust) stats.takerDust++
    // Nothing beyond what an order gives: a sell's lots, a buy's budget (and lot bound).
    for (const who of [taker, ...expected.fills.map((f) => placed.get(f.maker)!)]) {
      if (who.side === "sell") expect(who.lotsTraded <= who.lots!).toBe(true)
      else {
        if (who.budget !== undefined) expect(who.quoteTraded <= who.budget).toBe(true)
        if (who.lots !== undefined) expect(who.lotsTraded <= who.lots).toBe(true)
      }
      // Cumulatively no limit order is below its own ratio.
      if (who.kind !== "market" && who.lotsTraded > 0n) {
        const avg = frac(who.quoteTraded, who.lotsTraded)
        expect(who.side === "sell" ? cmp(avg, who.price!) >= 0 : cmp(avg, who.price!) <= 0).toBe(true)
      }
    }
    if (code === RAW_RESTED) ids.push(id)

    // The same book, never crossed; a resting order holds no more than it has left to give.
    for (const side of ["buy", "sell"] as const) {
      expect(engine.resting(side).map((o) => [o.id, BigInt(o.num), BigInt(o.den), BigInt(o.remaining)])).toEqual(
        model.side(side).map((o) => [o.id, o.price.n, o.price.d, o.remaining])
      )
    }
    const bid = model.side("buy")[0],
      ask = model.side("sell")[0]
    if (bid !== undefined && ask !== undefined) expect(cmp(bid.price, ask.price)).toBeLessThan(0)
    for (const o of model.orders) {
      const p = placed.get(o.id)!
      if (o.side === "sell") expect(p.lotsTraded + o.remaining).toBe(p.lots!)
      else expect(p.quoteTraded + (o.remaining * o.price.n + o.price.d - 1n) / o.price.d <= p.budget!).toBe(true)
    }
    if (step % 500 === 0) engine.validateInternalState()
    if (ids.length > 4_000) ids.splice(0, 2_000)
  }
  engine.validateInternalState()
  return stats
}

describe("order book engine vs an exact rational model (model-based)", () => {
  for (const seed of [3, 77, 20_261_125]) {
    it(`seed ${seed}: 6k orders in both orientations match the model fill for fill, uncrossed`, () => {
      const stats = run(seed, 6_000)
      expect(stats.fills).toBeGreaterThan(1_000)
      expect(stats.selfTrades).toBeGreaterThan(20)
      expect(stats.dust).toBeGreaterThan(10)
      expect(stats.takerDust).toBeGreaterThan(10)
      expect(stats.rejects).toBeGreaterThan(20)
      expect(stats.mirrored).toBeGreaterThan(200)
      expect(stats.big).toBeGreaterThan(100)
    })
  }
})
