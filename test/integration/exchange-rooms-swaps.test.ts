/**
 * The exchange around the order book, over real HTTP against the real service process (SPEC
 * "Market (session)" rules 2-5 and 7, "Room create request", "Limits"; CONTRACT C3, C10, C14):
 * rates from the public books (mid, then last trade; cross rates; a reference rate wins);
 * private rooms (create, list, join by share code, members only, no matching across rooms, five
 * open rooms per creator, owner-only close that cancels and unlocks); MAX_ACTIVE_ORDERS_PER_WALLET
 * set through the environment (this file's service runs with 3); two-step swaps (swap_info for a
 * session and for the service key, toAmount required, drift tolerance, the Swap tariff's fee in
 * the target currency to its profit wallet, a wrong code, cancel_tx releasing the reservation).
 * Balances of every party are checked exactly, books are emptied after each test, and the ledger
 * audit must show every currency summing to "0" with no user bucket below zero.
 */
import { afterAll, afterEach, assert, beforeAll, describe, it } from "@effect/vitest"
import { makeClient, type TestClient } from "../support/Client.ts"
import {
  ACTIVE,
  assertOrder,
  assertRejected,
  CANCELED,
  COMPLETED,
  levels,
  makeExchange,
  type Party
} from "../support/Exchange.ts"
import { type RunningService, startService } from "../support/Service.ts"

const E = {
  InvalidRequest: 10001,
  BalanceNotEnough: 10002,
  InvalidAmount: 10014,
  CurrencyNotEnabled: 10022,
  RateNotFound: 10050,
  ConfirmationFailed: 10080,
  NotPending: 10082,
  NotFound: 10083,
  RoomNotFound: 10093,
  MaxActiveOrders: 10094,
  MaxRooms: 10095,
  NotRoomOwner: 10096,
  SwapDrift: 10097,
  NonceExists: 10130
} as const

let service: RunningService
let client: TestClient
const { party, nextNonce, createOrder, place, cancel, get, orders, book, bal, assertBal, cleanup } = makeExchange(
  () => client,
  820_000
)

beforeAll(async () => {
  service = await startService({ env: { MAX_ACTIVE_ORDERS_PER_WALLET: "3" } })
  client = makeClient(service)
}, 120_000)
afterEach(async () => {
  await cleanup()
  await client.assertLedgerSound()
})
afterAll(async () => {
  await service?.stop()
})

const rates = (who: Party, query: string) => get(who, `/core/v1/market/get_rates?${query}`)
/** Book rates are cached for a second: polls until `query` answers `expected`. */
const eventually = async (who: Party, query: string, expected: unknown) => {
  let last: unknown
  for (let i = 0; i < 40; i++) {
    last = await rates(who, query)
    if (JSON.stringify(last) === JSON.stringify(expected)) return
    await new Promise((r) => setTimeout(r, 100))
  }
  assert.deepStrictEqual(last, expected, query)
}

describe("rates from the books (SPEC market rule 7, C3)", () => {
  it("no reference rate: the public book's mid, then its last trade; cross rates via USDT; a set rate wins", async () => {
    const watcher = await party()
    assert.deepStrictEqual(await rates(watcher, "to=USDT&from=ETH"), [])
    const bidder = await party({ USDT: "320" }),
      seller = await party({ ETH: "0.1" })
    await place(bidder, "USDT", "ETH", "320", "0.1")
    await place(seller, "ETH", "USDT", "0.1", "321")
    await eventually(watcher, "to=USDT&from=ETH", [{ from: "ETH", to: "USDT", rate: "3205", via: "direct" }])
    const taker = await party({ USDT: "321" })
    assertOrder(await place(taker, "USDT", "ETH", "321", "0.1"), { ...COMPLETED, received: "0.1" })
    await eventually(watcher, "to=USDT&from=ETH", [{ from: "ETH", to: "USDT", rate: "3210", via: "direct" }])
    assert.strictEqual((await book(watcher, "ETH", "USDT")).rate, "3210")
    // A leg set by the operator combines with the book's leg; a set rate of the pair itself wins.
    assert.strictEqual(
      (await client.priv("POST", "set_rates", [{ from: "BTC", to: "USDT", rate: "60000" }])).status,
      200
    )
    assert.deepStrictEqual(await rates(watcher, "to=BTC&from=ETH"), [
      { from: "ETH", to: "BTC", rate: "0.0535", via: "USDT" }
    ])
    assert.strictEqual(
      (await client.priv("POST", "set_rates", [{ from: "ETH", to: "USDT", rate: "3000" }])).status,
      200
    )
    assert.deepStrictEqual(await rates(watcher, "to=USDT&from=ETH"), [
      { from: "ETH", to: "USDT", rate: "3000", via: "direct" }
    ])
  })
})

describe("private rooms (SPEC market rule 2, Room create request, Limits)", () => {
  const apply = (who: Party, code: string) =>
    client.call("POST", `/core/v1/apply_code?code=${code}&client_nonce=${nextNonce()}`, { sid: who.sid })
  const createRoom = (who: Party, body: Record<string, unknown>) =>
    client.call("POST", "/core/v1/market/create_room", { sid: who.sid, body })
  const closeRoom = (who: Party, key: string) =>
    client.call("POST", `/core/v1/market/close_room?roomId=${key}`, { sid: who.sid })
  const rooms = (who: Party) => get(who, "/core/v1/market/list_rooms")

  it("members trade in their room only, apart from the public book; five per creator; the owner's close unlocks", async () => {
    const owner = await party({ USDT: "10000" }),
      member = await party({ ETH: "1" }),
      stranger = await party({ USDT: "10000", ETH: "1" })
    const created = await createRoom(owner, { currency1: "ETH", currency2: "USDT", flags: 1, toBalanceLimit: "500" })
    assert.strictEqual(created.status, 200, JSON.stringify(created.body))
    const room = created.body.result
    assertOrder(room, { currency1: "ETH", currency2: "USDT", flags: 1, toBalanceLimit: "500", isOwner: true })
    assert.match(room.roomKey, /^[1-9]\d*$/)
    assert.match(room.shareCode, /^R/)
    assert.isFalse(Number.isNaN(Date.parse(room.createdAt)))
    assert.deepStrictEqual(await rooms(owner), [room])
    assert.deepStrictEqual(await rooms(member), [])
    const key = room.roomKey
    const sellInRoom = { fromCurrency: "ETH", toCurrency: "USDT", fromAmount: "1", toAmount: "3000", roomKey: key }

    // Not a member yet: 10093, nothing moves. The share code joins; the answer names the room.
    assertRejected(await createOrder(member, sellInRoom), 404, E.RoomNotFound, "before joining")
    await assertBal(member, "ETH", 1, 0)
    const joined = await apply(member, room.shareCode)
    assert.strictEqual(joined.status, 200, JSON.stringify(joined.body))
    assert.deepStrictEqual(joined.body.result, { confirmationStatusCode: "Confirmed", txId: key, result: key })
    assert.deepStrictEqual(await rooms(member), [{ ...room, isOwner: false }])

    const ask = await place(member, "ETH", "USDT", "1", "3000", { roomKey: key })
    assertOrder(ask, { ...ACTIVE, roomKey: key, price: "3000", locked: "1" })
    await assertBal(member, "ETH", 0, 1)
    // A public bid above the room's ask does not meet it.
    const publicBid = await place(stranger, "USDT", "ETH", "3100", "1")
    assertOrder(publicBid, { ...ACTIVE, roomKey: "0", given: "0", locked: "3100" })
    assertOrder((await orders(member))[0], { id: ask.id, ...ACTIVE, given: "0" })
    assert.deepStrictEqual(levels((await book(member, "ETH", "USDT", key)).asks), [["3000", "1", "3000"]])
    assert.deepStrictEqual(levels((await book(member, "ETH", "USDT", key)).bids), [])
    assert.deepStrictEqual(levels((await book(stranger, "ETH", "USDT")).asks), [])
    assert.deepStrictEqual(levels((await book(stranger, "ETH", "USDT")).bids), [["3100", "1", "3100"]])
    // Strangers can neither trade in nor look into the room.
    assertRejected(
      await createOrder(stranger, { ...sellInRoom, fromAmount: "0.5", toAmount: "1000" }),
      404,
      E.RoomNotFound,
      "stranger"
    )
    assertRejected(
      await client.call("GET", `/core/v1/market/get_trade_info?currency_from=ETH&currency_to=USDT&room_key=${key}`, {
        sid: stranger.sid
      }),
      404,
      E.RoomNotFound,
      "stranger view"
    )
    assertRejected(
      await client.call("GET", `/core/v1/get_candles?currency_from=ETH&currency_to=USDT&room_key=${key}`, {
        sid: stranger.sid
      }),
      404,
      E.RoomNotFound,
      "stranger candles"
    )
    await assertBal(stranger, "ETH", 1, 0)
    await assertBal(stranger, "USDT", 6900, 3100)
    // The owner is a member: it trades with the member inside the room; a pair the room does not trade is refused.
    assertOrder(await place(owner, "USDT", "ETH", "1200", "0.4", { roomKey: key }), {
      ...COMPLETED,
      roomKey: key,
      given: "1200",
      received: "0.4"
    })
    assertOrder((await orders(member, `room_key=${key}`))[0], {
      id: ask.id,
      ...ACTIVE,
      given: "0.4",
      received: "1200",
      locked: "0.6"
    })
    assertRejected(
      await createOrder(owner, {
        fromCurrency: "USDT",
        toCurrency: "BTC",
        fromAmount: "10",
        toAmount: "0.001",
        roomKey: key
      }),
      400,
      E.InvalidRequest,
      "other pair"
    )
    // The room's own candles: one trade of 0.4 ETH at 3000.
    const candles = await get(
      member,
      `/core/v1/get_candles?currency_from=ETH&currency_to=USDT&room_key=${key}&interval=86400&start=${room.createdAt}`
    )
    assert.deepStrictEqual(
      candles.map((c: any) => [c.open, c.close, c.volume, c.total, c.trades]),
      [["3000", "3000", "0.4", "1200", 1]]
    )

    // Five open rooms per creator.
    const more = []
    for (let i = 0; i < 4; i++) {
      const reply = await createRoom(owner, { currency1: "BTC", currency2: "USDT" })
      assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
      more.push(reply.body.result.roomKey)
    }
    assertRejected(await createRoom(owner, { currency1: "BTC", currency2: "USDT" }), 400, E.MaxRooms, "sixth")
    assert.strictEqual((await rooms(owner)).length, 5)

    // Only the owner closes; closing cancels the open orders in it and unlocks them.
    assertRejected(await closeRoom(member, key), 403, E.NotRoomOwner, "member closes")
    assertOrder((await orders(member))[0], { id: ask.id, ...ACTIVE })
    const closed = await closeRoom(owner, key)
    assert.strictEqual(closed.status, 200, JSON.stringify(closed.body))
    assert.deepStrictEqual(closed.body.result, { roomKey: key, cancelledOrders: 1 })
    assertOrder((await orders(member))[0], { id: ask.id, ...CANCELED, given: "0.4", received: "1200" })
    await assertBal(member, "ETH", 0.6, 0)
    await assertBal(member, "USDT", 1200, 0)
    await assertBal(owner, "ETH", 0.4, 0)
    await assertBal(owner, "USDT", 8800, 0)
    assert.deepStrictEqual(await rooms(member), [])
    assert.deepStrictEqual((await rooms(owner)).map((r: any) => r.roomKey).sort(), [...more].sort())
    // A closed room takes no orders, no members and no second close.
    assertRejected(
      await createOrder(member, { ...sellInRoom, fromAmount: "0.1", toAmount: "300" }),
      404,
      E.RoomNotFound,
      "closed room"
    )
    assertRejected(
      await createOrder(owner, {
        fromCurrency: "USDT",
        toCurrency: "ETH",
        fromAmount: "300",
        toAmount: "0.1",
        roomKey: key
      }),
      404,
      E.RoomNotFound,
      "owner, closed room"
    )
    assertRejected(await apply(stranger, room.shareCode), 404, E.NotFound, "join a closed room")
    assertRejected(await closeRoom(owner, key), 404, E.RoomNotFound, "close twice")
    await assertBal(member, "ETH", 0.6, 0)
    // The closed room no longer counts against the five.
    assert.strictEqual((await createRoom(owner, { currency1: "ETH", currency2: "BTC" })).status, 200)
    assertRejected(await createRoom(owner, { currency1: "ETH", currency2: "BTC" }), 400, E.MaxRooms, "sixth again")
    assertRejected(
      await createRoom(owner, { currency1: "USD", currency2: "BTC" }),
      400,
      E.CurrencyNotEnabled,
      "USD room"
    )
  })
})

describe("MAX_ACTIVE_ORDERS_PER_WALLET (C14 settings)", () => {
  it("the environment setting bounds open orders (3 here): 10094, nothing moves; a cancel makes room", async () => {
    const who = await party({ USDT: "10" })
    const placed = []
    for (let i = 0; i < 3; i++) placed.push(await place(who, "USDT", "BTC", "1", "0.001"))
    assertRejected(
      await createOrder(who, { fromCurrency: "USDT", toCurrency: "BTC", fromAmount: "1", toAmount: "0.001" }),
      400,
      E.MaxActiveOrders,
      "4th"
    )
    await assertBal(who, "USDT", 7, 3)
    assert.strictEqual((await cancel(who, placed[0].id)).status, 200)
    await place(who, "USDT", "BTC", "1", "0.001")
    await assertBal(who, "USDT", 7, 3)
  })
})

describe("swaps (SPEC market rules 3-5, C10, C14)", () => {
  const swap = (who: Party, body: Record<string, unknown>, query = "") =>
    client.call("POST", `/core/v1/market/create_swap${query}`, {
      sid: who.sid,
      body: { fromCurrency: "BTC", toCurrency: "USDT", ...body }
    })
  const buckets = async (who: Party, currency: string) => {
    const row = await client.balance(who.sid, currency)
    return row === undefined ? [0, 0] : [row.freeBalance, row.lockOutBalance]
  }

  it("swap_info, toAmount required, drift, the two steps with a Swap fee, a wrong code, cancel_tx", async () => {
    const profit = await party()
    assert.strictEqual(
      (await client.priv("POST", "set_rates", [{ from: "BTC", to: "USDT", rate: "60000" }])).status,
      200
    )
    const tariffs = await client.priv("POST", "set_tariffs", [
      { txClass: "Swap", currency: "USDT", feeFixed: "1", feePercent: "0.1", profitWalletId: profit.id }
    ])
    assert.strictEqual(tariffs.status, 200, JSON.stringify(tariffs.body))
    try {
      const who = await party({ BTC: "0.5" })
      const info = {
        currencyFrom: "BTC",
        currencyTo: "USDT",
        rate: "60000",
        minAmount: "0.00000001",
        maxAmount: "0.5",
        feeCurrency: "USDT",
        feePercent: "0.1",
        feeFixed: "1",
        driftPct: "0.5",
        chargebackDays: 0
      }
      assert.deepStrictEqual(await get(who, "/core/v1/market/swap_info?currency_from=BTC&currency_to=USDT"), info)
      const privateInfo = await client.priv("GET", "swap_info?currency_from=BTC&currency_to=USDT")
      assert.strictEqual(privateInfo.status, 200, JSON.stringify(privateInfo.body))
      assert.deepStrictEqual(privateInfo.body.result, { ...info, maxAmount: null })
      assert.deepStrictEqual(await get(who, "/core/v1/market/swap_info?currency_from=USDT&currency_to=BTC"), {
        currencyFrom: "USDT",
        currencyTo: "BTC",
        rate: "0.000016666666666667",
        minAmount: "0.000001",
        maxAmount: "0",
        feeCurrency: "BTC",
        feePercent: "0",
        feeFixed: "0",
        driftPct: "0.5",
        chargebackDays: 0
      })
      assertRejected(
        await client.call("GET", "/core/v1/market/swap_info?currency_from=USDC&currency_to=EUR", { sid: who.sid }),
        404,
        E.RateNotFound,
        "no rate"
      )
      assertRejected(
        await client.call("GET", "/core/v1/market/swap_info?currency_from=USD&currency_to=BTC", { sid: who.sid }),
        400,
        E.CurrencyNotEnabled,
        "USD"
      )

      // 0.1 BTC: gross 6000 USDT, fee 1 + 0.1 % = 7, net 5993; the tolerance is 0.5 % of 5993 = 29.965.
      assertRejected(await swap(who, { fromAmount: "0.1" }), 400, E.InvalidAmount, "no toAmount")
      assertRejected(await swap(who, { fromAmount: "0.1", toAmount: "5963" }), 400, E.SwapDrift, "30 below")
      assertRejected(await swap(who, { fromAmount: "0.1", toAmount: "6023" }), 400, E.SwapDrift, "30 above")
      assertRejected(await swap(who, { fromAmount: "1", toAmount: "59939" }), 400, E.BalanceNotEnough, "short")
      assert.deepStrictEqual(await buckets(who, "BTC"), [0.5, 0])

      const n = nextNonce()
      const step1 = await swap(who, { fromAmount: "0.1", toAmount: "5993", clientNonce: n })
      assert.strictEqual(step1.status, 200, JSON.stringify(step1.body))
      assertOrder(step1.body.result, { fee: 7, confirmationStatusCode: "NeedCodeConfirm" })
      const { txId, confirmationCode } = step1.body.result
      assert.match(txId, /^\d+$/)
      assert.isString(confirmationCode)
      assert.deepStrictEqual(await buckets(who, "BTC"), [0.4, 0.1])
      assertRejected(
        await swap(who, { fromAmount: "0.1", toAmount: "5993", clientNonce: n }),
        400,
        E.NonceExists,
        "nonce reuse"
      )
      const wrong = confirmationCode === "000000" ? "111111" : "000000"
      assertRejected(
        await swap(
          who,
          { fromAmount: "0.1", toAmount: "5993" },
          `?confirmationTimetick=${txId}&confirmationCode=${wrong}`
        ),
        400,
        E.ConfirmationFailed,
        "wrong code"
      )
      assert.deepStrictEqual(await buckets(who, "BTC"), [0.4, 0.1])
      // A transfer's step two cannot settle a swap (it would skip the swap's rate check).
      const asTransfer = await client.call(
        "POST",
        `/core/v1/wallet/internal_transfer?confirmationTimetick=${txId}&confirmationCode=${confirmationCode}`,
        { sid: who.sid, body: { recipient: who.id, currency: "BTC", amount: "0.1" } }
      )
      assertRejected(asTransfer, 400, E.NotPending, "internal_transfer step two on a swap")
      assert.deepStrictEqual(await buckets(who, "BTC"), [0.4, 0.1])
      const step2 = await swap(
        who,
        { fromAmount: "0.1", toAmount: "5993" },
        `?confirmationTimetick=${txId}&confirmationCode=${confirmationCode}`
      )
      assert.strictEqual(step2.status, 200, JSON.stringify(step2.body))
      assertOrder(step2.body.result, { txId, fee: 7, confirmationStatusCode: "Confirmed" })
      assert.deepStrictEqual(await buckets(who, "BTC"), [0.4, 0])
      assert.deepStrictEqual(await buckets(who, "USDT"), [5993, 0])
      assert.deepStrictEqual(await buckets(profit, "USDT"), [7, 0])
      const tx = await get(who, `/core/v1/wallet/get_tx_info?id=${txId}`)
      assertOrder(
        tx,
        {
          id: txId,
          typeTx: 16,
          state: "Finished",
          walletTo: "-3",
          currency: "BTC",
          amount: 0.1,
          currencyTo: "USDT",
          amountTo: 5993,
          fee: 7
        },
        "swap tx"
      )
      // The settled swap cannot be confirmed again.
      assertRejected(
        await swap(
          who,
          { fromAmount: "0.1", toAmount: "5993" },
          `?confirmationTimetick=${txId}&confirmationCode=${confirmationCode}`
        ),
        400,
        E.NotPending,
        "again"
      )

      // Within the tolerance (29.96 below) the client's toAmount stands; cancel_tx releases the reservation.
      const pending = await swap(who, { fromAmount: "0.1", toAmount: "5963.04" })
      assert.strictEqual(pending.status, 200, JSON.stringify(pending.body))
      assert.deepStrictEqual(await buckets(who, "BTC"), [0.3, 0.1])
      const cancelled = await client.call("POST", `/core/v1/wallet/cancel_tx?id=${pending.body.result.txId}`, {
        sid: who.sid
      })
      assert.strictEqual(cancelled.status, 200, JSON.stringify(cancelled.body))
      assert.deepStrictEqual(await buckets(who, "BTC"), [0.4, 0])
      assertRejected(
        await swap(
          who,
          { fromAmount: "0.1", toAmount: "5963.04" },
          `?confirmationTimetick=${pending.body.result.txId}&confirmationCode=${pending.body.result.confirmationCode}`
        ),
        400,
        E.NotPending,
        "after cancel"
      )
      assert.deepStrictEqual(await buckets(who, "USDT"), [5993, 0])
      assert.deepStrictEqual(await buckets(profit, "USDT"), [7, 0])
    } finally {
      assert.strictEqual((await client.priv("POST", "set_tariffs", [])).status, 200)
    }
  })
})
