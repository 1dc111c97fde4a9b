/**
 * A merchant shop for the webhook tests (test/integration/payments-webhooks*.test.ts): its app with the
 * webhook secret create_app showed, set_app_webhook, orders put and paid, the deliveries read and waited
 * for, and the checks every received event must pass (the verification code of docs/WEBHOOKS.md).
 */
import { assert } from "@effect/vitest"
import type { Party, TestClient } from "./Client.ts"
import { merchantOf } from "./Merchant.ts"
import type { Received, Receiver, Verify } from "./WebhookReceiver.ts"

/** The service settings of the webhook tests: local receivers allowed, 1 s then 2 s backoff, 3 attempts. */
export const webhookEnv = {
  WEBHOOK_ALLOW_PRIVATE_ADDRESSES: "true",
  WEBHOOK_RETRY_BASE_SECONDS: "1",
  WEBHOOK_RETRY_MAX_DELAY_SECONDS: "2",
  WEBHOOK_MAX_ATTEMPTS: "3",
  WEBHOOK_TIMEOUT_SECONDS: "3"
}

export interface Shop {
  readonly merchant: Party
  readonly app: { appId: string; pkey: string; webhookSecret: string }
}

let next = 0

export const webhookShopOf = (client: TestClient, receiver: () => Receiver, verifier: () => Verify) => {
  const m = merchantOf(client)
  let fees: Party | undefined
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
    assert.isTrue(verifier()(secret, got.headers, got.raw), `signature of ${got.event?.eventId}`)
    assert.strictEqual(got.headers["x-webhook-id"], got.event.eventId)
    assert.match(String(got.headers["x-webhook-signature"]), /^v1=[0-9a-f]{64}$/)
    assert.strictEqual(got.headers["content-type"], "application/json")
    assert.deepStrictEqual(Object.keys(got.event).sort(), ["appId", "createdAt", "data", "eventId", "type"])
  }

  const ofOrder = (path: string, orderId: string) =>
    receiver()
      .on(path)
      .filter((r) => (r.event.data.orderId ?? r.event.data.id) === orderId)

  return { m, newShop, setHook, putOrder, payInternal, deliveries, settled, assertSigned, ofOrder }
}
