/**
 * Crypto refunds of a cross-currency order over HTTP (CONTRACT C16 "Refunds"; docs/PAYMENTS.md "Crypto
 * refunds"): a USDT order paid in BTC on a cross-currency crypto terminal (the Broker took the payment's
 * legs), refunded partially with refund_payment. The merchant pays amount + fee in USDT (free →
 * lock_out while Pending); the refund's withdrawal pays payoutAmount = amount × payAmount / orderAmount
 * rounded down, in BTC: the signer's queue shows exactly that. Final → the merchant's lock_out
 * released, Broker +amount USDT −payoutAmount BTC, Treasury +payoutAmount BTC, the fee wallet +fee USDT,
 * the refund Finished, the order PartiallyRefunded; the signer's failure or the merchant's cancel of
 * the Queued withdrawal → amount + fee back in the merchant's free (USDT), the Broker untouched. Every
 * bucket of every column is checked after each step with the ledger audit (test/support/PaymentTour.ts;
 * the Treasury and Broker columns are read by SQL on a real PostgreSQL only).
 */
import { assert, describe, it } from "@effect/vitest"
import { BigNumber } from "bignumber.js"
import { addCryptoTerminal, blockOk, queuedFor, someEvmAddress } from "../support/Chain.ts"
import type { Party } from "../support/Client.ts"
import { xpubEnv } from "../support/CryptoAddresses.ts"
import { serviceForFile } from "../support/Fixtures.ts"
import { merchantOf } from "../support/Merchant.ts"
import { type Column, makeTour } from "../support/PaymentTour.ts"

const { client, service } = serviceForFile({ env: xpubEnv })
const tour = makeTour(client, service)
const shop = merchantOf(client)

const USDT_BTC = "0.00001536"
/** 10 USDT × 0.00001536 × 1.01 rounded up (payments-state-table-pay.test.ts proves the quote). */
const PAY_AMOUNT = "0.00015514"

let merchant: Party
let fees: Party
let app: { appId: string; pkey: string }
let next = 0

const setup = async () => {
  if (merchant !== undefined) return
  ;({ merchant, fees, app } = await shop.open("FX refund shop", { fund: { USDT: "100" } }))
  await client.setTariffs([
    { txClass: "Payment", currency: "BTC", feeFixed: "0.00001", feePercent: "0", profitWalletId: fees.id },
    { txClass: "Refund", currency: "USDT", feeFixed: "0.1", feePercent: "0", profitWalletId: fees.id }
  ])
  const rates = await client.priv("POST", "set_rates", [{ from: "USDT", to: "BTC", rate: USDT_BTC }])
  assert.strictEqual(rates.status, 200, JSON.stringify(rates.body))
}

const merchantCall = (method: string, action: string, body?: unknown) => shop.call(app, method, action, body)

const view = (id: string) => shop.view(app, id)

const refundOk = async (orderId: string, body: Record<string, unknown>) => {
  const reply = await merchantCall("POST", "refund_payment", {
    id: orderId,
    externalId: `fx-refund-${next++}`,
    ...body
  })
  assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
  return reply.body.result
}

const status = (refundId: string) => shop.refundStatus(app, refundId)

/** The signer's queue item for `address` on `terminal` (exactly one; a Queued one is handed off). */
const queued = (terminal: string, address: string) => queuedFor(client, terminal, address)

/** One block on `terminal` (heights from 1, one fork per terminal). */
const block = (terminal: string, height: number, items: Array<Record<string, unknown>> = []) =>
  blockOk(client, terminal, `fx${terminal}x`, height, items as any)

/** Every column a cross-currency refund could move. */
const columns = (): Array<Column> => [
  { name: "merchant", who: merchant, currency: "USDT" },
  { name: "merchant BTC", who: merchant, currency: "BTC" },
  { name: "fees", who: fees, currency: "USDT" },
  { name: "fees BTC", who: fees, currency: "BTC" },
  { name: "Treasury", who: "Treasury", currency: "USDT" },
  { name: "Treasury BTC", who: "Treasury", currency: "BTC" },
  { name: "Broker", who: "Broker", currency: "USDT" },
  { name: "Broker BTC", who: "Broker", currency: "BTC" }
]

/**
 * A BTC terminal (2 confirmations) and a 10 USDT order paid on it with exactly totalToPay (heights 1–2);
 * the tour starts after the payment.
 */
const paidOrder = async () => {
  await setup()
  const btc = await addCryptoTerminal(client, { currencyId: "BTC", decimals: 8, confirmations: 2 })
  const put = await merchantCall("POST", "put_payment_order", {
    currency: "USDT",
    orderAmount: "10",
    externalId: `fx-order-${next++}`
  })
  assert.strictEqual(put.status, 200, JSON.stringify(put.body))
  const order = put.body.result as { id: string; code: string }
  const started = await client.call("POST", `/payment/v1/pay_crypto?code=${encodeURIComponent(order.code)}`, {
    body: { tokenNetworkId: btc.id }
  })
  assert.strictEqual(started.status, 200, JSON.stringify(started.body))
  assert.deepInclude(started.body.result, { payCurrency: "BTC", payAmount: PAY_AMOUNT, totalToPay: "0.00016514" })
  await block(btc.id, 1, [{ txHash: `fxpay${next}`, to: started.body.result.address.address, amount: "0.00016514" }])
  await block(btc.id, 2)
  assert.deepInclude(await view(order.id), { state: "Paid", paidAmount: "10", payCurrency: "BTC" })
  return { terminal: btc.id as string, order, t: await tour.start(columns()) }
}

/** payoutAmount = amount × payAmount / orderAmount, rounded down to BTC's 8 decimals. */
const payoutOf = (amount: string) =>
  new BigNumber(amount).times(PAY_AMOUNT).div("10").decimalPlaces(8, BigNumber.ROUND_DOWN).toFixed()

describe("refund_payment of a USDT order paid in BTC", () => {
  it("partial: Pending (USDT locked), the signer pays payoutAmount BTC; final → Broker legs, Treasury BTC, fee USDT", async () => {
    const { terminal, order, t } = await paidOrder()
    const address = someEvmAddress()
    const payout = payoutOf("4")
    assert.strictEqual(payout, "0.00006205", "4 × 0.00015514 / 10 = 0.000062056, rounded down")
    const pending = await refundOk(order.id, { amount: "4", refundAddress: address })
    assert.deepInclude(pending, {
      amount: "4",
      fee: "0.1",
      currency: "USDT",
      state: "Pending",
      stateCode: 1,
      txState: 1,
      destination: "Crypto",
      payoutAmount: payout,
      payoutCurrency: "BTC"
    })
    await t.step("refund Pending", { merchant: { free: "-4.1", lockOut: "4.1" } })
    assert.deepInclude(await view(order.id), { state: "Paid", refundedAmount: "0" })

    const item = await queued(terminal, address)
    assert.deepInclude(item, { kind: "Refund", amount: payout, currency: "BTC", memo: null })
    const sent = await client.priv("POST", "tx_send_report", { txId: item.txId, result: "broadcast", txHash: "fxr1" })
    assert.strictEqual(sent.status, 200, JSON.stringify(sent.body))
    await block(terminal, 3, [{ txHash: "fxr1", direction: "out", to: address, amount: payout, txId: item.txId }])
    assert.strictEqual((await status(pending.refundId)).state, "Pending", "bound, not final")
    await t.step("withdrawal bound")
    await block(terminal, 4)
    const finished = await status(pending.refundId)
    assert.deepInclude(finished, { state: "Finished", stateCode: 8, txState: 8, payoutAmount: payout })
    assert.isString(finished.finishedAt)
    assert.deepInclude(await view(order.id), { state: "PartiallyRefunded", stateCode: 9, refundedAmount: "4" })
    await t.step("refund final", {
      merchant: { lockOut: "-4.1" },
      fees: { free: "0.1" },
      Broker: { free: "4" },
      "Broker BTC": { free: `-${payout}` },
      "Treasury BTC": { free: payout }
    })
  })

  it("the signer's failure → Failed: amount + fee back in the merchant's free (USDT), the Broker untouched", async () => {
    const { terminal, order, t } = await paidOrder()
    const address = someEvmAddress()
    const pending = await refundOk(order.id, { amount: "3", refundAddress: address })
    assert.deepInclude(pending, { payoutAmount: payoutOf("3"), payoutCurrency: "BTC", state: "Pending" })
    await t.step("refund Pending", { merchant: { free: "-3.1", lockOut: "3.1" } })
    const item = await queued(terminal, address)
    assert.deepInclude(item, { amount: payoutOf("3"), currency: "BTC" })
    const failed = await client.priv("POST", "tx_send_report", { txId: item.txId, result: "failed" })
    assert.strictEqual(failed.status, 200, JSON.stringify(failed.body))
    assert.deepInclude(await status(pending.refundId), { state: "Failed", stateCode: 16, txState: 16 })
    assert.deepInclude(await view(order.id), { state: "Paid", refundedAmount: "0" })
    await t.step("refund failed", { merchant: { free: "3.1", lockOut: "-3.1" } })
    // Released: the whole order is refundable again.
    assert.deepInclude(await refundOk(order.id, { refundAddress: address }), { amount: "10", state: "Pending" })
    await t.step("the whole order Pending", { merchant: { free: "-10.1", lockOut: "10.1" } })
  })

  it("the merchant cancels the Queued BTC withdrawal → Failed, USDT back, the Broker untouched", async () => {
    const { order, t } = await paidOrder()
    const pending = await refundOk(order.id, { amount: "2", refundAddress: someEvmAddress() })
    await t.step("refund Pending", { merchant: { free: "-2.1", lockOut: "2.1" } })
    const history = await client.call("GET", "/core/v1/wallet/get_history_transactions?limit=100&typeTx=19", {
      sid: merchant.sid
    })
    const payout = payoutOf("2")
    const outcome = ((history.body.result ?? []) as Array<any>).find(
      (r) => r.currency === "BTC" && new BigNumber(r.amount).eq(payout)
    )
    assert.isDefined(outcome, JSON.stringify(history.body))
    const canceled = await client.call("POST", `/core/v1/wallet/cancel_tx?id=${outcome.id}`, {
      sid: merchant.sid
    })
    assert.strictEqual(canceled.status, 200, JSON.stringify(canceled.body))
    assert.deepInclude(await status(pending.refundId), { state: "Failed", stateCode: 16 })
    await t.step("withdrawal cancelled", { merchant: { free: "2.1", lockOut: "-2.1" } })
  })
})
