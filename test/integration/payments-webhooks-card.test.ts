/**
 * Merchant webhooks of a card payment (CONTRACT C16; docs/WEBHOOKS.md, docs/CARDS.md): the card
 * transitions are committed by the order actor's CardOutcome (the acquirer's webhook), and migration
 * 0026's triggers still give one event per state entered — Created, Started (pay_card), Paid (the
 * acquirer's approval) — each signed and as of its state; a decline enters no new state (Started →
 * Started) and sends nothing; a card refund sends Refund.Finished and PartiallyRefunded. The ledger
 * audit runs after the test.
 */
import { afterAll, assert, beforeAll, it } from "@effect/vitest"
import { CARDS, cardEnv, cardsOf } from "../support/Cards.ts"
import { serviceForFile } from "../support/Fixtures.ts"
import { type Receiver, startReceiver, verifierFromDocs } from "../support/WebhookReceiver.ts"

const { service, client } = serviceForFile({ env: cardEnv({ WEBHOOK_ALLOW_PRIVATE_ADDRESSES: "true" }) })
const c = cardsOf(client, service)
let rx: Receiver

beforeAll(async () => {
  rx = await startReceiver()
})
afterAll(async () => {
  await rx?.close()
})

it("card: Created, Started, Paid as of each state; a decline sends nothing; a refund sends Refund.Finished and PartiallyRefunded", async () => {
  const verify = await verifierFromDocs()
  const { app, order, terminal } = await c.newOrder("10", { webhookUrl: rx.url("/card") })
  const declined = c.m.ok(await c.payCard(order.code, terminal))
  assert.strictEqual(c.m.ok(await c.submitCard(declined.checkoutUrl, CARDS.decline)).outcome, "Declined")
  const second = c.m.ok(await c.payCard(order.code, terminal))
  assert.strictEqual(c.m.ok(await c.submitCard(second.checkoutUrl, CARDS.approve)).outcome, "Approved")
  const types = (got: ReadonlyArray<{ event: any }>) => got.map((r) => r.event.type).sort()
  await rx.waitFor("/card", (got) => got.some((r) => r.event.type === "PaymentOrder.Paid"))
  const refund = c.m.ok(
    await c.m.call(app, "POST", "refund_payment", { id: order.id, amount: "4", externalId: `hook-r-${order.id}` })
  )
  const got = await rx.waitFor("/card", (all) => all.length >= 5)
  await new Promise((r) => setTimeout(r, 1_000)) // nothing more may come
  const all = rx.on("/card")
  assert.deepStrictEqual(types(all), [
    "PaymentOrder.Created",
    "PaymentOrder.Paid",
    "PaymentOrder.PartiallyRefunded",
    "PaymentOrder.Started",
    "Refund.Finished"
  ])
  void got
  for (const r of all) assert.isTrue(verify(app.webhookSecret!, r.headers, r.raw), `signature of ${r.event.type}`)
  const of = (type: string) => all.find((r) => r.event.type === type)!.event.data
  const started = of("PaymentOrder.Started")
  assert.deepInclude(started, { stateCode: 2, paymentMethod: "CardAcquiring", totalToPay: "10.6", paidAmount: "0" })
  const paid = of("PaymentOrder.Paid")
  assert.deepInclude(paid, { stateCode: 8, paidAmount: "10", refundedAmount: "0" })
  assert.deepInclude(of("PaymentOrder.PartiallyRefunded"), { stateCode: 9, refundedAmount: "4" })
  assert.deepInclude(of("Refund.Finished"), { refundId: refund.refundId, destination: "Card", amount: "4" })
  assert.strictEqual(new Set(all.map((r) => r.event.eventId)).size, all.length, "one event per state")
})
