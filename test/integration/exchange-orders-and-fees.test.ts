/**
 * The exchange's orders over real HTTP against the real service process, part one (SPEC "Order
 * request", "Order types", "Order states", "Market (session)" rules 6 and 9; CONTRACT C14): a limit
 * sell rests with its amount in lock_orders; a crossing limit buy executes at the maker's price and
 * so receives more than its toAmount; a partial fill leaves the remainder at its level, seen by
 * get_trade_info from both directions (asks / bids, amounts, totals, inverted prices); price-time
 * priority on both sides; market orders by quantity and by budget (leftover unlocked, an empty book
 * cancels); post-only refusal (10090, lock returned, record Canceled) and resting; cancel_order
 * (remainder back, 10091 for a stranger, 10092 twice); Exchange fees per side in the currency
 * received, to the tariff's profit wallet, rounded up; the order's transaction. Every test checks
 * free and lock_orders of every party exactly, cancels what it left in the book, and the ledger
 * audit must show every currency summing to "0" with no user bucket below zero.
 */
import { assert, describe, it } from "@effect/vitest"
import { ACTIVE, assertOrder, assertRejected, CANCELED, COMPLETED, levels } from "../support/Exchange.ts"
import { E, exchangeOrdersFile } from "../support/ExchangeOrders.ts"

const { client, party, createOrder, place, market, cancel, get, orders, book, assertBal, cleanup } =
  exchangeOrdersFile()

describe("limit orders (C14)", () => {
  it("a limit sell rests; a crossing buy fills at the maker's price and gets more than toAmount; the rest stays at its level", async () => {
    const seller = await party({ BTC: "1" })
    const ask = await place(seller, "BTC", "USDT", "0.5", "30000")
    assertOrder(ask, {
      ...ACTIVE,
      orderType: "Limit",
      roomKey: "0",
      fromCurrency: "BTC",
      toCurrency: "USDT",
      fromAmount: "0.5",
      toAmount: "30000",
      price: "60000",
      base: "BTC",
      quote: "USDT",
      given: "0",
      received: "0",
      fee: "0",
      locked: "0.5",
      typeTx: 16,
      tag: null
    })
    assert.match(ask.id, /^\d+$/)
    await assertBal(seller, "BTC", 0.5, 0.5)

    // Limit 64000 (12000 / 0.1875): it pays the maker's 60000, so 12000 buys 0.2 BTC, not 0.1875.
    const buyer = await party({ USDT: "20000" })
    const buy = await place(buyer, "USDT", "BTC", "12000", "0.1875")
    assertOrder(buy, {
      ...COMPLETED,
      orderType: "Limit",
      price: "64000",
      base: "BTC",
      quote: "USDT",
      given: "12000",
      received: "0.2",
      fee: "0",
      typeTx: 17
    })
    await assertBal(buyer, "USDT", 8000, 0)
    await assertBal(buyer, "BTC", 0.2, 0)
    await assertBal(seller, "BTC", 0.5, 0.3)
    await assertBal(seller, "USDT", 12000, 0)
    const [rest] = await orders(seller, "currency_from=BTC")
    assertOrder(rest, { id: ask.id, ...ACTIVE, given: "0.2", received: "12000", locked: "0.3", price: "60000" })

    // A bid below the ask rests; a sell with a lower limit takes it at 59000 and gets more than its 2900.
    const bidder = await party({ USDT: "10000" })
    const bid = await place(bidder, "USDT", "BTC", "5900", "0.1")
    assertOrder(bid, { ...ACTIVE, price: "59000", locked: "5900", given: "0", typeTx: 17 })
    await assertBal(bidder, "USDT", 4100, 5900)
    const hitter = await party({ BTC: "0.05" })
    const hit = await place(hitter, "BTC", "USDT", "0.05", "2900")
    assertOrder(hit, { ...COMPLETED, price: "58000", given: "0.05", received: "2950" })
    await assertBal(hitter, "BTC", 0, 0)
    await assertBal(hitter, "USDT", 2950, 0)
    await assertBal(bidder, "USDT", 4100, 2950)
    await assertBal(bidder, "BTC", 0.05, 0)

    // The book from both directions (C14): BTC→USDT prices in USDT per BTC, amounts in BTC;
    // USDT→BTC the same orders with inverted prices, amounts in USDT, totals in BTC.
    const forward = await book(seller, "BTC", "USDT")
    assert.strictEqual(forward.currencyFrom, "BTC")
    assert.strictEqual(forward.roomKey, "0")
    assert.deepStrictEqual(levels(forward.asks), [["60000", "0.3", "18000"]])
    assert.deepStrictEqual(levels(forward.bids), [["59000", "0.05", "2950"]])
    assert.strictEqual(forward.lastPrice, "59000")
    const inverse = await book(seller, "USDT", "BTC")
    assert.deepStrictEqual(levels(inverse.asks), [["0.0000169491525424", "2950", "0.05"]])
    assert.deepStrictEqual(levels(inverse.bids), [["0.0000166666666667", "18000", "0.3"]])
    assert.strictEqual(inverse.lastPrice, "0.0000169491525424")
  })

  it("price-time priority: a better price first, then the earlier order at the same price (both sides)", async () => {
    // Bids: A and B at 3000 (A first), then C at 3010. A sell of 1.5 ETH limit 3000 takes C, then half of A.
    const [a, b, c] = [await party({ USDT: "3000" }), await party({ USDT: "3000" }), await party({ USDT: "3010" })]
    const bidA = await place(a, "USDT", "ETH", "3000", "1")
    const bidB = await place(b, "USDT", "ETH", "3000", "1")
    const bidC = await place(c, "USDT", "ETH", "3010", "1")
    const seller = await party({ ETH: "1.5" })
    const sell = await place(seller, "ETH", "USDT", "1.5", "4500")
    assertOrder(sell, { ...COMPLETED, given: "1.5", received: "4510" })
    const [nowA] = await orders(a),
      [nowB] = await orders(b),
      [nowC] = await orders(c)
    assertOrder(nowC, { id: bidC.id, ...COMPLETED, given: "3010", received: "1" })
    assertOrder(nowA, { id: bidA.id, ...ACTIVE, given: "1500", received: "0.5", locked: "1500" })
    assertOrder(nowB, { id: bidB.id, ...ACTIVE, given: "0", received: "0", locked: "3000" })
    await assertBal(a, "USDT", 0, 1500)
    await assertBal(a, "ETH", 0.5, 0)
    await assertBal(b, "USDT", 0, 3000)
    await assertBal(c, "ETH", 1, 0)
    await assertBal(seller, "USDT", 4510, 0)

    // Asks: D and E at 3100 (D first), then F at 3090. A buy of 4640 USDT (limit 3314.28…) takes F, then half of D.
    const [d, e, f] = [await party({ ETH: "1" }), await party({ ETH: "1" }), await party({ ETH: "1" })]
    const askD = await place(d, "ETH", "USDT", "1", "3100")
    const askE = await place(e, "ETH", "USDT", "1", "3100")
    await place(f, "ETH", "USDT", "1", "3090")
    const buyer = await party({ USDT: "5000" })
    const buy = await place(buyer, "USDT", "ETH", "4640", "1.4")
    assertOrder(buy, { ...COMPLETED, price: "3314.28571429", given: "4640", received: "1.5" })
    assertOrder((await orders(d))[0], { id: askD.id, ...ACTIVE, given: "0.5", received: "1550", locked: "0.5" })
    assertOrder((await orders(e))[0], { id: askE.id, ...ACTIVE, given: "0", locked: "1" })
    assertOrder((await orders(f))[0], { ...COMPLETED, given: "1", received: "3090" })
    await assertBal(buyer, "USDT", 360, 0)
    await assertBal(buyer, "ETH", 1.5, 0)
    await assertBal(d, "ETH", 0, 0.5)
    await assertBal(e, "ETH", 0, 1)
    const view = await book(a, "ETH", "USDT")
    assert.deepStrictEqual(levels(view.asks), [["3100", "1.5", "4650"]])
    assert.deepStrictEqual(levels(view.bids), [["3000", "1.5", "4500"]])
  })

  it("a buy whose budget is spent completes: no zero-budget remainder rests (ETH/EUR, where 1 cent buys 500 lots)", async () => {
    // Budget spent with asks left at the limit, and budget spent with the book then empty.
    for (const [askAmount, leftAsks] of [
      ["1", [["2000", "0.5", "1000"]]],
      ["0.5", []]
    ] as Array<[string, Array<Array<string>>]>) {
      const seller = await party({ ETH: askAmount })
      await place(seller, "ETH", "EUR", askAmount, String(2000 * Number(askAmount)))
      const buyer = await party({ EUR: "1000" })
      const buy = await place(buyer, "EUR", "ETH", "1000", "0.5")
      assertOrder(buy, { ...COMPLETED, given: "1000", received: "0.5" }, `ask ${askAmount}`)
      await assertBal(buyer, "EUR", 0, 0)
      await assertBal(buyer, "ETH", 0.5, 0)
      const view = await book(seller, "ETH", "EUR")
      assert.deepStrictEqual(levels(view.asks), leftAsks)
      assert.deepStrictEqual(levels(view.bids), [], `ask ${askAmount}`)
      assert.deepStrictEqual(await orders(buyer, "ord_states=Active"), [])
      await cleanup()
    }
  })
})

describe("market and post-only orders", () => {
  it("market buys by budget and market sells fill what the book has, unlock the rest; an empty book cancels", async () => {
    // USDC/USDT: base USDC. Asks 100 @1.01 and 100 @1.02, a bid of 100 @1.00.
    const m1 = await party({ USDC: "100" }),
      m2 = await party({ USDC: "100" }),
      m3 = await party({ USDT: "100" })
    await place(m1, "USDC", "USDT", "100", "101")
    const ask2 = await place(m2, "USDC", "USDT", "100", "102")
    const bid = await place(m3, "USDT", "USDC", "100", "100")
    const buyer = await party({ USDT: "300" })
    // 152 USDT: 100 @1.01 (101) and 50 @1.02 (51), all of the budget.
    const first = await market(buyer, "USDT", "USDC", "152")
    assertOrder(first, {
      ...COMPLETED,
      orderType: "Market",
      price: null,
      toAmount: null,
      given: "152",
      received: "150",
      typeTx: 17
    })
    assertOrder((await orders(m2))[0], { id: ask2.id, ...ACTIVE, given: "50", received: "51", locked: "50" })
    // 100 USDT: the last 50 @1.02 (51); the book runs dry, the unused 49 returns to free.
    const second = await market(buyer, "USDT", "USDC", "100")
    assertOrder(second, { ...COMPLETED, orderType: "Market", given: "51", received: "50" })
    await assertBal(buyer, "USDT", 97, 0)
    await assertBal(buyer, "USDC", 200, 0)
    // Nothing left to buy: Canceled, all of it unlocked.
    const third = await market(buyer, "USDT", "USDC", "50")
    assertOrder(third, { ...CANCELED, orderType: "Market", given: "0", received: "0", typeTx: 17 })
    await assertBal(buyer, "USDT", 97, 0)

    // A market sell of 150 USDC: the bid takes 100 at 1.00; the other 50 return to free.
    const seller = await party({ USDC: "200" })
    const sell = await market(seller, "USDC", "USDT", "150")
    assertOrder(sell, { ...COMPLETED, orderType: "Market", price: null, given: "100", received: "100", typeTx: 16 })
    assertOrder((await orders(m3))[0], { id: bid.id, ...COMPLETED, given: "100", received: "100" })
    await assertBal(seller, "USDC", 100, 0)
    await assertBal(seller, "USDT", 100, 0)
    const dry = await market(seller, "USDC", "USDT", "10")
    assertOrder(dry, { ...CANCELED, given: "0", received: "0" })
    await assertBal(seller, "USDC", 100, 0)
    await assertBal(m1, "USDT", 101, 0)
    await assertBal(m2, "USDT", 102, 0)
    await assertBal(m3, "USDC", 100, 0)
  })

  it("post-only: would match → 10090, lock returned, record Canceled; otherwise it rests as LimitOnly", async () => {
    const maker = await party({ BTC: "0.1" })
    await place(maker, "BTC", "USDT", "0.1", "4100")
    const buyer = await party({ USDT: "10000" })
    assertRejected(
      await createOrder(buyer, {
        fromCurrency: "USDT",
        toCurrency: "BTC",
        fromAmount: "4200",
        toAmount: "0.1",
        postOnly: true
      }),
      400,
      E.OrderWouldMatch,
      "crossing post-only buy"
    )
    await assertBal(buyer, "USDT", 10000, 0)
    const [refused] = await orders(buyer, "ord_states=Canceled")
    assertOrder(refused, { ...CANCELED, orderType: "LimitOnly", given: "0", received: "0", fromAmount: "4200" })
    const resting = await place(buyer, "USDT", "BTC", "4000", "0.1", { postOnly: true })
    assertOrder(resting, { ...ACTIVE, orderType: "LimitOnly", price: "40000", locked: "4000" })
    await assertBal(buyer, "USDT", 6000, 4000)

    const seller = await party({ BTC: "0.2" })
    assertRejected(
      await createOrder(seller, {
        fromCurrency: "BTC",
        toCurrency: "USDT",
        fromAmount: "0.1",
        toAmount: "3900",
        postOnly: true
      }),
      400,
      E.OrderWouldMatch,
      "crossing post-only sell"
    )
    await assertBal(seller, "BTC", 0.2, 0)
    assertOrder(await place(seller, "BTC", "USDT", "0.1", "4150", { postOnly: true }), {
      ...ACTIVE,
      orderType: "LimitOnly",
      price: "41500"
    })
    await assertBal(seller, "BTC", 0.1, 0.1)
    const view = await book(seller, "BTC", "USDT")
    assert.deepStrictEqual(levels(view.asks), [
      ["41000", "0.1", "4100"],
      ["41500", "0.1", "4150"]
    ])
    assert.deepStrictEqual(levels(view.bids), [["40000", "0.1", "4000"]])
    const best = await get(seller, "/core/v1/market/get_trade_info?currency_from=BTC&currency_to=USDT&results_limit=1")
    assert.deepStrictEqual(levels(best.asks), [["41000", "0.1", "4100"]])
  })
})

describe("cancel_order", () => {
  it("returns the remainder (Canceled); another wallet gets 10091, a second cancel 10092", async () => {
    const seller = await party({ BTC: "1" })
    const ask = await place(seller, "BTC", "USDT", "0.3", "21000")
    const buyer = await party({ USDT: "7000" })
    const buy = await place(buyer, "USDT", "BTC", "7000", "0.1")
    await assertBal(seller, "BTC", 0.7, 0.2)
    const stranger = await party({ BTC: "1" })
    assertRejected(await cancel(stranger, ask.id), 404, E.OrderNotFound, "stranger")
    assertRejected(await cancel(seller, "123456789"), 404, E.OrderNotFound, "unknown id")
    await assertBal(seller, "BTC", 0.7, 0.2)
    const done = await cancel(seller, ask.id)
    assert.strictEqual(done.status, 200, JSON.stringify(done.body))
    assertOrder(done.body.result, { id: ask.id, ...CANCELED, given: "0.1", received: "7000" })
    await assertBal(seller, "BTC", 0.9, 0)
    await assertBal(seller, "USDT", 7000, 0)
    assertRejected(await cancel(seller, ask.id), 400, E.OrderNotActive, "twice")
    assertRejected(await cancel(buyer, buy.id), 400, E.OrderNotActive, "completed")
    assert.deepStrictEqual(levels((await book(seller, "BTC", "USDT")).asks), [])
    assertOrder((await orders(seller))[0], { id: ask.id, ...CANCELED })
  })
})

describe("fees (tariff class Exchange)", () => {
  it("each side pays in the currency it receives, per match, rounded up, to the profit wallet", async () => {
    const profit = await party()
    const set = await client.priv("POST", "set_tariffs", [
      { txClass: "Exchange", currency: "USDT", feeFixed: "0", feePercent: "0.1", profitWalletId: profit.id },
      { txClass: "Exchange", currency: "BTC", feeFixed: "0", feePercent: "0.2", profitWalletId: profit.id }
    ])
    assert.strictEqual(set.status, 200, JSON.stringify(set.body))
    try {
      const seller = await party({ BTC: "1" })
      const ask = await place(seller, "BTC", "USDT", "0.5", "30000")
      const buyer = await party({ USDT: "20000" })
      // 0.25 BTC for 15000: the buyer pays 0.2 % of 0.25 BTC, the seller 0.1 % of 15000 USDT.
      const buy = await place(buyer, "USDT", "BTC", "15000", "0.25")
      assertOrder(buy, { ...COMPLETED, given: "15000", received: "0.2495", fee: "0.0005" })
      // 0.00012345 BTC for 7.407 USDT: fees 0.000000247 BTC → 0.00000025 (rounded up), 0.007407 USDT.
      const small = await place(buyer, "USDT", "BTC", "7.407", "0.00012345")
      assertOrder(small, { ...COMPLETED, given: "7.407", received: "0.0001232", fee: "0.00000025" })
      assertOrder((await orders(seller))[0], {
        id: ask.id,
        ...ACTIVE,
        given: "0.25012345",
        received: "14992.399593",
        fee: "15.007407",
        locked: "0.24987655"
      })
      // The other direction: a resting bid and a selling taker.
      const bidder = await party({ USDT: "5900" })
      const bid = await place(bidder, "USDT", "BTC", "5900", "0.1", { postOnly: true })
      const hitter = await party({ BTC: "0.1" })
      assertOrder(await place(hitter, "BTC", "USDT", "0.1", "5900"), {
        ...COMPLETED,
        given: "0.1",
        received: "5894.1",
        fee: "5.9"
      })
      assertOrder((await orders(bidder))[0], {
        id: bid.id,
        ...COMPLETED,
        given: "5900",
        received: "0.0998",
        fee: "0.0002"
      })

      await assertBal(buyer, "USDT", 20000 - 15000 - 7.407, 0)
      await assertBal(buyer, "BTC", 0.2496232, 0)
      await assertBal(seller, "BTC", 0.5, 0.24987655)
      await assertBal(seller, "USDT", 14992.399593, 0)
      await assertBal(hitter, "USDT", 5894.1, 0)
      await assertBal(bidder, "BTC", 0.0998, 0)
      await assertBal(profit, "USDT", 20.907407, 0)
      await assertBal(profit, "BTC", 0.00070025, 0)
      // The book shows the fee rule of the currency received.
      assert.deepStrictEqual((await book(buyer, "BTC", "USDT")).fee, {
        currency: "USDT",
        feePercent: "0.1",
        feeFixed: "0"
      })
      assert.deepStrictEqual((await book(buyer, "USDT", "BTC")).fee, {
        currency: "BTC",
        feePercent: "0.2",
        feeFixed: "0"
      })
      // The order's own transaction (typeTx 17): USDT given, BTC received net, fee in BTC.
      const tx = await get(buyer, `/core/v1/wallet/get_tx_info?id=${buy.id}`)
      assertOrder(
        tx,
        {
          id: buy.id,
          typeTx: 17,
          state: "Finished",
          walletTo: "-3",
          currency: "USDT",
          amount: 15000,
          currencyTo: "BTC",
          amountTo: 0.2495,
          fee: 0.0005
        },
        "taker tx"
      )
      const makerTx = await get(seller, `/core/v1/wallet/get_tx_info?id=${ask.id}`)
      assertOrder(
        makerTx,
        {
          id: ask.id,
          typeTx: 16,
          txState: 1,
          state: "Processing",
          walletFrom: seller.id,
          currency: "BTC",
          amount: 0.25012345,
          currencyTo: "USDT",
          amountTo: 14992.399593,
          fee: 15.007407
        },
        "maker tx"
      )
    } finally {
      assert.strictEqual((await client.priv("POST", "set_tariffs", [])).status, 200)
    }
  })
})
