/**
 * The exchange's orders over real HTTP against the real service process, part two (SPEC "Errors",
 * "Limits"; CONTRACT C14): create_order's error codes with nothing moving; the 50 open orders
 * limit; get_orders filters and paging; order_tx_info fills and get_candles. Every test checks free
 * and lock_orders of every party exactly, cancels what it left in the book, and the ledger audit
 * must show every currency summing to "0" with no user bucket below zero.
 */
import { assert, describe, it } from "@effect/vitest"
import { ACTIVE, assertOrder, assertRejected, COMPLETED } from "../support/Exchange.ts"
import { E, exchangeOrdersFile } from "../support/ExchangeOrders.ts"

const { client, party, nextNonce, createOrder, place, market, cancel, get, orders, bal, assertBal } =
  exchangeOrdersFile()

describe("create_order rejections (SPEC Errors, C14)", () => {
  it("10002, 10022, 10020, 10001, 10014, 10021, 10031 and 10130: nothing moves", async () => {
    const who = await party({ USDT: "100", BTC: "1", ETH: "1" })
    const snapshot = async () => [await bal(who, "USDT"), await bal(who, "BTC"), await bal(who, "ETH")]
    const before = await snapshot()
    const buy = { fromCurrency: "USDT", toCurrency: "BTC", fromAmount: "50", toAmount: "0.005" }
    for (const [label, body, status, code] of [
      ["short by 0.000001", { ...buy, fromAmount: "100.000001" }, 400, E.BalanceNotEnough],
      ["USD from", { ...buy, fromCurrency: "USD" }, 400, E.CurrencyNotEnabled],
      ["USD to", { ...buy, toCurrency: "USD" }, 400, E.CurrencyNotEnabled],
      ["unknown currency", { ...buy, toCurrency: "NOPE" }, 400, E.UnknownCurrency],
      ["same currency", { ...buy, toCurrency: "USDT" }, 400, E.InvalidRequest],
      ["missing clientNonce", { ...buy, clientNonce: undefined }, 400, E.InvalidRequest],
      ["limit without toAmount", { fromCurrency: "USDT", toCurrency: "BTC", fromAmount: "50" }, 400, E.InvalidAmount],
      [
        "ETH fromAmount with 9 decimals",
        { fromCurrency: "ETH", toCurrency: "USDT", fromAmount: "0.123456789", toAmount: "300" },
        400,
        E.InvalidAmount
      ],
      [
        "ETH toAmount with 9 decimals",
        { fromCurrency: "USDT", toCurrency: "ETH", fromAmount: "10", toAmount: "0.123456789" },
        400,
        E.InvalidAmount
      ],
      [
        "BTC with 9 decimals",
        { fromCurrency: "BTC", toCurrency: "USDT", fromAmount: "0.123456789", toAmount: "300" },
        400,
        E.TooManyDecimals
      ],
      ["zero fromAmount", { ...buy, fromAmount: "0" }, 400, E.InvalidRequest]
    ] as const) {
      assertRejected(await createOrder(who, body), status, code, label)
    }
    assert.deepStrictEqual(await snapshot(), before)
    assert.deepStrictEqual(await orders(who), [])

    // clientNonce is unique per wallet: a reuse (on any pair) is refused and moves nothing.
    const n = nextNonce()
    const first = await place(who, "USDT", "BTC", "50", "0.005", { clientNonce: n })
    assertOrder(first, { ...ACTIVE, locked: "50" })
    await assertBal(who, "USDT", 50, 50)
    assertRejected(await createOrder(who, { ...buy, clientNonce: n }), 400, E.NonceExists, "reuse")
    assertRejected(
      await createOrder(who, {
        fromCurrency: "ETH",
        toCurrency: "USDT",
        fromAmount: "0.1",
        toAmount: "900",
        clientNonce: n
      }),
      400,
      E.NonceExists,
      "reuse, other pair"
    )
    await assertBal(who, "USDT", 50, 50)
    await assertBal(who, "ETH", 1, 0)
    assert.strictEqual((await orders(who)).length, 1)
    // Another wallet may use the same number.
    const other = await party({ USDT: "10" })
    await place(other, "USDT", "BTC", "10", "0.001", { clientNonce: n })

    // A blocked wallet cannot trade.
    const blocked = await party({ USDT: "10" })
    const flags = await client.priv("POST", "update_wallet", { id: blocked.id, flags: 16 | 1 })
    assert.strictEqual(flags.status, 200, JSON.stringify(flags.body))
    assertRejected(
      await createOrder(blocked, { ...buy, fromAmount: "10", toAmount: "0.001" }),
      400,
      E.WalletBlocked,
      "blocked"
    )
    await assertBal(blocked, "USDT", 10, 0)
  })

  it("at most 50 open orders per wallet (10094); a cancel makes room again", async () => {
    const who = await party({ USDT: "100" })
    for (let i = 0; i < 50; i++) await place(who, "USDT", "BTC", "1", "0.001")
    await assertBal(who, "USDT", 50, 50)
    assertRejected(
      await createOrder(who, { fromCurrency: "USDT", toCurrency: "BTC", fromAmount: "1", toAmount: "0.001" }),
      400,
      E.MaxActiveOrders,
      "51st"
    )
    await assertBal(who, "USDT", 50, 50)
    const [newest] = await orders(who, "limit=1")
    assert.strictEqual((await cancel(who, newest.id)).status, 200)
    await place(who, "USDT", "BTC", "1", "0.001")
    await assertBal(who, "USDT", 50, 50)
  }, 120_000)
})

describe("get_orders", () => {
  it("filters by currencies, states and room; pages newest first with an exclusive from_order_id", async () => {
    const who = await party({ BTC: "1", ETH: "1", USDT: "1000" })
    const o1 = await place(who, "BTC", "USDT", "0.1", "10000")
    const o2 = await place(who, "ETH", "USDT", "0.1", "1000")
    const o3 = await place(who, "USDT", "BTC", "100", "0.01")
    assert.strictEqual((await cancel(who, o3.id)).status, 200)
    const o4 = await place(who, "ETH", "BTC", "0.5", "1")
    const taker = await party({ USDT: "1000" })
    assertOrder(await place(taker, "USDT", "ETH", "1000", "0.1"), { ...COMPLETED, received: "0.1" })
    const ids = async (query: string) => (await orders(who, query)).map((o: any) => o.id)
    assert.deepStrictEqual(await ids(""), [o4.id, o3.id, o2.id, o1.id])
    assert.deepStrictEqual(await ids("currency_from=BTC"), [o1.id])
    assert.deepStrictEqual(await ids("currency_from=ETH"), [o4.id, o2.id])
    assert.deepStrictEqual(await ids("currency_to=USDT"), [o2.id, o1.id])
    assert.deepStrictEqual(await ids("currency_from=ETH&currency_to=BTC"), [o4.id])
    assert.deepStrictEqual(await ids("ord_states=Active"), [o4.id, o1.id])
    assert.deepStrictEqual(await ids("ord_states=Completed"), [o2.id])
    assert.deepStrictEqual(await ids("ord_states=Active&ord_states=Canceled"), [o4.id, o3.id, o1.id])
    assert.deepStrictEqual(await ids("room_key=0"), [o4.id, o3.id, o2.id, o1.id])
    assert.deepStrictEqual(await ids("room_key=12345"), [])
    assert.deepStrictEqual(await ids("limit=2"), [o4.id, o3.id])
    assert.deepStrictEqual(await ids(`limit=2&from_order_id=${o3.id}`), [o2.id, o1.id])
    assert.deepStrictEqual(await ids(`from_order_id=${o1.id}`), [])
    assert.deepStrictEqual(await ids(`ord_states=Active&from_order_id=${o4.id}`), [o1.id])
    assert.deepStrictEqual(await ids("end=2000-01-01"), [])
    assert.deepStrictEqual(await ids(`start=${new Date(Date.now() - 3_600_000).toISOString()}`), [
      o4.id,
      o3.id,
      o2.id,
      o1.id
    ])
    for (const query of [
      "limit=101",
      "limit=0",
      "ord_states=Bogus",
      "start=2024-02-01&end=2024-01-01",
      "start=yesterday"
    ]) {
      const reply = await client.call("GET", `/core/v1/market/get_orders?${query}`, { sid: who.sid })
      assertRejected(reply, 400, E.InvalidRequest, query)
    }
    // Another wallet's orders never show.
    assert.deepStrictEqual((await orders(taker)).length, 1)
  })
})

describe("order_tx_info and get_candles", () => {
  it("fills with roles for the wallet's own orders; an OHLC row with volume and total from both directions", async () => {
    const start = new Date().toISOString()
    const s1 = await party({ BTC: "0.2" }),
      s2 = await party({ BTC: "0.1" })
    const ask1 = await place(s1, "BTC", "USDT", "0.2", "16000")
    const ask2 = await place(s2, "BTC", "USDT", "0.1", "8100")
    const buyer = await party({ USDT: "24100" })
    const buy = await place(buyer, "USDT", "BTC", "24100", "0.25")
    assertOrder(buy, { ...COMPLETED, given: "24100", received: "0.3" })
    const info = await client.call("POST", "/core/v1/order_tx_info", { sid: buyer.sid, body: [buy.id, ask1.id, "999"] })
    assert.strictEqual(info.status, 200, JSON.stringify(info.body))
    assert.strictEqual(info.body.result.length, 1, "foreign and unknown ids are left out")
    const mine = info.body.result[0]
    assertOrder(mine, { id: buy.id, ...COMPLETED, received: "0.3" })
    assert.deepStrictEqual(
      mine.fills.map((f: any) => [f.role, f.price, f.amount, f.total]),
      [
        ["taker", "80000", "0.2", "16000"],
        ["taker", "81000", "0.1", "8100"]
      ]
    )
    for (const fill of mine.fills) assert.isFalse(Number.isNaN(Date.parse(fill.at)), fill.at)
    const theirs = await client.call("POST", "/core/v1/order_tx_info", { sid: s2.sid, body: [ask2.id] })
    assert.deepStrictEqual(
      theirs.body.result[0].fills.map((f: any) => [f.role, f.price, f.amount, f.total]),
      [["maker", "81000", "0.1", "8100"]]
    )
    assertOrder(theirs.body.result[0], { ...COMPLETED, received: "8100" })
    const tooMany = await client.call("POST", "/core/v1/order_tx_info", {
      sid: buyer.sid,
      body: Array.from({ length: 101 }, (_, i) => String(i + 1))
    })
    assertRejected(tooMany, 400, E.InvalidRequest, "101 ids")

    const candles = async (from: string, to: string) => {
      const rows = await get(
        buyer,
        `/core/v1/get_candles?currency_from=${from}&currency_to=${to}&interval=86400&start=${start}`
      )
      assert.isAtLeast(rows.length, 1)
      return {
        open: rows[0].open,
        close: rows.at(-1).close,
        high: rows.map((r: any) => r.high),
        low: rows.map((r: any) => r.low),
        volume: rows.map((r: any) => r.volume),
        total: rows.map((r: any) => r.total),
        trades: rows.reduce((n: number, r: any) => n + r.trades, 0)
      }
    }
    assert.deepStrictEqual(await candles("BTC", "USDT"), {
      open: "80000",
      close: "81000",
      high: ["81000"],
      low: ["80000"],
      volume: ["0.3"],
      total: ["24100"],
      trades: 2
    })
    assert.deepStrictEqual(await candles("USDT", "BTC"), {
      open: "0.0000125",
      close: "0.0000123456790123",
      high: ["0.0000125"],
      low: ["0.0000123456790123"],
      volume: ["24100"],
      total: ["0.3"],
      trades: 2
    })
  })
})
