/**
 * CONTRACT C14's three matching rules over real HTTP against the real service (issue #11 items 1–3):
 * - "Same price, same trade": 10 USDT for 9 EUR and 4.5 EUR for 5 USDT are both 0.9 EUR per USDT and
 *   trade, whichever currency each names first; the book shows 0.9 (12 significant digits at most).
 * - "Self-trade prevention": an order never fills against its own wallet's resting order; that order
 *   is cancelled (lock back to free, Canceled, its transaction Canceled) and matching continues to the
 *   next maker.
 * - "Exchange fees": feePercent on every fill, feeFixed once per order (a maker filled by two takers
 *   pays it once), capped at what the order receives.
 * Every test checks balances exactly, cancels what it left, and the ledger audit must be sound.
 */
import { afterAll, afterEach, assert, beforeAll, describe, it } from "@effect/vitest"
import { makeClient, type TestClient } from "../support/Client.ts"
import { ACTIVE, assertOrder, CANCELED, COMPLETED, levels, makeExchange } from "../support/Exchange.ts"
import { type RunningService, startService } from "../support/Service.ts"

let service: RunningService
let client: TestClient
const { party, place, get, orders, book, assertBal, cleanup } = makeExchange(() => client, 830_000)

beforeAll(async () => {
  service = await startService()
  client = makeClient(service)
}, 120_000)
afterEach(async () => {
  await cleanup()
  await client.assertLedgerSound()
})
afterAll(async () => {
  await service?.stop()
})

describe("same price, same trade (C14)", () => {
  it("10 USDT for 9 EUR meets 4.5 EUR for 5 USDT: both are 0.9 EUR per USDT, and they trade", async () => {
    const a = await party({ USDT: "10" })
    const b = await party({ EUR: "4.5" })
    const first = await place(a, "USDT", "EUR", "10", "9")
    assertOrder(first, { ...ACTIVE, locked: "10", given: "0" })
    // The book from USDT to EUR shows the resting order at exactly 0.9 EUR per USDT.
    assert.deepStrictEqual(levels((await book(b, "USDT", "EUR")).asks), [["0.9", "10", "9"]])
    assert.deepStrictEqual(levels((await book(b, "EUR", "USDT")).bids), [["1.11111111111", "9", "10"]])
    const second = await place(b, "EUR", "USDT", "4.5", "5")
    assertOrder(second, { ...COMPLETED, given: "4.5", received: "5", fee: "0" })
    assertOrder((await orders(a))[0], { id: first.id, ...ACTIVE, given: "5", received: "4.5", locked: "5" })
    assert.deepStrictEqual(levels((await book(b, "USDT", "EUR")).asks), [["0.9", "5", "4.5"]])
    await assertBal(a, "EUR", 4.5, 0)
    await assertBal(a, "USDT", 0, 5)
    await assertBal(b, "USDT", 5, 0)
    await assertBal(b, "EUR", 0, 0)
    // The rest of it, written the other way round again, trades too and empties the book.
    const c = await party({ EUR: "4.5" })
    assertOrder(await place(c, "EUR", "USDT", "4.5", "5"), { ...COMPLETED, given: "4.5", received: "5" })
    assertOrder((await orders(a))[0], { id: first.id, ...COMPLETED, given: "10", received: "9" })
    assert.deepStrictEqual((await book(c, "USDT", "EUR")).asks, [])
  })
})

describe("self-trade prevention (C14)", () => {
  it("an order never fills against its own wallet: the resting order is cancelled and matching goes on to the next maker", async () => {
    const trader = await party({ BTC: "1", USDT: "100000" })
    const other = await party({ BTC: "1" })
    // Two asks at 50000, the trader's first in time.
    const own = await place(trader, "BTC", "USDT", "0.1", "5000")
    const theirs = await place(other, "BTC", "USDT", "0.1", "5000")
    const buy = await place(trader, "USDT", "BTC", "2500", "0.05")
    // The buy takes 0.05 BTC from the other wallet's ask, never from its own.
    assertOrder(buy, { ...COMPLETED, given: "2500", received: "0.05" })
    const ownNow = (await orders(trader)).find((o: any) => o.id === own.id)
    assertOrder(ownNow, { ...CANCELED, given: "0", received: "0" })
    assertOrder((await orders(other))[0], { id: theirs.id, ...ACTIVE, given: "0.05", received: "2500", locked: "0.05" })
    const tx = await get(trader, `/core/v1/wallet/get_tx_info?id=${own.id}`)
    assertOrder(tx, { id: own.id, state: "Canceled" }, "the cancelled order's transaction")
    // The cancelled ask's 0.1 BTC is free again; the trader holds 1.05 BTC, nothing locked.
    await assertBal(trader, "BTC", 1.05, 0)
    await assertBal(trader, "USDT", 97500, 0)
    await assertBal(other, "BTC", 0.9, 0.05)
    await assertBal(other, "USDT", 2500, 0)
    const fills = await client.call("POST", "/core/v1/order_tx_info", { sid: trader.sid, body: [buy.id, own.id] })
    const byId = new Map((fills.body.result as Array<any>).map((o) => [o.id, o.fills.length]))
    assert.deepStrictEqual([byId.get(buy.id), byId.get(own.id)], [1, 0], "no fill between the trader's own orders")
    assert.deepStrictEqual(levels((await book(trader, "BTC", "USDT")).asks), [["50000", "0.05", "2500"]])
  })
})

describe("exchange fees (C14)", () => {
  it("feeFixed once per order: a maker filled by two takers pays it once; feePercent on every fill; capped at what it receives", async () => {
    const profit = await party()
    const set = await client.priv("POST", "set_tariffs", [
      { txClass: "Exchange", currency: "USDT", feeFixed: "1", feePercent: "0.1", profitWalletId: profit.id },
      { txClass: "Exchange", currency: "BTC", feeFixed: "0", feePercent: "0", profitWalletId: profit.id }
    ])
    assert.strictEqual(set.status, 200, JSON.stringify(set.body))
    try {
      const seller = await party({ BTC: "1" })
      const ask = await place(seller, "BTC", "USDT", "0.2", "10000")
      const t1 = await party({ USDT: "5000" }),
        t2 = await party({ USDT: "5000" })
      assertOrder(await place(t1, "USDT", "BTC", "5000", "0.1"), { ...COMPLETED, received: "0.1", fee: "0" })
      // First fill: 1 fixed + 0.1 % of 5000 = 6 USDT.
      assertOrder((await orders(seller))[0], { id: ask.id, ...ACTIVE, received: "4994", fee: "6" })
      assertOrder(await place(t2, "USDT", "BTC", "5000", "0.1"), { ...COMPLETED, received: "0.1", fee: "0" })
      // Second fill of the same order: 0.1 % of 5000 only — the fixed fee is not charged again.
      assertOrder((await orders(seller))[0], { id: ask.id, ...COMPLETED, given: "0.2", received: "9989", fee: "11" })
      await assertBal(seller, "USDT", 9989, 0)
      await assertBal(profit, "USDT", 11, 0)
      // A fill worth less than the fixed fee pays what it receives, no more: 0.000001 BTC for 0.05 USDT.
      const tiny = await party({ BTC: "0.000001" })
      const bidder = await party({ USDT: "0.05" })
      await place(bidder, "USDT", "BTC", "0.05", "0.000001")
      assertOrder(await place(tiny, "BTC", "USDT", "0.000001", "0.05"), { ...COMPLETED, received: "0", fee: "0.05" })
      await assertBal(tiny, "USDT", 0, 0)
      await assertBal(profit, "USDT", 11.05, 0)
    } finally {
      const reset = await client.priv("POST", "set_tariffs", [])
      assert.strictEqual(reset.status, 200, JSON.stringify(reset.body))
    }
  })
})
