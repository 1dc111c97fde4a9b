/**
 * Merchant webhooks across a restart (CONTRACT C16 "at least once"; docs/WEBHOOKS.md "Delivery"): the
 * receiver fails every event's first attempt; once each first attempt is recorded the service is killed
 * (SIGKILL) between attempts and started again on the same database. The second attempts arrive from
 * the stored due times: no delivery lost, the same eventId and body bytes, and one event per state (no
 * second event is born for a state by the restart). Both database paths.
 */
import { afterAll, assert, beforeAll, it } from "@effect/vitest"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { makeClient } from "../support/Client.ts"
import { merchantOf } from "../support/Merchant.ts"
import { createDatabase, dropDatabase } from "../support/Postgres.ts"
import { type RunningService, startService, usingRealPostgres } from "../support/Service.ts"
import { type Receiver, startReceiver } from "../support/WebhookReceiver.ts"

let databaseUrl: string | undefined
let dataDir: string | undefined
let service: RunningService | undefined
const client = makeClient(() => service!)
const m = merchantOf(client)
let rx: Receiver

const env = {
  WEBHOOK_ALLOW_PRIVATE_ADDRESSES: "true",
  WEBHOOK_RETRY_BASE_SECONDS: "4",
  WEBHOOK_RETRY_MAX_DELAY_SECONDS: "4",
  WEBHOOK_TIMEOUT_SECONDS: "2"
}

const boot = async () => {
  if (usingRealPostgres()) databaseUrl ??= await createDatabase(process.env.DATABASE_URL!)
  else dataDir ??= mkdtempSync(join(tmpdir(), "core-webhooks-restart-"))
  service = await startService(usingRealPostgres() ? { databaseUrl, env } : { dataDir, env })
}

beforeAll(async () => {
  rx = await startReceiver()
})
afterAll(async () => {
  await service?.stop("SIGTERM", true)
  await rx?.close()
  if (databaseUrl !== undefined) await dropDatabase(databaseUrl)
  if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true })
})

it("killed between attempts: after the restart every event's retry arrives, same eventId and bytes, one event per state", async () => {
  await boot()
  await client.setTariffs([])
  const merchant = await client.party()
  const app = await m.createApp(merchant.id, "Restart shop")
  m.ok(await client.priv("POST", "set_app_webhook", { appId: app.appId, webhookUrl: rx.url("/restart") }))
  rx.answer("/restart", (_event, nth) => (nth === 1 ? 500 : 204))
  const order = m.ok(
    await m.call(app, "POST", "put_payment_order", { currency: "USDT", orderAmount: "3", externalId: "restart-1" })
  )
  const payer = await client.party({ fund: "10" })
  const paid = await m.gate("POST", "pay_internal", order.code, {}, payer.sid)
  assert.strictEqual(paid.status, 200, JSON.stringify(paid.body))

  // Every first attempt recorded (history of one, Pending, due ~4 s later), then kill -9.
  const until = Date.now() + 20_000
  for (;;) {
    const list = m.ok(await m.call(app, "GET", `get_webhook_deliveries?id=${order.id}`)) as Array<any>
    if (list.length === 3 && list.every((d) => d.history.length === 1 && d.state === "Pending")) break
    if (Date.now() > until) assert.fail(`first attempts not recorded: ${JSON.stringify(list)}`)
    await new Promise((r) => setTimeout(r, 100))
  }
  assert.strictEqual(rx.on("/restart").length, 3)
  await service!.stop("SIGKILL", true)
  await boot()

  const got = await rx.waitFor("/restart", (g) => g.length >= 6, 30_000)
  await new Promise((r) => setTimeout(r, 1_500))
  assert.strictEqual(rx.on("/restart").length, 6, "nothing more than one retry per event")
  const byEvent = new Map<string, Array<(typeof got)[number]>>()
  for (const r of rx.on("/restart")) byEvent.set(r.event.eventId, [...(byEvent.get(r.event.eventId) ?? []), r])
  assert.strictEqual(byEvent.size, 3)
  assert.sameMembers(
    [...byEvent.values()].map((attempts) => attempts[0]!.event.type),
    ["PaymentOrder.Created", "PaymentOrder.Started", "PaymentOrder.Paid"]
  )
  for (const attempts of byEvent.values()) {
    assert.deepStrictEqual(
      attempts.map((r) => r.status),
      [500, 204]
    )
    assert.isTrue(attempts[1]!.raw.equals(attempts[0]!.raw), "same body bytes after the restart")
  }
  const list = m.ok(await m.call(app, "GET", `get_webhook_deliveries?id=${order.id}`)) as Array<any>
  assert.strictEqual(list.length, 3)
  for (const d of list) {
    assert.strictEqual(d.state, "Delivered")
    assert.deepStrictEqual(
      d.history.map((h: any) => [h.attempt, h.httpStatus]),
      [
        [1, 500],
        [2, 204]
      ]
    )
  }
  await client.assertLedgerSound("after the restart")
}, 120_000)
