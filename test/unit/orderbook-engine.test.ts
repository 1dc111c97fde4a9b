import { describe, expect, it } from "vitest"
import { Engine } from "../../actors/room/Engine.ts"

const trades = (events: ReturnType<Engine["submit"]>) =>
  events.flatMap((e) => (e.type === "trade" ? [[e.maker, e.price, e.quantity]] : []))

describe("order book engine", () => {
  it("a partial fill leaves the maker's remainder at the same level, ahead of later orders", () => {
    const e = new Engine()
    e.submit({ id: 1, side: "sell", kind: "limit", price: 100, quantity: 10 })
    e.submit({ id: 2, side: "sell", kind: "limit", price: 100, quantity: 5 })
    expect(trades(e.submit({ id: 3, side: "buy", kind: "limit", price: 100, quantity: 4 }))).toEqual([[1, 100, 4]])
    expect(e.snapshot().askOrders).toEqual([[1, 100, 6], [2, 100, 5]])
    expect(e.snapshot().asks).toEqual([[100, 11]])
    e.validateInternalState()
  })

  it("a partially filled taker rests its remainder at its own limit price", () => {
    const e = new Engine()
    e.submit({ id: 1, side: "sell", kind: "limit", price: 100, quantity: 3 })
    const ev = e.submit({ id: 2, side: "buy", kind: "limit", price: 105, quantity: 10 })
    expect(ev).toEqual([
      { type: "trade", taker: 2, maker: 1, price: 100, quantity: 3 },
      { type: "rest", id: 2, side: "buy", price: 105, remaining: 7 }
    ])
    expect(e.snapshot().bids).toEqual([[105, 7]])
    e.validateInternalState()
  })

  it("price-time priority: better price first, then arrival order; trades at the maker's price", () => {
    const e = new Engine()
    e.submit({ id: 1, side: "buy", kind: "limit", price: 99, quantity: 5 })
    e.submit({ id: 2, side: "buy", kind: "limit", price: 101, quantity: 5 })
    e.submit({ id: 3, side: "buy", kind: "limit", price: 101, quantity: 5 })
    e.submit({ id: 4, side: "buy", kind: "limit", price: 100, quantity: 5 })
    expect(trades(e.submit({ id: 5, side: "sell", kind: "limit", price: 90, quantity: 12 }))).toEqual([
      [2, 101, 5],
      [3, 101, 5],
      [4, 100, 2]
    ])
    expect(e.snapshot().bidOrders).toEqual([[4, 100, 3], [1, 99, 5]])
    e.validateInternalState()
  })

  it("post-only (limitOnly) is rejected whole when it would match, and rests otherwise", () => {
    const e = new Engine()
    e.submit({ id: 1, side: "sell", kind: "limit", price: 100, quantity: 5 })
    expect(e.submit({ id: 2, side: "buy", kind: "limitOnly", price: 100, quantity: 1 })).toEqual([{ type: "reject", id: 2, reason: "wouldMatch" }])
    expect(e.submit({ id: 3, side: "buy", kind: "limitOnly", price: 99, quantity: 1 })).toEqual([{ type: "rest", id: 3, side: "buy", price: 99, remaining: 1 }])
    expect(e.snapshot().askOrders).toEqual([[1, 100, 5]])
    e.validateInternalState()
  })

  it("cancel removes a resting order (and its empty level); unknown ids are rejected", () => {
    const e = new Engine()
    e.submit({ id: 1, side: "buy", kind: "limit", price: 100, quantity: 5 })
    e.submit({ id: 2, side: "buy", kind: "limit", price: 100, quantity: 6 })
    e.submit({ id: 3, side: "buy", kind: "limit", price: 98, quantity: 7 })
    expect(e.cancel(2)).toEqual({ type: "cancel", id: 2, remaining: 6, reason: "user" })
    expect(e.cancel(3)).toEqual({ type: "cancel", id: 3, remaining: 7, reason: "user" })
    expect(e.cancel(3)).toEqual({ type: "reject", id: 3, reason: "unknownOrder" })
    expect(e.snapshot()).toEqual({ bids: [[100, 5]], asks: [], bidOrders: [[1, 100, 5]], askOrders: [] })
    e.validateInternalState()
  })

  it("a market order sweeps levels at the makers' prices and drops what it cannot fill", () => {
    const e = new Engine()
    e.submit({ id: 1, side: "sell", kind: "limit", price: 100, quantity: 2 })
    e.submit({ id: 2, side: "sell", kind: "limit", price: 103, quantity: 2 })
    e.submit({ id: 3, side: "sell", kind: "limit", price: 101, quantity: 2 })
    const ev = e.submit({ id: 4, side: "buy", kind: "market", quantity: 10 })
    expect(trades(ev)).toEqual([[1, 100, 2], [3, 101, 2], [2, 103, 2]])
    expect(ev.at(-1)).toEqual({ type: "cancel", id: 4, remaining: 4, reason: "noLiquidity" })
    expect(e.size).toBe(0)
    expect(e.submit({ id: 5, side: "sell", kind: "market", quantity: 1 })).toEqual([{ type: "cancel", id: 5, remaining: 1, reason: "noLiquidity" }])
    e.validateInternalState()
  })

  it("a market buy by funds spends at most its budget at the makers' prices", () => {
    const e = new Engine()
    e.submit({ id: 1, side: "sell", kind: "limit", price: 10, quantity: 3 })
    e.submit({ id: 2, side: "sell", kind: "limit", price: 20, quantity: 5 })
    const ev = e.submit({ id: 3, side: "buy", kind: "market", funds: 75 })
    expect(trades(ev)).toEqual([[1, 10, 3], [2, 20, 2]])
    expect(ev.at(-1)).toEqual({ type: "cancel", id: 3, remaining: 5, reason: "noLiquidity" })
    expect(e.snapshot().askOrders).toEqual([[2, 20, 3]])
    e.validateInternalState()
  })

  it("rejects invalid input and duplicate resting ids", () => {
    const e = new Engine()
    expect(e.submit({ id: 1, side: "buy", kind: "limit", price: 0, quantity: 1 })[0]).toMatchObject({ type: "reject", reason: "invalid" })
    expect(e.submit({ id: 1, side: "buy", kind: "limit", price: 1.5, quantity: 1 })[0]).toMatchObject({ type: "reject", reason: "invalid" })
    expect(e.submit({ id: 1, side: "sell", kind: "market", funds: 10 })[0]).toMatchObject({ type: "reject", reason: "invalid" })
    e.submit({ id: 1, side: "buy", kind: "limit", price: 5, quantity: 1 })
    expect(e.submit({ id: 1, side: "buy", kind: "limit", price: 5, quantity: 1 })[0]).toMatchObject({ type: "reject", reason: "duplicateId" })
    e.validateInternalState()
  })

  it("keeps levels sorted through many inserts and removals in the middle of the book", () => {
    const e = new Engine()
    let id = 1
    for (let p = 1; p <= 300; p++) e.submit({ id: id++, side: "buy", kind: "limit", price: ((p * 37) % 300) + 1, quantity: 1 })
    for (let p = 1; p <= 300; p++) e.submit({ id: id++, side: "sell", kind: "limit", price: 1000 + ((p * 41) % 300), quantity: 1 })
    for (let i = 1; i <= 600; i += 3) e.cancel(i)
    e.validateInternalState()
    const bids = e.snapshot().bids.map(([p]) => p)
    expect(bids).toEqual([...bids].sort((a, b) => b - a))
    expect(e.bestBid()).toBeLessThan(e.bestAsk()!)
  })
})
