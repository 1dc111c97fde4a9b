/**
 * Preselection on put_payment_order (CONTRACT C16: `terminalId`, `payAmount`; issue #14) and every error
 * it answers, and the private create_payment_order / get_payment_order_info / get_payment_terminals. The
 * shop and its terminals: test/support/OffersShop.ts. The ledger audit runs after each test.
 */
import { assert, beforeAll, describe, it } from "@effect/vitest"
import { BigNumber } from "bignumber.js"
import { xpubEnv } from "../support/CryptoAddresses.ts"
import { assertRejected, errorCode, serviceForFile } from "../support/Fixtures.ts"
import { expectedFee, offersShop, SPREAD, USDT_BTC } from "../support/OffersShop.ts"

// Crypto terminals are payable (available) only with addresses: the XPUBs of Bitcoin, Ethereum and Tron.
// It presets card terminals, offered only with the card sandbox on (C19 §1: ACQUIRER is off by default).
const { client } = serviceForFile({ env: { ...xpubEnv, ACQUIRER: "sandbox" } })
const s = offersShop(client)
const { t, setup, merchantCall, put, newOrder, gate, offersOf, byId } = s

// The shop and its terminals first: tests read `t.*` before their first call.
beforeAll(setup, 60_000)

describe("preselection on put_payment_order", () => {
  it("a terminal alone: shown while Created, the only available one, and it starts there", async () => {
    const order = await newOrder({ terminalId: t.btc })
    assert.deepInclude(order, { terminalId: t.btc, payCurrency: "BTC", payAmount: null, state: "Created" })
    const offers = await offersOf(order.code)
    for (const o of offers) assert.strictEqual(o.available, o.id === t.btc, o.id)
    const info = await gate("GET", "get_order_info", order.code)
    assert.strictEqual(info.body.result.terminal.id, t.btc)
    assert.isNull(info.body.result.payAmount, "no snapshot before a start")
    assertRejected(
      await gate("POST", "order_start", order.code, { tokenNetworkId: t.internal }),
      400,
      errorCode.TerminalNotAvailable
    )
    const payer = await client.party({ fund: "100" })
    assertRejected(await gate("POST", "pay_internal", order.code, {}, payer.sid), 400, errorCode.TerminalNotAvailable)
    const started = await gate("POST", "order_start", order.code, { tokenNetworkId: t.btc })
    assert.deepInclude(started.body.result, { state: "Started", rate: USDT_BTC, spreadPct: SPREAD })
  })

  it("payAmount fixes the price: rate = payAmount / orderAmount, spread 0, replayed by value", async () => {
    const body = { terminalId: t.btc, payAmount: "0.0002", externalId: `fixed-${s.nextId()}` }
    const order = await newOrder(body)
    assert.deepInclude(order, { terminalId: t.btc, payCurrency: "BTC", payAmount: "0.0002", replayed: false })
    const again = await put({ ...body, payAmount: "0.00020000" })
    assert.strictEqual(again.status, 200, JSON.stringify(again.body))
    assert.strictEqual(again.body.result.id, order.id)
    assert.isTrue(again.body.result.replayed)
    assertRejected(await put({ ...body, payAmount: "0.0003" }), 400, errorCode.ExternalIdConflict)
    const fee = expectedFee(new BigNumber("0.0002"), "0.00001", "0.5", 8)
    const btc = byId(await offersOf(order.code), t.btc)
    assert.deepStrictEqual(btc.quote, {
      payAmount: "0.0002",
      fee: fee.toFixed(),
      totalToPay: fee.plus("0.0002").toFixed(),
      rate: "0.00002"
    })
    const started = await gate("POST", "order_start", order.code, { tokenNetworkId: t.btc })
    assert.deepInclude(started.body.result, {
      payAmount: "0.0002",
      fee: fee.toFixed(),
      rate: "0.00002",
      spreadPct: "0"
    })
  })

  it("a rate that does not terminate is canonical to 18 places", async () => {
    const order = await newOrder({ orderAmount: "3", terminalId: t.btc, payAmount: "0.0001" })
    assert.strictEqual(byId(await offersOf(order.code), t.btc).quote.rate, "0.000033333333333333")
  })

  it("the internal terminal takes payAmount = orderAmount only (10014)", async () => {
    const order = await newOrder({ terminalId: t.internal, payAmount: "10.000" })
    assert.deepInclude(order, { terminalId: t.internal, payAmount: "10", payCurrency: "USDT" })
    assertRejected(await put({ terminalId: t.internal, payAmount: "9" }), 400, errorCode.InvalidAmount, "", "payAmount")
    const payer = await client.party({ fund: "20" })
    const paid = await gate("POST", "pay_internal", order.code, {}, payer.sid)
    assert.deepInclude(paid.body.result, { state: "Paid", totalToPay: "10.3" })
  })

  it("errors: 10305, 404 10040, 10303 (not offered, no rate, outside the bounds), 10021", async () => {
    await setup()
    assertRejected(await put({ payAmount: "1" }), 400, errorCode.PayAmountNeedsTerminal, "", "payAmount")
    assertRejected(await put({ terminalId: "987654" }), 404, errorCode.TerminalNotFound, "", "terminalId")
    for (const id of [t.hidden, t.withdrawOnly, t.wire])
      assertRejected(await put({ terminalId: id }), 400, errorCode.TerminalNotAvailable, id, "terminalId")
    assertRejected(await put({ terminalId: t.eth }), 400, errorCode.TerminalNotAvailable, "no rate")
    assertRejected(
      await put({ orderAmount: "0.5", terminalId: t.internal }),
      400,
      errorCode.TerminalNotAvailable,
      "below the bounds"
    )
    assertRejected(
      await put({ terminalId: t.card, payAmount: "20000" }),
      400,
      errorCode.TerminalNotAvailable,
      "fixed price above the bounds"
    )
    // A fixed price needs no rate: ETH at a price the s.merchant names.
    const eth = await newOrder({ terminalId: t.eth, payAmount: "0.004" })
    assert.isTrue(byId(await offersOf(eth.code), t.eth).available)
    assertRejected(
      await put({ terminalId: t.btc, payAmount: "0.000000001" }),
      400,
      errorCode.TooManyDecimals,
      "BTC has 8 decimals"
    )
  })
})

describe("private payment actions", () => {
  it("create_payment_order: put's body + appId, same idempotency; unknown s.app 404 10308", async () => {
    await setup()
    const body = { appId: s.app.appId, currency: "USDT", orderAmount: "7", externalId: `private-${s.nextId()}` }
    const created = await client.priv("POST", "create_payment_order", body)
    assert.strictEqual(created.status, 200, JSON.stringify(created.body))
    assert.deepInclude(created.body.result, { appId: s.app.appId, orderAmount: "7", state: "Created", replayed: false })
    const again = await client.priv("POST", "create_payment_order", { ...body, orderAmount: 7.0 })
    assert.deepInclude(again.body.result, { id: created.body.result.id, replayed: true })
    // The s.merchant's put of the same externalId is the same order.
    const { appId: _, ...putBody } = body
    const viaPut = await merchantCall("POST", "put_payment_order", putBody)
    assert.deepInclude(viaPut.body.result, { id: created.body.result.id, replayed: true })
    assertRejected(
      await client.priv("POST", "create_payment_order", { ...body, orderAmount: "8" }),
      400,
      errorCode.ExternalIdConflict
    )
    assertRejected(
      await client.priv("POST", "create_payment_order", { ...body, appId: "99999999" }),
      404,
      errorCode.AppNotFound,
      "",
      "appId"
    )
    const preset = await client.priv("POST", "create_payment_order", {
      ...body,
      externalId: `private-${s.nextId()}`,
      terminalId: t.card
    })
    assert.deepInclude(preset.body.result, { terminalId: t.card, payCurrency: "EUR" })
    assertRejected(
      await client.priv("POST", "create_payment_order", {
        ...body,
        externalId: `private-${s.nextId()}`,
        terminalId: t.hidden
      }),
      400,
      errorCode.TerminalNotAvailable
    )
    assert.strictEqual((await client.call("POST", "/private/v1/create_payment_order", { body })).status, 401)
  })

  it("get_payment_order_info by id or code: the order with refunds and acquiringSessions", async () => {
    const order = await newOrder()
    const byIdReply = await client.priv("GET", `get_payment_order_info?id=${order.id}`)
    assert.strictEqual(byIdReply.status, 200, JSON.stringify(byIdReply.body))
    const { replayed: _, ...out } = order
    assert.deepStrictEqual(byIdReply.body.result, { ...out, refunds: [], acquiringSessions: [] })
    const byCode = await client.priv("GET", `get_payment_order_info?code=${order.code}`)
    assert.deepStrictEqual(byCode.body.result, byIdReply.body.result)
    assertRejected(await client.priv("GET", "get_payment_order_info?id=1"), 404, errorCode.PaymentOrderNotFound)
    assertRejected(await client.priv("GET", "get_payment_order_info"), 400, errorCode.InvalidRequest)
    assertRejected(
      await client.priv("GET", `get_payment_order_info?id=${order.id}&code=${order.code}`),
      400,
      errorCode.InvalidRequest
    )
  })
})
