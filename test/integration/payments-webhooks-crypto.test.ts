/**
 * Merchant webhooks of a crypto payment (CONTRACT C16; docs/WEBHOOKS.md "Events are born in the
 * transition's commit"): the Processing and Paid transitions are committed inside the scanner's
 * tx_list_push (actors/payment/CryptoIncomes.ts), not by the order's actor; the triggers of migration
 * 0026 still give one event per state entered: Created, Started (pay_crypto), Processing (income seen),
 * Paid (final), each as of its state and signed; then a crypto refund: Refund.Pending at refund_payment,
 * Refund.Finished and PartiallyRefunded where C15 settles its withdrawal. The ledger audit runs after the test.
 */
import { afterAll, assert, beforeAll, it } from "@effect/vitest"
import { addCryptoTerminal, blockOk, emptyBlocks, queuedFor, someEvmAddress } from "../support/Chain.ts"
import { xpubEnv } from "../support/CryptoAddresses.ts"
import { serviceForFile } from "../support/Fixtures.ts"
import { merchantOf } from "../support/Merchant.ts"
import { type Receiver, startReceiver, verifierFromDocs } from "../support/WebhookReceiver.ts"

const { client } = serviceForFile({ env: { ...xpubEnv, WEBHOOK_ALLOW_PRIVATE_ADDRESSES: "true" } })
const shop = merchantOf(client)
let rx: Receiver

beforeAll(async () => {
  rx = await startReceiver()
})
afterAll(async () => {
  await rx?.close()
})

it("crypto: Created, Started, Processing (in the chain push's commit), Paid, each signed and as of its state", async () => {
  const { fees, app } = await shop.open("Crypto hook shop", { fund: { ETH: "1" } })
  await client.setTariffs([
    { txClass: "Payment", currency: "ETH", feeFixed: "0.01", feePercent: "0", profitWalletId: fees.id },
    { txClass: "Refund", currency: "ETH", feeFixed: "0.001", feePercent: "0", profitWalletId: fees.id }
  ])
  const t = await addCryptoTerminal(client, { confirmations: 2 })
  const order = shop.ok(
    await shop.call(app, "POST", "put_payment_order", {
      currency: "ETH",
      orderAmount: "1",
      externalId: "crypto-hook-1",
      webhookUrl: rx.url("/crypto")
    })
  )
  const started = await shop.gateOk("POST", "pay_crypto", order.code, { tokenNetworkId: t.id })
  const to = started.address.address as string
  await blockOk(client, t.id, "h", 1, [{ txHash: "hx1", to, amount: "1.01" }])
  await blockOk(client, t.id, "h", 2)
  await blockOk(client, t.id, "h", 3)
  const got = await rx.waitFor("/crypto", (g) => g.length >= 4)
  const verify = await verifierFromDocs()
  const secret = (app as any).webhookSecret as string
  const byType = new Map(got.map((r) => [r.event.type, r.event.data]))
  assert.sameMembers(
    got.map((r) => r.event.type),
    ["PaymentOrder.Created", "PaymentOrder.Started", "PaymentOrder.Processing", "PaymentOrder.Paid"]
  )
  for (const r of got) assert.isTrue(verify(secret, r.headers, r.raw), r.event.type)
  assert.deepInclude(byType.get("PaymentOrder.Started"), {
    stateCode: 2,
    paymentMethod: "CryptoTransfer",
    totalToPay: "1.01"
  })
  assert.deepInclude(byType.get("PaymentOrder.Processing"), { stateCode: 3, txState: 1, paidAt: null })
  assert.deepInclude(byType.get("PaymentOrder.Paid"), { stateCode: 8, txState: 8, paidAmount: "1" })
  const ticks = ["Created", "Started", "Processing", "Paid"].map((s) =>
    BigInt(byType.get(`PaymentOrder.${s}`).idUpdate)
  )
  for (let i = 1; i < ticks.length; i++) assert.isTrue(ticks[i]! > ticks[i - 1]!, "each state a later commit")

  // A crypto refund: Refund.Pending at refund_payment; Refund.Finished and PaymentOrder.PartiallyRefunded
  // in the commit where C15 settles its withdrawal (the settlement hook inside the chain push).
  const address = someEvmAddress()
  const pending = shop.ok(
    await shop.call(app, "POST", "refund_payment", {
      id: order.id,
      externalId: "crypto-hook-r1",
      amount: "0.4",
      refundAddress: address
    })
  )
  const item = await queuedFor(client, t.id, address)
  const sent = await client.priv("POST", "tx_send_report", { txId: item.txId, result: "broadcast", txHash: "hr1" })
  assert.strictEqual(sent.status, 200, JSON.stringify(sent.body))
  await blockOk(client, t.id, "h", 4, [
    { txHash: "hr1", direction: "out", to: address, amount: "0.4", txId: item.txId }
  ])
  await emptyBlocks(client, t.id, "h", 5, 6)
  const all = await rx.waitFor("/crypto", (g) => g.length >= 7)
  const refundEvents = all.filter((r) => r.event.type.startsWith("Refund."))
  assert.sameDeepMembers(
    refundEvents.map((r) => [
      r.event.type,
      r.event.data.refundId,
      r.event.data.stateCode,
      r.event.data.finishedAt === null
    ]),
    [
      ["Refund.Pending", pending.refundId, 1, true],
      ["Refund.Finished", pending.refundId, 8, false]
    ]
  )
  const partially = all.find((r) => r.event.type === "PaymentOrder.PartiallyRefunded")!.event.data
  assert.deepInclude(partially, { stateCode: 9, refundedAmount: "0.4" })
  for (const r of all) assert.isTrue(verify(secret, r.headers, r.raw), r.event.type)
  assert.strictEqual(all.length, 7, JSON.stringify(all.map((r) => r.event.type)))
})
