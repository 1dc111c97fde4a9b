/**
 * Merchant webhooks over HTTP (CONTRACT C16 "Merchant webhooks (outbound)"; docs/WEBHOOKS.md): a real
 * service and a node:http receiver in the test. An internal payment's Created, Started (implicit) and
 * Paid events, a refund's events, retries with one eventId and the same body bytes, the dead letter and
 * redeliver_webhook, secret rotation, get_webhook_deliveries, and no URL → nothing. Every received event
 * is checked with the verification code of docs/WEBHOOKS.md. The ledger audit runs after each test.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import type { Party } from "../support/Client.ts"
import { assertRejected, serviceForFile } from "../support/Fixtures.ts"
import { merchantOf } from "../support/Merchant.ts"
import { itWithServer, type RunningService, startService } from "../support/Service.ts"
import { type Received, type Receiver, startReceiver, verifierFromDocs } from "../support/WebhookReceiver.ts"

const env = {
  WEBHOOK_ALLOW_PRIVATE_ADDRESSES: "true",
  WEBHOOK_RETRY_BASE_SECONDS: "1",
  WEBHOOK_RETRY_MAX_DELAY_SECONDS: "2",
  WEBHOOK_MAX_ATTEMPTS: "3",
  WEBHOOK_TIMEOUT_SECONDS: "3"
}
const { service, client } = serviceForFile({ env })
const m = merchantOf(client)

let rx: Receiver
let verify: Awaited<ReturnType<typeof verifierFromDocs>>
let fees: Party | undefined
let next = 0

beforeAll(async () => {
  rx = await startReceiver()
  verify = await verifierFromDocs()
})
afterAll(async () => {
  await rx?.close()
})

interface Shop {
  readonly merchant: Party
  readonly app: { appId: string; pkey: string; webhookSecret: string }
}

const newShop = async (fund?: string): Promise<Shop> => {
  if (fees === undefined) {
    fees = await client.party()
    await client.setTariffs([
      { txClass: "Payment", currency: "USDT", feeFixed: "0.5", feePercent: "0", profitWalletId: fees.id },
      { txClass: "Refund", currency: "USDT", feeFixed: "0.2", feePercent: "0", profitWalletId: fees.id }
    ])
  }
  const merchant = await client.party(fund === undefined ? {} : { fund })
  const app = (await m.createApp(merchant.id, `Hook shop ${next++}`)) as Shop["app"]
  return { merchant, app }
}

const setHook = async (shop: Shop, webhookUrl: string | null, rotateSecret?: boolean) =>
  client.priv("POST", "set_app_webhook", {
    appId: shop.app.appId,
    webhookUrl,
    ...(rotateSecret === undefined ? {} : { rotateSecret })
  })

const putOrder = async (shop: Shop, extra: Record<string, unknown> = {}) =>
  m.ok(
    await m.call(shop.app, "POST", "put_payment_order", {
      currency: "USDT",
      orderAmount: "10",
      externalId: `hook-${next++}`,
      ...extra
    })
  )

const payInternal = async (code: string) => {
  const payer = await client.party({ fund: "100" })
  const paid = await m.gate("POST", "pay_internal", code, {}, payer.sid)
  assert.strictEqual(paid.status, 200, JSON.stringify(paid.body))
  return payer
}

const deliveries = async (shop: Shop, orderId: string) =>
  m.ok(await m.call(shop.app, "GET", `get_webhook_deliveries?id=${orderId}`)) as Array<any>

/** Waits until every delivery of the order is settled (none Pending) and answers them. */
const settled = async (shop: Shop, orderId: string, count: number) => {
  const until = Date.now() + 30_000
  for (;;) {
    const list = await deliveries(shop, orderId)
    if (list.length >= count && list.every((d) => d.state !== "Pending")) return list
    if (Date.now() > until) assert.fail(`deliveries not settled: ${JSON.stringify(list)}`)
    await new Promise((r) => setTimeout(r, 200))
  }
}

/** A received event is signed with `secret` (the docs' code), names itself in X-Webhook-Id and has exactly C16's keys. */
const assertSigned = (got: Received, secret: string) => {
  assert.isTrue(verify(secret, got.headers, got.raw), `signature of ${got.event?.eventId}`)
  assert.strictEqual(got.headers["x-webhook-id"], got.event.eventId)
  assert.match(String(got.headers["x-webhook-signature"]), /^v1=[0-9a-f]{64}$/)
  assert.strictEqual(got.headers["content-type"], "application/json")
  assert.deepStrictEqual(Object.keys(got.event).sort(), ["appId", "createdAt", "data", "eventId", "type"])
}

const ofOrder = (path: string, orderId: string) =>
  rx.on(path).filter((r) => (r.event.data.orderId ?? r.event.data.id) === orderId)

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

describe("merchant webhooks: retries, dead letter, redelivery", () => {
  it("a receiver failing twice: three attempts, one eventId, the same body bytes, valid signatures, backoff, then Delivered with history", async () => {
    const shop = await newShop()
    rx.answer("/flaky", (_event, nth) => (nth <= 2 ? 500 : 200))
    const order = await putOrder(shop, { webhookUrl: rx.url("/flaky") })
    const got = await rx.waitFor("/flaky", (g) => g.filter((r) => r.event.data.id === order.id).length >= 3)
    const mine = got.filter((r) => r.event.data.id === order.id)
    assert.strictEqual(mine.length, 3)
    assert.strictEqual(new Set(mine.map((r) => r.event.eventId)).size, 1)
    assert.strictEqual(new Set(mine.map((r) => r.headers["x-webhook-id"])).size, 1)
    for (const r of mine) {
      assert.isTrue(r.raw.equals(mine[0]!.raw), "identical body bytes")
      assertSigned(r, shop.app.webhookSecret)
    }
    // Backoff: base 1 s, then 2 s (the cap).
    assert.isAtLeast(mine[1]!.at - mine[0]!.at, 900)
    assert.isAtLeast(mine[2]!.at - mine[1]!.at, 1_900)
    const [delivery] = await settled(shop, order.id, 1)
    assert.strictEqual(delivery.state, "Delivered")
    assert.strictEqual(delivery.attempts, 3)
    assert.deepStrictEqual(
      delivery.history.map((h: any) => [h.attempt, h.httpStatus, h.error]),
      [
        [1, 500, "HTTP 500"],
        [2, 500, "HTTP 500"],
        [3, 200, null]
      ]
    )
  })

  it("WEBHOOK_MAX_ATTEMPTS failures: Failed (dead letter, nothing more sent); redeliver_webhook: Pending with a fresh budget, then Delivered", async () => {
    const shop = await newShop()
    let up = false
    rx.answer("/dead", () => (up ? 204 : 503))
    const order = await putOrder(shop, { webhookUrl: rx.url("/dead") })
    const [failed] = await settled(shop, order.id, 1)
    assert.strictEqual(failed.state, "Failed")
    assert.strictEqual(failed.attempts, 3)
    assert.isNull(failed.nextAttemptAt)
    assert.deepStrictEqual(
      failed.history.map((h: any) => h.httpStatus),
      [503, 503, 503]
    )
    up = true
    await new Promise((r) => setTimeout(r, 1_500))
    assert.strictEqual(rx.on("/dead").filter((r) => r.event.data.id === order.id).length, 3)

    const again = m.ok(await m.call(shop.app, "POST", `redeliver_webhook?eventId=${failed.eventId}`))
    assert.strictEqual(again.eventId, failed.eventId)
    assert.strictEqual(again.state, "Pending")
    assert.strictEqual(again.attempts, 3)
    assert.isNotNull(again.nextAttemptAt)
    const [delivered] = await settled(shop, order.id, 1)
    assert.strictEqual(delivered.state, "Delivered")
    assert.deepStrictEqual(
      delivered.history.map((h: any) => [h.attempt, h.httpStatus]),
      [
        [1, 503],
        [2, 503],
        [3, 503],
        [4, 204]
      ]
    )
    const sent = rx.on("/dead").filter((r) => r.event.data.id === order.id)
    assert.isTrue(sent[3]!.raw.equals(sent[0]!.raw))

    // Unknown event, another app's event: 404 10341.
    assertRejected(await m.call(shop.app, "POST", "redeliver_webhook?eventId=evt_nope"), 404, 10341, "unknown")
    const other = await newShop()
    assertRejected(
      await m.call(other.app, "POST", `redeliver_webhook?eventId=${failed.eventId}`),
      404,
      10341,
      "another app's"
    )
  })
})

describe("merchant webhooks: settings and reads", () => {
  it("set_app_webhook rotateSecret: a new secret, shown once, signs what follows; the old one no longer verifies", async () => {
    const shop = await newShop()
    m.ok(await setHook(shop, rx.url("/rotate")))
    const rotated = m.ok(await setHook(shop, rx.url("/rotate"), true))
    assert.match(rotated.webhookSecret, /^whsec_/)
    assert.notStrictEqual(rotated.webhookSecret, shop.app.webhookSecret)
    const order = await putOrder(shop)
    const [got] = await rx.waitFor("/rotate", (g) => g.some((r) => r.event.data.id === order.id))
    assert.isTrue(verify(rotated.webhookSecret, got!.headers, got!.raw))
    assert.isFalse(verify(shop.app.webhookSecret, got!.headers, got!.raw))
    // Not rotated: null, and the secret stays.
    const kept = m.ok(await setHook(shop, rx.url("/rotate"), false))
    assert.isNull(kept.webhookSecret)
  })

  it("set_app_webhook: unknown app 404 10308, URL rules 10340; get_webhook_deliveries: another app's order 404 10300, neither code nor id 10001", async () => {
    const shop = await newShop()
    assertRejected(
      await client.priv("POST", "set_app_webhook", { appId: "999999", webhookUrl: rx.url("/x") }),
      404,
      10308,
      "unknown app"
    )
    for (const url of [
      "ftp://example.com/hook",
      "http://user:pw@example.com/hook",
      "not a url",
      `https://example.com/${"a".repeat(2050)}`
    ])
      assertRejected(await setHook(shop, url), 400, 10340, url.slice(0, 40), "webhookUrl")
    const order = await putOrder(shop)
    const other = await newShop()
    assertRejected(await m.call(other.app, "GET", `get_webhook_deliveries?id=${order.id}`), 404, 10300, "other app")
    assertRejected(await m.call(other.app, "GET", `get_webhook_deliveries?code=${order.code}`), 404, 10300, "other app")
    assertRejected(await m.call(shop.app, "GET", "get_webhook_deliveries"), 400, 10001, "no ref")
  })
})

describe("merchant webhooks: two processes on one database", () => {
  itWithServer(
    "both dispatchers race for every attempt: each attempt of each event is sent once",
    async () => {
      let peer: RunningService | undefined
      try {
        peer = await startService({ databaseUrl: service().databaseUrl, env })
        const shop = await newShop()
        rx.answer("/two", (_event, nth) => (nth === 1 ? 500 : 204))
        m.ok(await setHook(shop, rx.url("/two")))
        const orders = await Promise.all(Array.from({ length: 8 }, () => putOrder(shop)))
        const ids = new Set(orders.map((o) => o.id))
        const mine = () => rx.on("/two").filter((r) => ids.has(r.event.data.id))
        await rx.waitFor("/two", () => mine().length >= 16)
        await new Promise((r) => setTimeout(r, 1_500))
        const byEvent = new Map<string, Array<number>>()
        for (const r of mine()) byEvent.set(r.event.eventId, [...(byEvent.get(r.event.eventId) ?? []), r.status])
        assert.strictEqual(byEvent.size, 8)
        for (const [eventId, statuses] of byEvent) assert.deepStrictEqual(statuses, [500, 204], eventId)
        for (const order of orders) {
          const [delivery] = await settled(shop, order.id, 1)
          assert.deepStrictEqual(
            delivery.history.map((h: any) => [h.attempt, h.httpStatus]),
            [
              [1, 500],
              [2, 204]
            ]
          )
        }
      } finally {
        await peer?.stop()
      }
    },
    120_000
  )
})
