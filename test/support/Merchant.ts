/**
 * A merchant's side of the payment gateway over HTTP (CONTRACT C16), for the payments-*.test.ts files:
 * apps, merchant calls (`pkey` + `app_id`), orders and refunds as the merchant sees them, the payment
 * gate, and draining the feed.
 */
import { assert } from "@effect/vitest"
import type { Party, Reply, TestClient } from "./Client.ts"

export interface App {
  readonly appId: string
  readonly pkey: string
  /** create_app's webhook signing secret, shown once (C16); absent where a test built the app's keys itself. */
  readonly webhookSecret?: string
}

let nextOrder = 0

export const merchantOf = (client: TestClient) => {
  const createApp = async (walletId: string, name: string): Promise<App> => {
    const reply = await client.priv("POST", "create_app", { walletId, name })
    assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
    return reply.body.result as App
  }
  /**
   * A file's shop: the merchant's wallet (with `party` options: funds, wallet group), then a second
   * party (its fee wallet, or whoever the file needs beside the merchant), then the merchant's app.
   */
  const open = async (
    name: string,
    merchantOptions?: Parameters<TestClient["party"]>[0]
  ): Promise<{ merchant: Party; fees: Party; app: App }> => {
    const merchant = await client.party(merchantOptions)
    const fees = await client.party()
    return { merchant, fees, app: await createApp(merchant.id, name) }
  }
  /** A reply that must be 200: its result. */
  const ok = (reply: Reply) => {
    assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
    return reply.body.result
  }
  /** `action` may carry its own query; `app_id` is added. */
  const call = (app: App, method: string, action: string, body?: unknown, pkey = app.pkey): Promise<Reply> =>
    client.call(method, `/payorders/v1/${action}${action.includes("?") ? "&" : "?"}app_id=${app.appId}`, {
      pkey,
      body
    })
  /** A new order of `app` (a fresh externalId), its PaymentOrderOut. */
  const put = async (app: App, body: Record<string, unknown> = {}) =>
    ok(
      await call(app, "POST", "put_payment_order", {
        currency: "USDT",
        orderAmount: "1",
        externalId: `feed-${process.pid}-${nextOrder++}`,
        ...body
      })
    )
  const gate = (method: string, action: string, code: string, body?: unknown, sid?: string) =>
    client.call(method, `/payment/v1/${action}?code=${encodeURIComponent(code)}`, { body, sid })
  /** A gate call that must answer 200: its result. */
  const gateOk = async (method: string, action: string, code: string, body?: unknown, sid?: string) => {
    const reply = await gate(method, action, code, body, sid)
    assert.strictEqual(reply.status, 200, `${action}: ${JSON.stringify(reply.body)}`)
    return reply.body.result
  }
  /** The order as get_app_payment shows it now (with its `refunds`). */
  const view = async (app: App, id: string) => ok(await call(app, "GET", `get_app_payment?id=${id}`))
  /** get_refund_status of one refund. */
  const refundStatus = async (app: App, refundId: string) =>
    ok(await call(app, "GET", `get_refund_status?refundId=${refundId}`))
  /** The order as get_app_payment shows it now, without its `refunds` (a feed row is PaymentOrderOut alone). */
  const order = async (app: App, id: string) => {
    const { refunds, ...out } = await view(app, id)
    assert.isArray(refunds)
    return out
  }
  const page = (app: App, cursor: string | undefined, extra = "") =>
    call(app, "GET", `get_app_payments${cursor === undefined ? "" : `?cursor=${cursor}`}${extra}`)
  /** Pages from `cursor` until one is empty: every row and the final cursor. */
  const drain = async (app: App, from: string | undefined): Promise<{ rows: Array<any>; cursor: string }> => {
    const rows: Array<any> = []
    let cursor = from
    for (;;) {
      const reply = await page(app, cursor)
      assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
      const next: string = reply.body.cursor!
      cursor = next
      if (reply.body.result.length === 0) return { rows, cursor: next }
      rows.push(...reply.body.result)
    }
  }
  return { createApp, open, ok, call, put, gate, gateOk, view, refundStatus, order, page, drain }
}
