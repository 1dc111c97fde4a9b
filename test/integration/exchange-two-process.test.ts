/**
 * Two processes on one PostgreSQL each hold their own actor for the same room (each process is its
 * own single runner). Every decision a room commits takes the room's next arrival number, unique in
 * SQL, so a room that missed the other process's decisions fails its commit, dies and rebuilds from
 * SQL before deciding again: orders sent through either process still match each other, the book
 * never crosses, a third process rebuilds the room cleanly, and the ledger stays sound.
 */
import { afterAll, assert } from "@effect/vitest"
import { makeClient, type TestClient } from "../support/Client.ts"
import { itWithServer, type RunningService, startService } from "../support/Service.ts"

let a: RunningService | undefined, b: RunningService | undefined, c: RunningService | undefined
afterAll(async () => {
  await c?.stop()
  await b?.stop()
  await a?.stop()
})

const order = (client: TestClient, sid: string, body: Record<string, unknown>) =>
  client.call("POST", "/core/v1/market/create_order", { sid, body })

itWithServer(
  "two processes, one room: orders through either process match; the book never crosses",
  async () => {
    a = await startService()
    b = await startService({ databaseUrl: a.databaseUrl })
    const ca = makeClient(a),
      cb = makeClient(b)
    const seller = await ca.createWallet("5560001"),
      buyer = await ca.createWallet("5560002")
    await ca.fund(seller.id, "BTC", "1")
    await ca.fund(buyer.id, "USDT", "100000")
    const ss = await ca.createSession(seller.id),
      bs = await cb.createSession(buyer.id)
    // Both processes activate the room (far post-only orders that rest).
    assert.strictEqual(
      (
        await order(ca, ss, {
          clientNonce: 10,
          fromCurrency: "BTC",
          toCurrency: "USDT",
          fromAmount: "0.001",
          toAmount: "1000",
          postOnly: true
        })
      ).body.result?.state,
      "Active"
    )
    assert.strictEqual(
      (
        await order(cb, bs, {
          clientNonce: 11,
          fromCurrency: "USDT",
          toCurrency: "BTC",
          fromAmount: "1",
          toAmount: "0.001",
          postOnly: true
        })
      ).body.result?.state,
      "Active"
    )
    // A sell through A (whose room missed B's bid), then a crossing buy through B (whose room missed the sell).
    const sell = await order(ca, ss, {
      clientNonce: 1,
      fromCurrency: "BTC",
      toCurrency: "USDT",
      fromAmount: "0.1",
      toAmount: "5000"
    })
    assert.strictEqual(sell.status, 200, JSON.stringify(sell.body))
    assert.strictEqual(sell.body.result.state, "Active")
    const buy = await order(cb, bs, {
      clientNonce: 2,
      fromCurrency: "USDT",
      toCurrency: "BTC",
      fromAmount: "5000",
      toAmount: "0.1"
    })
    assert.strictEqual(buy.status, 200, JSON.stringify(buy.body))
    assert.strictEqual(buy.body.result.state, "Completed", "the buy met the sell placed through the other process")
    assert.strictEqual(buy.body.result.received, "0.1")
    assert.strictEqual(buy.body.result.given, "5000")
    const book = (
      await cb.call("GET", "/core/v1/market/get_trade_info?currency_from=BTC&currency_to=USDT", { sid: bs })
    ).body.result
    assert.deepStrictEqual(
      book.asks.map((l: any) => l.price),
      ["1000000"]
    )
    assert.deepStrictEqual(
      book.bids.map((l: any) => l.price),
      ["1000"]
    )
    // A third process rebuilds the room from SQL and trades against it.
    c = await startService({ databaseUrl: a.databaseUrl })
    const cc = makeClient(c)
    const third = await cc.createWallet("5560003")
    await cc.fund(third.id, "USDT", "2000000")
    const ts = await cc.createSession(third.id)
    const sweep = await order(cc, ts, {
      clientNonce: 3,
      fromCurrency: "USDT",
      toCurrency: "BTC",
      fromAmount: "1000",
      toAmount: "0.001"
    })
    assert.strictEqual(sweep.status, 200, JSON.stringify(sweep.body))
    assert.strictEqual(sweep.body.result.state, "Completed")
    assert.strictEqual(sweep.body.result.received, "0.001")
    await ca.assertLedgerSound()
  },
  180_000
)
