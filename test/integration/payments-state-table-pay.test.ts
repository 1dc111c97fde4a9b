/**
 * The state-table tour, PaymentOrders (CONTRACT C16 "Order states"; issue #14's proof "every row of C16's
 * state table over HTTP, with balances of payer, merchant, Fees and Broker after each step and the ledger
 * audit sound"): one `it` per row, driven only over HTTP — merchant /payorders/v1, the gate /payment/v1,
 * the scanner's tx_list_push for crypto incomes — asserting after every step the order's
 * state/stateCode/txState and every bucket (free, lock_in, lock_out) of the payer, the merchant, Fees (−2,
 * the default profit wallet of this file's Payment and Refund tariffs), Broker (−3) and Treasury (−1)
 * where money enters (test/support/PaymentTour.ts; system wallets are read by SQL on a real PostgreSQL
 * only), then the ledger audit. Payout rows: payments-state-table-payout.test.ts.
 *
 * The card rows (pay_card, acquirer Approved / Declined, expiry held by a Pending session, across
 * currencies too) are in payments-state-table-card.test.ts; session expiry in payments-card-reconcile.
 */
import { assert, describe, it } from "@effect/vitest"
import { BigNumber } from "bignumber.js"
import { addCryptoTerminal, blockOk } from "../support/Chain.ts"
import type { Party } from "../support/Client.ts"
import { xpubEnv } from "../support/CryptoAddresses.ts"
import { assertRejected, errorCode, serviceForFile } from "../support/Fixtures.ts"
import { merchantOf } from "../support/Merchant.ts"
import { assertState, type Column, makeTour } from "../support/PaymentTour.ts"

const { client, service } = serviceForFile({ env: xpubEnv })
const shop = merchantOf(client)
const tour = makeTour(client, service)

const USDT_BTC = "0.00001536"
const SPREAD = "1" // PAYMENT_FX_SPREAD_PCT default

let merchant: Party
let payer: Party
let app: { appId: string; pkey: string }
let internal: string
let next = 0

const setup = async () => {
  if (merchant !== undefined) return
  merchant = await client.party({ fund: "100" })
  payer = await client.party({ fund: "100" })
  app = await shop.createApp(merchant.id, "Tour shop")
  // No profitWalletId: every fee goes to the default profit wallet, Fees (−2).
  await client.setTariffs([
    { txClass: "Payment", currency: "USDT", feeFixed: "0.5", feePercent: "0" },
    { txClass: "Payment", currency: "ETH", feeFixed: "0.01", feePercent: "0" },
    { txClass: "Payment", currency: "BTC", feeFixed: "0.00001", feePercent: "0" },
    { txClass: "Refund", currency: "USDT", feeFixed: "0.1", feePercent: "0" }
  ])
  const rates = await client.priv("POST", "set_rates", [{ from: "USDT", to: "BTC", rate: USDT_BTC }])
  assert.strictEqual(rates.status, 200, JSON.stringify(rates.body))
  const networks = await client.priv("GET", "tokens_networks")
  internal = String((networks.body.result as Array<any>).find((t) => t.typeNetwork === 240).id)
}

const merchantCall = (method: string, action: string, body?: unknown) => shop.call(app, method, action, body)

const gate = (action: string, code: string, body?: unknown, sid?: string, method = "POST") =>
  shop.gate(method, action, code, body, sid)

const gateOk = (action: string, code: string, body?: unknown, sid?: string, method = "POST") =>
  shop.gateOk(method, action, code, body, sid)

const info = (code: string) => gateOk("get_order_info", code, undefined, undefined, "GET")

const newOrder = async (body: Record<string, unknown> = {}) => {
  await setup()
  const reply = await merchantCall("POST", "put_payment_order", {
    currency: "USDT",
    orderAmount: "10",
    externalId: `tour-${next++}`,
    ...body
  })
  return shop.ok(reply) as { code: string; id: string; state: string; stateCode: number; txState: number }
}

/** The columns of a USDT order paid from a wallet. */
const usdtColumns = (): Array<Column> => [
  { name: "payer", who: payer, currency: "USDT" },
  { name: "merchant", who: merchant, currency: "USDT" },
  { name: "Fees", who: "Fees", currency: "USDT" },
  { name: "Broker", who: "Broker", currency: "USDT" }
]

/** The columns of a crypto order: the merchant and the system wallets in the pay currency too. */
const cryptoColumns = (payCurrency: string): Array<Column> => [
  { name: "merchant", who: merchant, currency: "USDT" },
  { name: `merchant ${payCurrency}`, who: merchant, currency: payCurrency },
  { name: `Treasury ${payCurrency}`, who: "Treasury", currency: payCurrency },
  { name: `Fees ${payCurrency}`, who: "Fees", currency: payCurrency },
  { name: `Broker ${payCurrency}`, who: "Broker", currency: payCurrency },
  { name: "Broker", who: "Broker", currency: "USDT" }
]

/** One block on `terminal` (heights from 1, one fork per terminal). */
const block = (terminal: string, height: number, items: Array<{ txHash: string; to: string; amount: string }> = []) =>
  blockOk(client, terminal, `h${terminal}x`, height, items)

describe("C16 order state table, PaymentOrder rows, over HTTP", () => {
  it("- → Created: put_payment_order; nothing moves", async () => {
    await setup()
    const t = await tour.start(usdtColumns())
    const order = await newOrder()
    assertState(order, "Created", 1, 1)
    await t.step("put_payment_order")
  })

  it("Created → Started: order_start snapshots the fee; nothing moves", async () => {
    const order = await newOrder()
    const t = await tour.start(usdtColumns())
    const started = await gateOk("order_start", order.code, { tokenNetworkId: internal })
    assertState(started, "Started", 2, 1)
    assert.deepInclude(started, { payCurrency: "USDT", payAmount: "10", fee: "0.5", totalToPay: "10.5" })
    await t.step("order_start")
  })

  it("Started → Started: order_start on the same terminal keeps the snapshot; nothing moves", async () => {
    const order = await newOrder()
    const first = await gateOk("order_start", order.code, { tokenNetworkId: internal })
    const t = await tour.start(usdtColumns())
    const again = await gateOk("order_start", order.code, { tokenNetworkId: internal })
    assertState(again, "Started", 2, 1)
    assert.deepInclude(again, { payAmount: first.payAmount, fee: first.fee, totalToPay: first.totalToPay })
    await t.step("order_start again")
  })

  it("Started → unchanged, 10304: order_start or a pay action for another terminal; nothing moves", async () => {
    const order = await newOrder()
    await gateOk("order_start", order.code, { tokenNetworkId: internal })
    const eth = await addCryptoTerminal(client, { confirmations: 3 })
    const t = await tour.start(usdtColumns())
    assertRejected(await gate("order_start", order.code, { tokenNetworkId: eth.id }), 400, errorCode.TerminalLocked)
    assertRejected(await gate("pay_crypto", order.code, { tokenNetworkId: eth.id }), 400, errorCode.TerminalLocked)
    assertState(await info(order.code), "Started", 2, 1)
    await t.step("another terminal")
  })

  it("Started (internal) → Paid: pay_internal — payer −totalToPay, merchant +orderAmount, Fees +fee", async () => {
    const order = await newOrder()
    await gateOk("order_start", order.code, { tokenNetworkId: internal })
    const t = await tour.start(usdtColumns())
    assertRejected(await gate("pay_internal", order.code, {}, merchant.sid), 400, errorCode.SameAccounts)
    await t.step("10008")
    const paid = await gateOk("pay_internal", order.code, {}, payer.sid)
    assertState(paid, "Paid", 8, 8)
    await t.step("pay_internal", { payer: { free: "-10.5" }, merchant: { free: "10" }, Fees: { free: "0.5" } })
  })

  it("Started (crypto) → Started: pay_crypto gives the order's own address (a repeat the same); nothing moves", async () => {
    const eth = await addCryptoTerminal(client, { confirmations: 3 })
    const order = await newOrder({ currency: "ETH", orderAmount: "1" })
    const t = await tour.start(cryptoColumns("ETH"))
    const started = await gateOk("pay_crypto", order.code, { tokenNetworkId: eth.id })
    assertState(started, "Started", 2, 1)
    assert.deepInclude(started.address, { currency: "ETH", amount: "1.01", received: "0" })
    await t.step("pay_crypto")
    const again = await gateOk("pay_crypto", order.code, { tokenNetworkId: eth.id })
    assert.strictEqual(again.address.address, started.address.address)
    await t.step("pay_crypto again")
  })

  it("Started (crypto) → Created: cancel_crypto detaches; nothing moves", async () => {
    const eth = await addCryptoTerminal(client, { confirmations: 3 })
    const order = await newOrder({ currency: "ETH", orderAmount: "1" })
    await gateOk("pay_crypto", order.code, { tokenNetworkId: eth.id })
    const t = await tour.start(cryptoColumns("ETH"))
    const canceled = await gateOk("cancel_crypto", order.code, {})
    assertState(canceled, "Created", 1, 1)
    assert.deepInclude(canceled, { terminal: null, address: null, payAmount: null })
    await t.step("cancel_crypto")
  })

  it("Started (crypto) → Processing → Paid: income seen (Treasury → merchant lock_in), final (merchant +orderAmount, Fees +fee)", async () => {
    const eth = await addCryptoTerminal(client, { confirmations: 3 })
    const order = await newOrder({ currency: "ETH", orderAmount: "1" })
    const to = (await gateOk("pay_crypto", order.code, { tokenNetworkId: eth.id })).address.address
    const t = await tour.start(cryptoColumns("ETH"))
    await block(eth.id, 1, [{ txHash: "toureth", to, amount: "1.01" }])
    assertState(await info(order.code), "Processing", 3, 1)
    await t.step("income seen", { "Treasury ETH": { free: "-1.01" }, "merchant ETH": { lockIn: "1.01" } })
    // Processing: another terminal is still 10304, cancel_crypto 10309.
    const other = await addCryptoTerminal(client, { confirmations: 3 })
    assertRejected(await gate("order_start", order.code, { tokenNetworkId: other.id }), 400, errorCode.TerminalLocked)
    assertRejected(await gate("cancel_crypto", order.code, {}), 400, errorCode.PaymentPending)
    await block(eth.id, 2)
    assertState(await info(order.code), "Processing", 3, 1)
    await t.step("one more confirmation")
    await block(eth.id, 3)
    assertState(await info(order.code), "Paid", 8, 8)
    await t.step("final", { "merchant ETH": { lockIn: "-1.01", free: "1" }, "Fees ETH": { free: "0.01" } })
  })

  it("cross-currency crypto: a USDT order paid in BTC at rate × (1 + spread) rounded up; the Broker takes both legs", async () => {
    await setup()
    const btc = await addCryptoTerminal(client, { currencyId: "BTC", decimals: 8, confirmations: 2 })
    const order = await newOrder({ orderAmount: "10" })
    const t = await tour.start(cryptoColumns("BTC"))
    const started = await gateOk("pay_crypto", order.code, { tokenNetworkId: btc.id })
    const pay = new BigNumber("10")
      .times(USDT_BTC)
      .times(new BigNumber(100).plus(SPREAD).div(100))
      .decimalPlaces(8, BigNumber.ROUND_CEIL)
    assert.strictEqual(pay.toFixed(), "0.00015514")
    assertState(started, "Started", 2, 1)
    assert.deepInclude(started, {
      payCurrency: "BTC",
      payAmount: pay.toFixed(),
      fee: "0.00001",
      totalToPay: "0.00016514",
      rate: USDT_BTC,
      spreadPct: SPREAD
    })
    assert.deepInclude(started.address, { currency: "BTC", amount: "0.00016514" })
    await t.step("pay_crypto (BTC)")
    // 0.00000486 BTC more than totalToPay: the excess is the merchant's, in BTC.
    await block(btc.id, 1, [{ txHash: "tourbtc", to: started.address.address, amount: "0.00017" }])
    assertState(await info(order.code), "Processing", 3, 1)
    await t.step("income seen", { "Treasury BTC": { free: "-0.00017" }, "merchant BTC": { lockIn: "0.00017" } })
    await block(btc.id, 2)
    const paid = await merchantCall("GET", `get_app_payment?id=${order.id}`)
    assertState(paid.body.result, "Paid", 8, 8)
    assert.deepInclude(paid.body.result, { paidAmount: "10", payCurrency: "BTC", payAmount: "0.00015514" })
    await t.step("final", {
      merchant: { free: "10" },
      "merchant BTC": { lockIn: "-0.00017", free: "0.00000486" },
      "Fees BTC": { free: "0.00001" },
      "Broker BTC": { free: "0.00015514" },
      Broker: { free: "-10" }
    })
  })

  it("pay_crypto answers as order_start: a terminal without a rate 10303, unknown 404 10040; nothing moves", async () => {
    const usdc = await addCryptoTerminal(client, { currencyId: "USDC", decimals: 6 })
    const order = await newOrder()
    const t = await tour.start(cryptoColumns("USDC"))
    assertRejected(
      await gate("pay_crypto", order.code, { tokenNetworkId: usdc.id }),
      400,
      errorCode.TerminalNotAvailable
    )
    assertRejected(
      await gate("order_start", order.code, { tokenNetworkId: usdc.id }),
      400,
      errorCode.TerminalNotAvailable
    )
    assertRejected(await gate("pay_crypto", order.code, { tokenNetworkId: "999999" }), 404, errorCode.TerminalNotFound)
    assertState(await info(order.code), "Created", 1, 1)
    await t.step("refused")
  })

  it("Created, Started → Expired: now > expiresAt (a read expires it; an action answers 10301); nothing moves", async () => {
    const created = await newOrder({ expiresInSeconds: 1 })
    const started = await newOrder({ expiresInSeconds: 1 })
    await gateOk("order_start", started.code, { tokenNetworkId: internal })
    const t = await tour.start(usdtColumns())
    await new Promise((r) => setTimeout(r, 1_200))
    assertState(await info(created.code), "Expired", 16, 16, "Created → Expired")
    assertRejected(await gate("pay_internal", started.code, {}, payer.sid), 400, errorCode.PaymentOrderExpired)
    assertState(await info(started.code), "Expired", 16, 16, "Started → Expired")
    await t.step("expired")
  })

  it("Created, Started → Canceled: cancel_payment_order; nothing moves", async () => {
    const created = await newOrder()
    const started = await newOrder()
    await gateOk("order_start", started.code, { tokenNetworkId: internal })
    const t = await tour.start(usdtColumns())
    for (const order of [created, started]) {
      const reply = await merchantCall("POST", `cancel_payment_order?id=${order.id}`)
      assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
      assertState(reply.body.result, "Canceled", 17, 16)
    }
    await t.step("canceled")
  })

  it("Paid → PartiallyRefunded → Refunded: refund_payment — merchant −(amount + fee), payer +amount, Fees +fee", async () => {
    const order = await newOrder()
    await gateOk("pay_internal", order.code, {}, payer.sid)
    const t = await tour.start(usdtColumns())
    const refund = (amount: string, externalId: string) =>
      merchantCall("POST", "refund_payment", { id: order.id, amount, externalId })
    const view = async () => (await merchantCall("GET", `get_app_payment?id=${order.id}`)).body.result
    assert.strictEqual((await refund("4", `r-${order.id}-1`)).status, 200)
    assertState(await view(), "PartiallyRefunded", 9, 8)
    await t.step("refund 4", { merchant: { free: "-4.1" }, payer: { free: "4" }, Fees: { free: "0.1" } })
    assert.strictEqual((await refund("6", `r-${order.id}-2`)).status, 200)
    assertState(await view(), "Refunded", 10, 8)
    assert.strictEqual((await view()).refundedAmount, "10")
    await t.step("refund 6", { merchant: { free: "-6.1" }, payer: { free: "6" }, Fees: { free: "0.1" } })
    assertRejected(await refund("1", `r-${order.id}-3`), 400, errorCode.RefundNotAllowed)
    await t.step("refund of a Refunded order")
  })
})
