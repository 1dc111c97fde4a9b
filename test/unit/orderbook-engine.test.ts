import { describe, expect, it } from "vitest"
import { EventEngine as Engine } from "../../actors/room/EngineEvents.ts"

const trades = (events: ReturnType<Engine["submit"]>) =>
  events.flatMap((e) => (e.type === "trade" ? [[e.maker, e.price, e.quantity]] : []))

describe("order book engine", () => {
  it("a partial fill leaves the maker's remainder at the same level, ahead of later orders", () => {
    const e = new Engine()
    e.submit({ id: 1, side: "sell", kind: "limit", price: 100, quantity: 10 })
    e.submit({ id: 2, side: "sell", kind: "limit", price: 100, quantity: 5 })
    expect(trades(e.submit({ id: 3, side: "buy", kind: "limit", price: 100, quantity: 4 }))).toEqual([[1, 100, 4]])
    expect(e.snapshot().askOrders).toEqual([
      [1, 100, 6],
      [2, 100, 5]
    ])
    expect(e.snapshot().asks).toEqual([[100, 11]])
    e.validateInternalState()
  })

  it("a partially filled taker rests its remainder at its own limit price", () => {
    const e = new Engine()
    e.submit({ id: 1, side: "sell", kind: "limit", price: 100, quantity: 3 })
    const ev = e.submit({ id: 2, side: "buy", kind: "limit", price: 105, quantity: 10 })
    expect(ev).toEqual([
      { type: "trade", taker: 2, maker: 1, price: 100, quantity: 3, quote: 300 },
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
    expect(e.snapshot().bidOrders).toEqual([
      [4, 100, 3],
      [1, 99, 5]
    ])
    e.validateInternalState()
  })

  it("post-only (limitOnly) is rejected whole when it would match, and rests otherwise", () => {
    const e = new Engine()
    e.submit({ id: 1, side: "sell", kind: "limit", price: 100, quantity: 5 })
    expect(e.submit({ id: 2, side: "buy", kind: "limitOnly", price: 100, quantity: 1 })).toEqual([
      { type: "reject", id: 2, reason: "wouldMatch" }
    ])
    expect(e.submit({ id: 3, side: "buy", kind: "limitOnly", price: 99, quantity: 1 })).toEqual([
      { type: "rest", id: 3, side: "buy", price: 99, remaining: 1 }
    ])
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
    expect(trades(ev)).toEqual([
      [1, 100, 2],
      [3, 101, 2],
      [2, 103, 2]
    ])
    expect(ev.at(-1)).toEqual({ type: "cancel", id: 4, remaining: 4, reason: "noLiquidity" })
    expect(e.size).toBe(0)
    expect(e.submit({ id: 5, side: "sell", kind: "market", quantity: 1 })).toEqual([
      { type: "cancel", id: 5, remaining: 1, reason: "noLiquidity" }
    ])
    e.validateInternalState()
  })

  it("a market buy by funds spends at most its budget at the makers' prices", () => {
    const e = new Engine()
    e.submit({ id: 1, side: "sell", kind: "limit", price: 10, quantity: 3 })
    e.submit({ id: 2, side: "sell", kind: "limit", price: 20, quantity: 5 })
    const ev = e.submit({ id: 3, side: "buy", kind: "market", funds: 75 })
    expect(trades(ev)).toEqual([
      [1, 10, 3],
      [2, 20, 2]
    ])
    expect(ev.at(-1)).toEqual({ type: "cancel", id: 3, remaining: 5, reason: "noLiquidity" })
    expect(e.snapshot().askOrders).toEqual([[2, 20, 3]])
    e.validateInternalState()
  })

  it("rejects invalid input and duplicate resting ids", () => {
    const e = new Engine()
    expect(e.submit({ id: 1, side: "buy", kind: "limit", price: 0, quantity: 1 })[0]).toMatchObject({
      type: "reject",
      reason: "invalid"
    })
    expect(e.submit({ id: 1, side: "buy", kind: "limit", price: 1.5, quantity: 1 })[0]).toMatchObject({
      type: "reject",
      reason: "invalid"
    })
    expect(e.submit({ id: 1, side: "sell", kind: "market", funds: 10 })[0]).toMatchObject({
      type: "reject",
      reason: "invalid"
    })
    e.submit({ id: 1, side: "buy", kind: "limit", price: 5, quantity: 1 })
    expect(e.submit({ id: 1, side: "buy", kind: "limit", price: 5, quantity: 1 })[0]).toMatchObject({
      type: "reject",
      reason: "duplicateId"
    })
    e.validateInternalState()
  })

  it("keeps levels sorted through many inserts and removals in the middle of the book", () => {
    const e = new Engine()
    let id = 1
    for (let p = 1; p <= 300; p++)
      e.submit({ id: id++, side: "buy", kind: "limit", price: ((p * 37) % 300) + 1, quantity: 1 })
    for (let p = 1; p <= 300; p++)
      e.submit({ id: id++, side: "sell", kind: "limit", price: 1000 + ((p * 41) % 300), quantity: 1 })
    for (let i = 1; i <= 600; i += 3) e.cancel(i)
    e.validateInternalState()
    const bids = e.snapshot().bids.map(([p]) => p)
    expect(bids).toEqual([...bids].sort((a, b) => b - a))
    expect(e.bestBid()).toBeLessThan(e.bestAsk()!)
  })

  it("equal ratios trade whichever way they were written: 9/10 and 4.5/5 share one level", () => {
    // A sell of 10 lots for 9 quote units rests at 9/10; a buy of 5 lots for 4.5 — in units of a
    // tenth: 45 for 50 lots — is the same ratio and takes it at exactly that price.
    const e = new Engine()
    e.submit({ id: 1, side: "sell", kind: "limit", num: 90, den: 100, quantity: 100 })
    const ev = e.submit({ id: 2, side: "buy", kind: "limit", num: 45, den: 50, funds: 45 })
    expect(ev).toEqual([{ type: "trade", taker: 2, maker: 1, price: 0.9, quantity: 50, quote: 45 }])
    expect(e.resting("sell")).toEqual([{ id: 1, num: 9, den: 10, remaining: 50, owner: 0 }])
    e.validateInternalState()
  })

  it("rounds each fill in the maker's favour and never below the taker's own ratio", () => {
    const e = new Engine()
    // The maker sells at 10/3 per lot; 2 lots cost ceil(20/3) = 7, within a taker bound of 4 per lot.
    e.submit({ id: 1, side: "sell", kind: "limit", num: 10, den: 3, quantity: 9 })
    expect(e.submit({ id: 2, side: "buy", kind: "limit", num: 8, den: 2, quantity: 2 })).toEqual([
      { type: "trade", taker: 2, maker: 1, price: 10 / 3, quantity: 2, quote: 7 }
    ])
    // A taker at exactly 10/3 cannot pay 7 for 2 lots: it takes the largest whole granule (3 lots
    // for exactly 10) and its remaining lot is dust against this maker, released instead of resting crossed.
    expect(e.submit({ id: 3, side: "buy", kind: "limit", num: 40, den: 12, quantity: 4 })).toEqual([
      { type: "trade", taker: 3, maker: 1, price: 10 / 3, quantity: 3, quote: 10 },
      { type: "cancel", id: 3, remaining: 1, reason: "dust" }
    ])
    // When the maker's remainder is the smaller, the maker is the dust: it leaves and matching goes on.
    e.submit({ id: 4, side: "sell", kind: "limit", num: 7, den: 2, quantity: 2 })
    expect(e.resting("sell").map((o) => [o.id, o.remaining])).toEqual([
      [1, 4],
      [4, 2]
    ])
    // 4 lots would cost 14 > 13.3: 3 lots for 10, then the maker's last lot is dust against a taker at
    // 10/3 (the smaller side): it leaves, 4's ask at 7/2 does not cross, and the taker rests 2 lots.
    expect(e.submit({ id: 6, side: "buy", kind: "limit", num: 10, den: 3, quantity: 5 })).toEqual([
      { type: "cancel", id: 1, remaining: 1, reason: "dust" },
      { type: "trade", taker: 6, maker: 1, price: 10 / 3, quantity: 3, quote: 10 },
      { type: "rest", id: 6, side: "buy", price: 10 / 3, remaining: 2 }
    ])
    e.validateInternalState()
  })

  it("self-trade prevention: the resting order of the same owner is cancelled and matching continues", () => {
    const e = new Engine()
    e.submit({ id: 1, side: "sell", kind: "limit", price: 100, quantity: 5, owner: 7 })
    e.submit({ id: 2, side: "sell", kind: "limit", price: 100, quantity: 5, owner: 8 })
    expect(e.submit({ id: 3, side: "buy", kind: "limit", price: 101, quantity: 3, owner: 7 })).toEqual([
      { type: "cancel", id: 1, remaining: 5, reason: "selfTrade" },
      { type: "trade", taker: 3, maker: 2, price: 100, quantity: 3, quote: 300 }
    ])
    expect(e.resting("sell")).toEqual([{ id: 2, num: 100, den: 1, remaining: 2, owner: 8 }])
    e.validateInternalState()
  })

  it("a limit buy by budget rests what the rest of its budget buys at its own ratio", () => {
    const e = new Engine()
    e.submit({ id: 1, side: "sell", kind: "limit", num: 3, den: 1, quantity: 2 })
    // Budget 20 at 7/2 per lot: 2 lots for 6, then 14 buys floor(14·2/7) = 4 lots at 7/2.
    expect(e.submit({ id: 2, side: "buy", kind: "limit", num: 70, den: 20, funds: 20 }).at(-1)).toEqual({
      type: "rest",
      id: 2,
      side: "buy",
      price: 3.5,
      remaining: 4
    })
    e.validateInternalState()
  })
})
