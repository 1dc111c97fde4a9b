/**
 * Offers for payment orders (CONTRACT C16 "Payment gate → get_terminals", issue #14): the terminals a
 * PaymentOrder is offered on with fees and bounds from the merchant group's Payment tariff rules, quotes
 * (cross-currency through C14 rates and PAYMENT_FX_SPREAD_PCT, checked against an independent bignumber
 * computation), `available` (bounds, rates, preselection), order_start's snapshot on a cross-currency
 * terminal, get_order_info's `terminal`, preselection on put_payment_order and every error it answers,
 * and the private create_payment_order / get_payment_order_info / get_payment_terminals. TransferOrders
 * have no put_transfer_order yet, so only PaymentOrders are offered here. The ledger audit runs after
 * each test (serviceForFile).
 */
import { assert, describe, it } from "@effect/vitest"
import { BigNumber } from "bignumber.js"
import type { Party } from "../support/Client.ts"
import { assertRejected, errorCode, serviceForFile } from "../support/Fixtures.ts"
import { merchantOf } from "../support/Merchant.ts"

const { client } = serviceForFile()
const shop = merchantOf(client)

const SPREAD = "1" // PAYMENT_FX_SPREAD_PCT default
const USDT_BTC = "0.00001536"
const USDT_EUR = "0.92"

let merchant: Party
let fees: Party
let app: { appId: string; pkey: string }
const t: Record<string, string> = {}
let next = 0

const addNetwork = async (body: Record<string, unknown>) => {
  const reply = await client.priv("POST", "add_network", {
    addressContract: null,
    defaultHotAddress: null,
    defaultSystemWalletId: null,
    walletGroups: [],
    ...body
  })
  assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
  return String(reply.body.result.id)
}

const setRates = async (rates: Array<{ from: string; to: string; rate: string }>) => {
  const reply = await client.priv("POST", "set_rates", rates)
  assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
}

const setup = async () => {
  if (merchant !== undefined) return
  ;({ merchant, fees, app } = await shop.open("Offers shop", { extra: { walletGroup: 3 } }))
  await client.setTariffs([
    // Any group: 0.5 fixed, 1–500 USDT.
    {
      txClass: "Payment",
      currency: "USDT",
      feeFixed: "0.5",
      feePercent: "0",
      minAmount: "1",
      maxAmount: "500",
      profitWalletId: fees.id
    },
    // The merchant's group 3 (more specific): 0.2 + 1 %, 5–1000 USDT.
    {
      txClass: "Payment",
      currency: "USDT",
      walletGroup: 3,
      feeFixed: "0.2",
      feePercent: "1",
      minAmount: "5",
      maxAmount: "1000",
      profitWalletId: fees.id
    },
    // Another group: must not count for this merchant (its bounds would widen the range).
    {
      txClass: "Payment",
      currency: "USDT",
      walletGroup: 7,
      feeFixed: "9",
      feePercent: "0",
      minAmount: "0.01",
      maxAmount: "100000"
    },
    // Another class: ignored.
    { txClass: "Withdraw", currency: "BTC", feeFixed: "0.1", feePercent: "0", minAmount: "0.5" },
    { txClass: "Payment", currency: "BTC", feeFixed: "0.00001", feePercent: "0.5", profitWalletId: fees.id },
    {
      txClass: "Payment",
      currency: "EUR",
      feeFixed: "0.3",
      feePercent: "2.5",
      minAmount: "1",
      maxAmount: "10000",
      profitWalletId: fees.id
    }
  ])
  const networks = await client.priv("GET", "tokens_networks")
  t.internal = String((networks.body.result as Array<any>).find((x) => x.typeNetwork === 240).id)
  t.btc = await addNetwork({
    typeNetwork: 1,
    typeContract: 0,
    currencyId: "BTC",
    decimals: 8,
    flags: 3,
    displayName: "Bitcoin",
    iconCode: "btc",
    priority: 30
  })
  t.eth = await addNetwork({
    typeNetwork: 2,
    typeContract: 0,
    currencyId: "ETH",
    decimals: 18,
    flags: 1,
    displayName: "Ether",
    priority: 20
  })
  t.card = await addNetwork({
    typeNetwork: 100,
    typeContract: 0,
    currencyId: "EUR",
    decimals: 2,
    flags: 1,
    displayName: "Card",
    iconCode: "card",
    priority: 10
  })
  t.usdc = await addNetwork({
    typeNetwork: 5,
    typeContract: 0,
    currencyId: "USDC",
    decimals: 6,
    flags: 1,
    displayName: "USDC on Solana"
  })
  // Not offered for payments: Hidden, Withdraw-only, a bank wire.
  t.hidden = await addNetwork({ typeNetwork: 3, typeContract: 0, currencyId: "USDT", decimals: 6, flags: 5 })
  t.withdrawOnly = await addNetwork({ typeNetwork: 4, typeContract: 0, currencyId: "USDT", decimals: 6, flags: 2 })
  t.wire = await addNetwork({ typeNetwork: 101, typeContract: 0, currencyId: "EUR", decimals: 2, flags: 1 })
  await setRates([
    { from: "USDT", to: "BTC", rate: USDT_BTC },
    { from: "USDT", to: "EUR", rate: USDT_EUR }
  ])
}

const merchantCall = (method: string, action: string, body?: unknown) => shop.call(app, method, action, body)

const put = async (body: Record<string, unknown> = {}) => {
  await setup()
  return merchantCall("POST", "put_payment_order", {
    currency: "USDT",
    orderAmount: "10",
    externalId: `offer-${next++}`,
    ...body
  })
}

const newOrder = async (body: Record<string, unknown> = {}) => shop.ok(await put(body))

const gate = shop.gate

const offersOf = async (code: string) => {
  const reply = await gate("GET", "get_terminals", code)
  assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
  return reply.body.result as Array<any>
}
const byId = (offers: Array<any>, id: string) => offers.find((o) => o.id === id)

/** The independent price rule: amount × rate × (1 + spread/100), rounded up to the pay decimals. */
const expectedPay = (amount: string, rate: string, spread: string, decimals: number) =>
  new BigNumber(amount)
    .times(rate)
    .times(new BigNumber(100).plus(spread).div(100))
    .decimalPlaces(decimals, BigNumber.ROUND_CEIL)
/** fee = fixed + pay × percent / 100, rounded up. */
const expectedFee = (pay: BigNumber, fixed: string, percent: string, decimals: number) =>
  new BigNumber(fixed).plus(pay.times(percent).div(100)).decimalPlaces(decimals, BigNumber.ROUND_CEIL)

describe("get_terminals?code= for a PaymentOrder", () => {
  it("offers the internal terminal and the Deposit, non-Hidden card and crypto terminals, with fees, bounds and quotes", async () => {
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

  it("available follows the bounds of the merchant group's rules; outside them order_start answers 10303", async () => {
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
    const before = { merchant: await client.bucketsOf(merchant), fees: await client.bucketsOf(fees) }
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
    assert.strictEqual((await client.bucketsOf(merchant)).free, before.merchant.free + 10)
    assert.strictEqual((await client.bucketsOf(fees)).free, Number(new BigNumber(before.fees.free).plus("0.3")))
  })
})

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
    const body = { terminalId: t.btc, payAmount: "0.0002", externalId: `fixed-${next++}` }
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
    // A fixed price needs no rate: ETH at a price the merchant names.
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
  it("create_payment_order: put's body + appId, same idempotency; unknown app 404 10308", async () => {
    await setup()
    const body = { appId: app.appId, currency: "USDT", orderAmount: "7", externalId: `private-${next++}` }
    const created = await client.priv("POST", "create_payment_order", body)
    assert.strictEqual(created.status, 200, JSON.stringify(created.body))
    assert.deepInclude(created.body.result, { appId: app.appId, orderAmount: "7", state: "Created", replayed: false })
    const again = await client.priv("POST", "create_payment_order", { ...body, orderAmount: 7.0 })
    assert.deepInclude(again.body.result, { id: created.body.result.id, replayed: true })
    // The merchant's put of the same externalId is the same order.
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
      externalId: `private-${next++}`,
      terminalId: t.card
    })
    assert.deepInclude(preset.body.result, { terminalId: t.card, payCurrency: "EUR" })
    assertRejected(
      await client.priv("POST", "create_payment_order", {
        ...body,
        externalId: `private-${next++}`,
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
