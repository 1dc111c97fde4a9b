/**
 * Offers for payment orders (CONTRACT C16 "Payment gate → get_terminals", issue #14): the terminals a
 * PaymentOrder is offered on with fees and bounds from the merchant group's Payment tariff rules, quotes
 * (cross-currency through C14 rates and PAYMENT_FX_SPREAD_PCT, checked against an independent bignumber
 * computation), `available` (bounds, rates), order_start's snapshot on a cross-currency terminal and
 * get_order_info's `terminal`. Preselection and the private actions: payments-preselection.test.ts;
 * TransferOrders' offers: payments-payouts.test.ts. The ledger audit runs after each test (serviceForFile).
 */
import { assert, beforeAll, describe, it } from "@effect/vitest"
import { BigNumber } from "bignumber.js"
import { addCryptoTerminal } from "../support/Chain.ts"
import { xpubEnv } from "../support/CryptoAddresses.ts"
import { assertRejected, errorCode, serviceForFile } from "../support/Fixtures.ts"
import { expectedFee, expectedPay, offersShop, SPREAD, USDT_BTC, USDT_EUR } from "../support/OffersShop.ts"

// The XPUBs of Bitcoin, Ethereum and Tron (not BNB Smart Chain): crypto terminals are payable only with addresses.
const { client } = serviceForFile({ env: { ...xpubEnv, ACQUIRER: "sandbox" } })
const s = offersShop(client)
const { t, setup, setRates, merchantCall, newOrder, gate, offersOf, byId } = s

// The shop and its terminals first: tests read `t.*` before their first call.
beforeAll(setup, 60_000)

describe("get_terminals?code= for a PaymentOrder", () => {
  it("offers the internal terminal and the Deposit, non-Hidden card and crypto terminals, with s.fees, bounds and quotes", async () => {
    const order = await newOrder()
    const offers = await offersOf(order.code)
    assert.sameMembers(
      offers.map((o) => o.id),
      [t.internal, t.btc, t.eth, t.card, t.usdc]
    )
    assert.strictEqual(offers[0].id, t.internal, "the internal terminal first")
    for (const o of offers) assert.notProperty(o, "paymentMethod")
    assert.deepStrictEqual(byId(offers, t.internal), {
      id: t.internal,
      displayName: "Own Wallet Transfer",
      iconCode: null,
      currency: "USDT",
      typeNetwork: 240,
      // The group-3 rule prices 10 USDT; the bounds span the group's rules and the any-group rule.
      feeFixed: 0.2,
      feePercent: 1,
      minAmount: 1,
      maxAmount: 1000,
      available: true,
      sameAsOrderCurrency: true,
      requiresAuth: true,
      quote: { payAmount: "10", fee: "0.3", totalToPay: "10.3", rate: "1" }
    })
    const btcPay = expectedPay("10", USDT_BTC, SPREAD, 8)
    const btcFee = expectedFee(btcPay, "0.00001", "0.5", 8)
    assert.strictEqual(btcPay.toFixed(), "0.00015514", "rounded up from 0.000155136")
    assert.deepStrictEqual(byId(offers, t.btc), {
      id: t.btc,
      displayName: "Bitcoin",
      iconCode: "btc",
      currency: "BTC",
      typeNetwork: 1,
      feeFixed: 0.00001,
      feePercent: 0.5,
      minAmount: null,
      maxAmount: null,
      available: true,
      sameAsOrderCurrency: false,
      requiresAuth: false,
      quote: {
        payAmount: btcPay.toFixed(),
        fee: btcFee.toFixed(),
        totalToPay: btcPay.plus(btcFee).toFixed(),
        rate: USDT_BTC
      }
    })
    const eurPay = expectedPay("10", USDT_EUR, SPREAD, 2)
    const eurFee = expectedFee(eurPay, "0.3", "2.5", 2)
    assert.deepInclude(byId(offers, t.card), {
      currency: "EUR",
      typeNetwork: 100,
      feeFixed: 0.3,
      feePercent: 2.5,
      minAmount: 1,
      maxAmount: 10000,
      available: true,
      requiresAuth: false
    })
    assert.deepStrictEqual(byId(offers, t.card).quote, {
      payAmount: eurPay.toFixed(),
      fee: eurFee.toFixed(),
      totalToPay: eurPay.plus(eurFee).toFixed(),
      rate: USDT_EUR
    })
    assert.strictEqual(eurPay.toFixed(), "9.3")
    // No ETH rate: listed, no quote, not available; no tariff: fee 0 and unbounded.
    assert.deepInclude(byId(offers, t.eth), {
      currency: "ETH",
      feeFixed: 0,
      feePercent: 0,
      minAmount: null,
      maxAmount: null,
      available: false,
      quote: null
    })
    // The private twin answers the same list.
    const priv = await client.priv("GET", `get_payment_terminals?code=${order.code}`)
    assert.strictEqual(priv.status, 200, JSON.stringify(priv.body))
    assert.deepStrictEqual(priv.body.result, offers)
    assertRejected(await client.priv("GET", "get_payment_terminals?code=Pnope"), 404, errorCode.PaymentOrderNotFound)
    assert.strictEqual((await client.call("GET", `/private/v1/get_payment_terminals?code=${order.code}`)).status, 401)
    assertRejected(await gate("GET", "get_terminals", "Pnope"), 404, errorCode.PaymentOrderNotFound)
  })

  it("?currency= alone keeps the generic list: Deposit, non-Hidden terminals, no internal, quote null", async () => {
    await setup()
    const reply = await client.call("GET", "/payment/v1/get_terminals?currency=EUR")
    assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
    const rows = reply.body.result as Array<any>
    assert.sameMembers(
      rows.map((r) => r.id),
      [t.btc, t.eth, t.card, t.usdc, t.wire]
    )
    for (const r of rows) {
      assert.isNull(r.quote)
      assert.strictEqual(r.sameAsOrderCurrency, r.currency === "EUR")
    }
  })

  it("available follows the bounds of the s.merchant group's rules; outside them order_start answers 10303", async () => {
    const small = await newOrder({ orderAmount: "2" })
    const internalSmall = byId(await offersOf(small.code), t.internal)
    // 2 USDT is below the group rule (5) but within the any-group rule: 0.5 fixed.
    assert.deepInclude(internalSmall, { feeFixed: 0.5, feePercent: 0, available: true })
    assert.deepStrictEqual(internalSmall.quote, { payAmount: "2", fee: "0.5", totalToPay: "2.5", rate: "1" })
    const tiny = await newOrder({ orderAmount: "0.5" })
    assert.deepInclude(byId(await offersOf(tiny.code), t.internal), { available: false, minAmount: 1 })
    assertRejected(
      await gate("POST", "order_start", tiny.code, { tokenNetworkId: t.internal }),
      400,
      errorCode.TerminalNotAvailable
    )
    const huge = await newOrder({ orderAmount: "1000.000001" })
    assert.deepInclude(byId(await offersOf(huge.code), t.internal), { available: false, maxAmount: 1000 })
    const payer = await client.party({ fund: "2000" })
    assertRejected(await gate("POST", "pay_internal", huge.code, {}, payer.sid), 400, errorCode.TerminalNotAvailable)
    const edge = await newOrder({ orderAmount: "1000" })
    assert.isTrue(byId(await offersOf(edge.code), t.internal).available, "the bound itself is inside")
  })

  it("without a rate a terminal is unavailable (order_start 10303) until a rate exists", async () => {
    const order = await newOrder()
    assert.deepInclude(byId(await offersOf(order.code), t.usdc), { available: false, quote: null })
    assertRejected(
      await gate("POST", "order_start", order.code, { tokenNetworkId: t.usdc }),
      400,
      errorCode.TerminalNotAvailable
    )
    await setRates([{ from: "USDT", to: "USDC", rate: "0.9995" }])
    const usdc = byId(await offersOf(order.code), t.usdc)
    const pay = expectedPay("10", "0.9995", SPREAD, 6)
    assert.deepInclude(usdc, { available: true })
    assert.deepStrictEqual(usdc.quote, {
      payAmount: pay.toFixed(),
      fee: "0",
      totalToPay: pay.toFixed(),
      rate: "0.9995"
    })
  })

  it("terminals that exist but are not offered answer 10303 on order_start; unknown ones 404 10040", async () => {
    const order = await newOrder()
    for (const id of [t.hidden, t.withdrawOnly, t.wire])
      assertRejected(
        await gate("POST", "order_start", order.code, { tokenNetworkId: id }),
        400,
        errorCode.TerminalNotAvailable,
        id
      )
    assertRejected(
      await gate("POST", "order_start", order.code, { tokenNetworkId: "987654" }),
      404,
      errorCode.TerminalNotFound
    )
  })
})

describe("order_start on a cross-currency terminal", () => {
  it("locks rate, spread, payAmount, fee and totalToPay; get_order_info shows the terminal; others are locked out", async () => {
    const order = await newOrder({ orderAmount: "12.34" })
    const info0 = await gate("GET", "get_order_info", order.code)
    assert.isNull(info0.body.result.terminal)
    const pay = expectedPay("12.34", USDT_BTC, SPREAD, 8)
    const fee = expectedFee(pay, "0.00001", "0.5", 8)
    const started = await gate("POST", "order_start", order.code, { tokenNetworkId: t.btc })
    assert.strictEqual(started.status, 200, JSON.stringify(started.body))
    const snapshot = {
      state: "Started",
      stateCode: 2,
      typeNetwork: 1,
      payCurrency: "BTC",
      payAmount: pay.toFixed(),
      fee: fee.toFixed(),
      totalToPay: pay.plus(fee).toFixed(),
      rate: USDT_BTC,
      spreadPct: SPREAD
    }
    assert.deepInclude(started.body.result, snapshot)
    assert.deepInclude(started.body.result.terminal, { id: t.btc, currency: "BTC", available: true })
    assert.deepStrictEqual(started.body.result.terminal.quote, {
      payAmount: snapshot.payAmount,
      fee: snapshot.fee,
      totalToPay: snapshot.totalToPay,
      rate: USDT_BTC
    })
    const view = await merchantCall("GET", `get_app_payment?id=${order.id}`)
    assert.deepInclude(view.body.result, {
      terminalId: t.btc,
      paymentMethod: "CryptoTransfer",
      payAmount: snapshot.payAmount,
      rate: USDT_BTC,
      spreadPct: SPREAD
    })
    // The snapshot holds when the rate moves; the other terminals are unavailable while it is locked.
    await setRates([{ from: "USDT", to: "BTC", rate: "0.00002" }])
    const offers = await offersOf(order.code)
    assert.deepStrictEqual(byId(offers, t.btc).quote.payAmount, snapshot.payAmount)
    assert.isTrue(byId(offers, t.btc).available)
    for (const id of [t.internal, t.card, t.eth]) assert.isFalse(byId(offers, id).available, id)
    const info = await gate("GET", "get_order_info", order.code)
    assert.deepInclude(info.body.result, snapshot)
    assert.strictEqual(info.body.result.terminal.id, t.btc)
    const again = await gate("POST", "order_start", order.code, { tokenNetworkId: t.btc })
    assert.deepInclude(again.body.result, snapshot)
    assertRejected(
      await gate("POST", "order_start", order.code, { tokenNetworkId: t.internal }),
      400,
      errorCode.TerminalLocked
    )
    const payer = await client.party({ fund: "100" })
    assertRejected(await gate("POST", "pay_internal", order.code, {}, payer.sid), 400, errorCode.TerminalLocked)
    await setRates([{ from: "USDT", to: "BTC", rate: USDT_BTC }])
    const canceled = await merchantCall("POST", `cancel_payment_order?id=${order.id}`)
    assert.deepInclude(canceled.body.result, { state: "Canceled" })
    const after = await offersOf(order.code)
    for (const o of after) assert.isFalse(o.available, o.id)
  })

  it("a card terminal locks its EUR price the same way", async () => {
    const order = await newOrder({ orderAmount: "25" })
    const pay = expectedPay("25", USDT_EUR, SPREAD, 2)
    const fee = expectedFee(pay, "0.3", "2.5", 2)
    const started = await gate("POST", "payment_order_start", order.code, { tokenNetworkId: t.card })
    assert.strictEqual(started.status, 200, JSON.stringify(started.body))
    assert.deepInclude(started.body.result, {
      typeNetwork: 100,
      payCurrency: "EUR",
      payAmount: pay.toFixed(),
      fee: fee.toFixed(),
      totalToPay: pay.plus(fee).toFixed(),
      rate: USDT_EUR,
      spreadPct: SPREAD
    })
    const view = await merchantCall("GET", `get_app_payment?id=${order.id}`)
    assert.strictEqual(view.body.result.paymentMethod, "CardAcquiring")
  })

  it("pay_internal answers the internal terminal as offered, and moves orderAmount + the group's fee", async () => {
    const order = await newOrder()
    const payer = await client.party({ fund: "50" })
    const before = { merchant: await client.bucketsOf(s.merchant), fees: await client.bucketsOf(s.fees) }
    const paid = await gate("POST", "pay_internal", order.code, {}, payer.sid)
    assert.strictEqual(paid.status, 200, JSON.stringify(paid.body))
    assert.deepInclude(paid.body.result, { state: "Paid", payAmount: "10", fee: "0.3", totalToPay: "10.3" })
    assert.deepInclude(paid.body.result.terminal, { id: t.internal, requiresAuth: true, available: false })
    assert.deepStrictEqual(paid.body.result.terminal.quote, {
      payAmount: "10",
      fee: "0.3",
      totalToPay: "10.3",
      rate: "1"
    })
    assert.strictEqual((await client.bucketsOf(payer)).free, 39.7)
    assert.strictEqual((await client.bucketsOf(s.merchant)).free, before.merchant.free + 10)
    assert.strictEqual((await client.bucketsOf(s.fees)).free, Number(new BigNumber(before.fees.free).plus("0.3")))
  })
})

describe("available tells the truth", () => {
  it("a crypto Deposit terminal without addresses (no XPUB; a memo network without defaultHotAddress) is offered available: false; order_start 10303, pay_crypto 10202", async () => {
    const order = await newOrder()
    const bsc = (
      await addCryptoTerminal(client, {
        typeNetwork: 4,
        currencyId: "USDT",
        decimals: 6,
        flags: 1
      })
    ).id
    const ton = (
      await addCryptoTerminal(client, {
        typeNetwork: 6,
        typeContract: 0,
        addressContract: null,
        currencyId: "USDT",
        decimals: 6,
        flags: 1
      })
    ).id
    const offers = await offersOf(order.code)
    assert.strictEqual(byId(offers, bsc).available, false, "BNB Smart Chain: XPUB_BNB_SMART_CHAIN is unset")
    assert.strictEqual(byId(offers, ton).available, false, "Ton: no defaultHotAddress for the order's memo")
    assert.strictEqual(byId(offers, t.btc).available, true, "Bitcoin: XPUB_BITCOIN is set (and a rate exists)")
    for (const terminal of [bsc, ton]) {
      assertRejected(await gate("POST", "order_start", order.code, { tokenNetworkId: terminal }), 400, 10303)
      assertRejected(
        await gate("POST", "pay_crypto", order.code, { tokenNetworkId: terminal }),
        400,
        errorCode.AddressesUnavailable
      )
    }
    const info = await gate("GET", "get_order_info", order.code)
    assert.deepInclude(info.body.result, { state: "Created", terminal: null, address: null })
  })
})
