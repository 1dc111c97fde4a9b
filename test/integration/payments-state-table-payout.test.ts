/**
 * The state-table tour, TransferOrder rows (CONTRACT C16 "Order states"; the PaymentOrder rows and the
 * rows covered only by the engine tests are listed in payments-state-table-pay.test.ts): one `it` per
 * row, over HTTP only — put_transfer_order, the gate's pay_transfer, the signer's list_txs_to_send /
 * tx_send_report and the scanner's tx_list_push for a crypto payout — asserting after every step the
 * order's state/stateCode/txState and every bucket of the merchant, the recipient, Fees (−2, the default
 * profit wallet of this file's Payout tariff), Broker (−3) and Treasury (−1, where the payout leaves)
 * (test/support/PaymentTour.ts), then the ledger audit.
 */
import { assert, describe, it } from "@effect/vitest"
import { addCryptoTerminal, blockOk, emptyBlocks, someEvmAddress } from "../support/Chain.ts"
import type { Party } from "../support/Client.ts"
import { assertRejected, errorCode, serviceForFile } from "../support/Fixtures.ts"
import { merchantOf } from "../support/Merchant.ts"
import { assertState, type Column, makeTour } from "../support/PaymentTour.ts"

const { client, service } = serviceForFile()
const tour = makeTour(client, service)
const shop = merchantOf(client)

let merchant: Party
let recipient: Party
let app: { appId: string; pkey: string }
let next = 0

const setup = async () => {
  if (merchant !== undefined) return
  ;({ merchant, fees: recipient, app } = await shop.open("Tour payouts", { fund: "100" }))
  // No profitWalletId: the Payout fee goes to the default profit wallet, Fees (−2).
  await client.setTariffs([{ txClass: "Payout", currency: "USDT", feeFixed: "1", feePercent: "0" }])
}

const merchantCall = (method: string, action: string, body?: unknown) => shop.call(app, method, action, body)

const view = (id: string) => shop.view(app, id)

const payTransfer = (code: string, body: Record<string, unknown>) =>
  client.call("POST", `/payment/v1/pay_transfer?code=${encodeURIComponent(code)}`, { body })

const columns = (): Array<Column> => [
  { name: "merchant", who: merchant, currency: "USDT" },
  { name: "recipient", who: recipient, currency: "USDT" },
  { name: "Fees", who: "Fees", currency: "USDT" },
  { name: "Broker", who: "Broker", currency: "USDT" },
  { name: "Treasury", who: "Treasury", currency: "USDT" }
]

/** put_transfer_order of 10 USDT (fee 1): reserves 11. */
const newPayout = async (body: Record<string, unknown> = {}) => {
  await setup()
  const reply = await merchantCall("POST", "put_transfer_order", {
    currency: "USDT",
    orderAmount: "10",
    externalId: `tour-payout-${next++}`,
    ...body
  })
  return shop.ok(reply) as { id: string; code: string; state: string; stateCode: number; txState: number }
}

const reserved = { merchant: { free: "-11", lockOut: "11" } }
const released = { merchant: { free: "11", lockOut: "-11" } }

/** A crypto payout on a fresh USDT Withdraw terminal: Processing, its withdrawal queued for the signer. */
const cryptoPayout = async (t: Awaited<ReturnType<typeof tour.start>>) => {
  const terminal = (await addCryptoTerminal(client, { currencyId: "USDT", decimals: 6, flags: 2, confirmations: 3 })).id
  const order = await newPayout()
  await t.step("put_transfer_order", reserved)
  const address = someEvmAddress()
  const reply = await payTransfer(order.code, { tokenNetworkId: terminal, recipient: address })
  assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
  assertState(reply.body.result, "Processing", 3, 1)
  await t.step("pay_transfer (crypto): the reserve stays in lock_out")
  const listed = await client.priv("GET", `list_txs_to_send?tokenNetwork=${terminal}&limit=1000`)
  const withdrawal = (listed.body.result as Array<any>).find((i) => i.toAddress === address)
  assert.deepInclude(withdrawal, { kind: "Withdrawal", amount: "10", currency: "USDT" })
  return { terminal, order, address, withdrawal: withdrawal.txId as string }
}

describe("C16 order state table, TransferOrder rows, over HTTP", () => {
  it("- → Created: put_transfer_order reserves orderAmount + fee in lock_out; 10002 when free is short", async () => {
    await setup()
    const t = await tour.start(columns())
    const order = await newPayout()
    assertState(order, "Created", 1, 1)
    await t.step("put_transfer_order", reserved)
    const short = await merchantCall("POST", "put_transfer_order", {
      currency: "USDT",
      orderAmount: "1000",
      externalId: `tour-payout-${next++}`
    })
    assertRejected(short, 400, errorCode.BalanceNotEnough)
    await t.step("10002")
  })

  it("Started (payout, internal) → Paid: pay_transfer — lock_out −(amount + fee), recipient +amount, Fees +fee", async () => {
    await setup()
    const t = await tour.start(columns())
    const order = await newPayout()
    await t.step("put_transfer_order", reserved)
    assertRejected(await payTransfer(order.code, { recipient: merchant.id }), 400, errorCode.SameAccounts)
    await t.step("10008")
    const reply = await payTransfer(order.code, { recipient: recipient.id })
    assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
    assertState(reply.body.result, "Paid", 8, 8)
    await t.step("pay_transfer", { merchant: { lockOut: "-11" }, recipient: { free: "10" }, Fees: { free: "1" } })
  })

  it("Started (payout, crypto) → Processing → Paid: the withdrawal final on chain — Treasury +amount, Fees +fee", async () => {
    await setup()
    const t = await tour.start(columns())
    const { terminal, order, address, withdrawal } = await cryptoPayout(t)
    const sent = await client.priv("POST", "tx_send_report", { txId: withdrawal, result: "broadcast", txHash: "tour1" })
    assert.strictEqual(sent.status, 200, JSON.stringify(sent.body))
    await blockOk(client, terminal, "tour", 1, [
      { txHash: "tour1", direction: "out", to: address, amount: "10", txId: withdrawal }
    ])
    assertState(await view(order.id), "Processing", 3, 1)
    await t.step("broadcast, seen on chain")
    await emptyBlocks(client, terminal, "tour", 2, 3)
    assertState(await view(order.id), "Paid", 8, 8)
    await t.step("final", { merchant: { lockOut: "-11" }, Treasury: { free: "10" }, Fees: { free: "1" } })
  })

  it("Started (payout, crypto) → Processing → Failed: the signer's failure — the reserve back to free", async () => {
    await setup()
    const t = await tour.start(columns())
    const { order, withdrawal } = await cryptoPayout(t)
    const failed = await client.priv("POST", "tx_send_report", { txId: withdrawal, result: "failed" })
    assert.strictEqual(failed.status, 200, JSON.stringify(failed.body))
    assertState(await view(order.id), "Failed", 18, 16)
    await t.step("failed", released)
  })

  it("Created, Started → Expired: the payout reserve back to free", async () => {
    await setup()
    const t = await tour.start(columns())
    const order = await newPayout({ expiresInSeconds: 1 })
    await t.step("put_transfer_order", reserved)
    await new Promise((r) => setTimeout(r, 1_200))
    assertRejected(await payTransfer(order.code, { recipient: recipient.id }), 400, errorCode.PaymentOrderExpired)
    assertState(await view(order.id), "Expired", 16, 16)
    await t.step("expired", released)
  })

  it("Created, Started → Canceled: cancel_payment_order — the payout reserve back to free", async () => {
    await setup()
    const t = await tour.start(columns())
    const order = await newPayout()
    await t.step("put_transfer_order", reserved)
    const reply = await merchantCall("POST", `cancel_payment_order?id=${order.id}`)
    assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
    assertState(reply.body.result, "Canceled", 17, 16)
    await t.step("canceled", released)
  })
})
