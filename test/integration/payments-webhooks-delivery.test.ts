/**
 * Merchant webhook delivery over HTTP (CONTRACT C16 "Merchant webhooks (outbound)"; docs/WEBHOOKS.md):
 * retries with one eventId and the same body bytes, the dead letter and redeliver_webhook, secret
 * rotation, set_app_webhook's and get_webhook_deliveries' refusals, and two processes racing for every
 * attempt. Every received event is checked with the verification code of docs/WEBHOOKS.md. The ledger
 * audit runs after each test.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { assertRejected, serviceForFile } from "../support/Fixtures.ts"
import { itWithServer, type RunningService, startService } from "../support/Service.ts"
import { type Receiver, startReceiver, type Verify, verifierFromDocs } from "../support/WebhookReceiver.ts"
import { webhookEnv, webhookShopOf } from "../support/WebhookShop.ts"

const { service, client } = serviceForFile({ env: webhookEnv })

let rx: Receiver
let verify: Verify

beforeAll(async () => {
  rx = await startReceiver()
  verify = await verifierFromDocs()
})
afterAll(async () => {
  await rx?.close()
})

const { m, newShop, setHook, putOrder, settled, assertSigned } = webhookShopOf(
  client,
  () => rx,
  () => verify
)

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
        peer = await startService({ databaseUrl: service().databaseUrl, env: webhookEnv })
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
