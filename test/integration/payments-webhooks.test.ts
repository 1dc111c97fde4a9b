/**
 * Merchant webhook events over HTTP (CONTRACT C16 "Merchant webhooks (outbound)"; docs/WEBHOOKS.md): a
 * real service and a node:http receiver in the test. An internal payment's Created, Started (implicit)
 * and Paid events, each as of its state; a refund's events; a preselected order; a TransferOrder; no URL
 * → nothing. Every received event is checked with the verification code of docs/WEBHOOKS.md. Retries,
 * the dead letter, settings and two processes: payments-webhooks-delivery.test.ts. The ledger audit runs
 * after each test.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { serviceForFile } from "../support/Fixtures.ts"
import { type Receiver, startReceiver, type Verify, verifierFromDocs } from "../support/WebhookReceiver.ts"
import { webhookEnv, webhookShopOf } from "../support/WebhookShop.ts"

const { service, client } = serviceForFile({ env: webhookEnv })

let rx: Receiver
let verify: Verify
let next = 0

beforeAll(async () => {
  rx = await startReceiver()
  verify = await verifierFromDocs()
})
afterAll(async () => {
  await rx?.close()
})

const { m, newShop, setHook, putOrder, payInternal, deliveries, settled, assertSigned, ofOrder } = webhookShopOf(
  client,
  () => rx,
  () => verify
)

describe("merchant webhooks: events", () => {
  it("create_app answers a webhookSecret; an internal payment sends Created, Started and Paid, signed, each as of its state", async () => {
    const shop = await newShop()
    assert.match(shop.app.webhookSecret, /^whsec_[A-Za-z0-9_-]{43}$/)
    const set = m.ok(await setHook(shop, rx.url("/pay")))
    assert.deepStrictEqual(set, { appId: shop.app.appId, webhookUrl: rx.url("/pay"), webhookSecret: null })
    const order = await putOrder(shop)
    const payer = await payInternal(order.code)
    const got = await rx.waitFor("/pay", () => ofOrder("/pay", order.id).length >= 3)
    const mine = ofOrder("/pay", order.id)
    assert.strictEqual(mine.length, 3, JSON.stringify(mine.map((r) => r.event.type)))
    void got
    const byType = new Map(mine.map((r) => [r.event.type, r]))
    assert.sameMembers([...byType.keys()], ["PaymentOrder.Created", "PaymentOrder.Started", "PaymentOrder.Paid"])
    for (const r of mine) {
      assertSigned(r, shop.app.webhookSecret)
      assert.strictEqual(r.event.appId, shop.app.appId)
      assert.strictEqual(r.event.data.id, order.id)
      assert.strictEqual(r.event.data.webhookUrl, null)
    }
    const created = byType.get("PaymentOrder.Created")!.event.data
    const started = byType.get("PaymentOrder.Started")!.event.data
    const paid = byType.get("PaymentOrder.Paid")!.event.data
    assert.deepStrictEqual([created.stateCode, created.state, created.txState], [1, "Created", 1])
    assert.deepStrictEqual([started.stateCode, started.state, started.txState], [2, "Started", 1])
    assert.deepStrictEqual([paid.stateCode, paid.state, paid.txState], [8, "Paid", 8])
    assert.isNull(created.terminalId)
    assert.isNotNull(started.terminalId)
    assert.strictEqual(started.paymentMethod, "InternalPayment")
    assert.strictEqual(started.totalToPay, "10.5")
    assert.isNull(started.paidAt)
    assert.strictEqual(started.paidAmount, "0")
    assert.isNull(started.payerWalletId)
    assert.isNotNull(paid.paidAt)
    assert.strictEqual(paid.paidAmount, "10")
    assert.strictEqual(paid.payerWalletId, payer.id)
    assert.isTrue(BigInt(created.idUpdate) < BigInt(paid.idUpdate))
    // The Paid event's data is the order as get_app_payment shows it now (nothing changed since).
    assert.deepStrictEqual(paid, await m.order(shop.app, order.id))

    const list = await settled(shop, order.id, 3)
    assert.deepStrictEqual(
      list.map((d) => d.type),
      ["PaymentOrder.Paid", "PaymentOrder.Started", "PaymentOrder.Created"]
    )
    for (const d of list) {
      assert.deepStrictEqual(Object.keys(d).sort(), [
        "attempts",
        "eventId",
        "history",
        "nextAttemptAt",
        "state",
        "type",
        "url"
      ])
      assert.strictEqual(d.state, "Delivered")
      assert.strictEqual(d.attempts, 1)
      assert.isNull(d.nextAttemptAt)
      assert.strictEqual(d.url, rx.url("/pay"))
      assert.strictEqual(d.history.length, 1)
      assert.deepStrictEqual(Object.keys(d.history[0]).sort(), ["at", "attempt", "durationMs", "error", "httpStatus"])
      assert.deepStrictEqual([d.history[0].attempt, d.history[0].httpStatus, d.history[0].error], [1, 204, null])
      assert.isTrue(Number.isInteger(d.history[0].durationMs) && d.history[0].durationMs >= 0)
    }
    // By code too; one event per state: nothing more arrives.
    const byCode = m.ok(await m.call(shop.app, "GET", `get_webhook_deliveries?code=${order.code}`))
    assert.strictEqual(byCode.length, 3)
    await new Promise((r) => setTimeout(r, 1_200))
    assert.strictEqual(ofOrder("/pay", order.id).length, 3)
  })

  it("refunds: Refund.Finished for each, PaymentOrder.PartiallyRefunded then Refunded, to the order's own webhookUrl", async () => {
    const shop = await newShop("10")
    const order = await putOrder(shop, { webhookUrl: rx.url("/refunds") })
    await payInternal(order.code)
    await rx.waitFor("/refunds", () => ofOrder("/refunds", order.id).length >= 3)
    const first = m.ok(
      await m.call(shop.app, "POST", "refund_payment", { id: order.id, amount: "4", externalId: `r-${next++}` })
    )
    await rx.waitFor("/refunds", () => ofOrder("/refunds", order.id).length >= 5)
    const second = m.ok(await m.call(shop.app, "POST", "refund_payment", { id: order.id, externalId: `r-${next++}` }))
    await rx.waitFor("/refunds", () => ofOrder("/refunds", order.id).length >= 7)
    const mine = ofOrder("/refunds", order.id)
    for (const r of mine) assertSigned(r, shop.app.webhookSecret)
    const types = mine.map((r) => r.event.type)
    assert.sameMembers(types, [
      "PaymentOrder.Created",
      "PaymentOrder.Started",
      "PaymentOrder.Paid",
      "Refund.Finished",
      "PaymentOrder.PartiallyRefunded",
      "Refund.Finished",
      "PaymentOrder.Refunded"
    ])
    const refunds = mine.filter((r) => r.event.type === "Refund.Finished").map((r) => r.event.data)
    assert.sameMembers(
      refunds.map((d) => d.refundId),
      [first.refundId, second.refundId]
    )
    for (const d of refunds) {
      assert.deepStrictEqual(
        [d.stateCode, d.state, d.txState, d.destination, d.orderId],
        [8, "Finished", 8, "Wallet", order.id]
      )
      assert.strictEqual(d.code, order.code)
    }
    assert.strictEqual(refunds.find((d) => d.refundId === first.refundId).amount, "4")
    const partially = mine.find((r) => r.event.type === "PaymentOrder.PartiallyRefunded")!.event.data
    assert.deepStrictEqual([partially.stateCode, partially.refundedAmount], [9, "4"])
    const refunded = mine.find((r) => r.event.type === "PaymentOrder.Refunded")!.event.data
    assert.deepStrictEqual([refunded.stateCode, refunded.refundedAmount], [10, "10"])
    assert.strictEqual(refunded.webhookUrl, rx.url("/refunds"))
    // The order's deliveries include its refunds', newest first.
    const list = await settled(shop, order.id, 7)
    assert.strictEqual(list.length, 7)
    assert.strictEqual(list[6].type, "PaymentOrder.Created")
    assert.sameMembers(
      list.slice(0, 2).map((d) => d.type),
      ["PaymentOrder.Refunded", "Refund.Finished"]
    )
  })

  it("a preselected order's Created event shows the preselection (written after the insert, same commit); cancel sends Canceled", async () => {
    const shop = await newShop()
    m.ok(await setHook(shop, rx.url("/preset")))
    const networks = await client.priv("GET", "tokens_networks")
    const internal = String((networks.body.result as Array<any>).find((x) => x.typeNetwork === 240).id)
    const order = await putOrder(shop, { terminalId: internal, payAmount: "10" })
    const [created] = await rx.waitFor("/preset", (g) => g.some((r) => r.event.data.id === order.id))
    const { replayed, ...asPut } = order
    void replayed
    assert.deepStrictEqual(created!.event.data, asPut)
    assert.deepInclude(created!.event.data, { terminalId: internal, payAmount: "10", payCurrency: "USDT" })
    const canceled = m.ok(await m.call(shop.app, "POST", `cancel_payment_order?id=${order.id}`))
    const got = await rx.waitFor("/preset", (g) => g.filter((r) => r.event.data.id === order.id).length >= 2)
    const event = got.find((r) => r.event.type === "PaymentOrder.Canceled")!.event
    assert.deepStrictEqual(event.data, canceled)
    assert.deepStrictEqual([event.data.stateCode, event.data.txState], [17, 16])
  })

  it("a TransferOrder's events are TransferOrder.<state>, without its code", async () => {
    const shop = await newShop("100")
    await setHook(shop, rx.url("/payout"))
    const put = m.ok(
      await m.call(shop.app, "POST", "put_transfer_order", {
        currency: "USDT",
        orderAmount: "5",
        externalId: `t-${next++}`
      })
    )
    const [got] = await rx.waitFor("/payout", (g) => g.some((r) => r.event.data.id === put.id))
    assert.strictEqual(got!.event.type, "TransferOrder.Created")
    assert.isNull(got!.event.data.code)
    assert.isNull(got!.event.data.payUrl)
    assertSigned(got!, shop.app.webhookSecret)
  })

  it("no URL on the order or the app: no event, nothing sent", async () => {
    const shop = await newShop()
    const order = await putOrder(shop)
    await payInternal(order.code)
    await new Promise((r) => setTimeout(r, 1_200))
    assert.deepStrictEqual(await deliveries(shop, order.id), [])
    assert.isFalse(rx.received.some((r) => r.event?.data?.id === order.id))
    // A URL set and cleared again: still nothing for a new order.
    m.ok(await setHook(shop, rx.url("/cleared")))
    m.ok(await setHook(shop, null))
    const later = await putOrder(shop)
    await new Promise((r) => setTimeout(r, 1_000))
    assert.deepStrictEqual(await deliveries(shop, later.id), [])
    assert.strictEqual(rx.on("/cleared").length, 0)
  })
})
