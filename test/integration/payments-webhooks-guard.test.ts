/**
 * The webhook SSRF guard with WEBHOOK_ALLOW_PRIVATE_ADDRESSES off (CONTRACT C16; docs/WEBHOOKS.md "SSRF
 * guard"): URL rules 10340 on set_app_webhook and put_payment_order (localhost, loopback, private and
 * link-local literals), and at delivery time a host NAME that passes those rules but resolves to a
 * loopback address (this machine's own host name) is refused before any connection: the receiver,
 * listening on that very address, receives nothing, and the delivery's history says "destination refused"
 * without the address (C19 §6).
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { lookup } from "node:dns/promises"
import { hostname } from "node:os"
import ipaddr from "ipaddr.js"
import { assertRejected, serviceForFile } from "../support/Fixtures.ts"
import { merchantOf } from "../support/Merchant.ts"
import { type Receiver, startReceiver } from "../support/WebhookReceiver.ts"

const { client } = serviceForFile({ env: { WEBHOOK_RETRY_BASE_SECONDS: "1", WEBHOOK_MAX_ATTEMPTS: "2" } })
const m = merchantOf(client)

let rx: Receiver
beforeAll(async () => {
  rx = await startReceiver("0.0.0.0")
})
afterAll(async () => {
  await rx?.close()
})

/** This machine's host name when it resolves only to non-public addresses (the name the guard must refuse), else null. */
const privateName = async (): Promise<{ name: string; addresses: Array<string> } | null> => {
  const name = hostname()
  if (name === "localhost" || name.endsWith(".localhost") || ipaddr.isValid(name)) return null
  try {
    const found = await lookup(name, { all: true })
    const addresses = found.map((entry) => entry.address)
    return addresses.length > 0 && addresses.every((a) => ipaddr.process(a).range() !== "unicast")
      ? { name, addresses }
      : null
  } catch {
    return null
  }
}

describe("webhook SSRF guard (WEBHOOK_ALLOW_PRIVATE_ADDRESSES off)", () => {
  it("10340 for localhost, loopback, private, link-local and unique-local hosts on set_app_webhook and put_payment_order", async () => {
    const merchant = await client.party()
    const app = await m.createApp(merchant.id, "Guarded shop")
    const refused = [
      `http://localhost:${rx.port}/x`,
      `http://api.localhost/x`,
      `http://127.0.0.1:${rx.port}/x`,
      "http://10.1.2.3/x",
      "http://192.168.0.10/x",
      "http://169.254.169.254/latest/meta-data",
      "http://[::1]/x",
      "http://[fd00::1]/x",
      "http://[::ffff:127.0.0.1]/x",
      "http://0x7f.1/x"
    ]
    for (const url of refused) {
      assertRejected(
        await client.priv("POST", "set_app_webhook", { appId: app.appId, webhookUrl: url }),
        400,
        10340,
        url,
        "webhookUrl"
      )
      assertRejected(
        await m.call(app, "POST", "put_payment_order", {
          currency: "USDT",
          orderAmount: "1",
          externalId: `g-${url}`.slice(0, 100),
          webhookUrl: url
        }),
        400,
        10340,
        url,
        "webhookUrl"
      )
    }
  })

  it('a host name resolving to a loopback address is refused at delivery: nothing reaches the receiver, the history says "destination refused" (C19 §6: no address)', async () => {
    const target = await privateName()
    if (target === null) {
      process.stderr.write(
        `\n*** SKIPPED (this machine's host name ${hostname()} does not resolve to only non-public addresses): delivery-time SSRF guard\n`
      )
      return
    }
    const merchant = await client.party()
    const app = await m.createApp(merchant.id, "Rebinding shop")
    const url = `http://${target.name}:${rx.port}/ssrf`
    const set = await client.priv("POST", "set_app_webhook", { appId: app.appId, webhookUrl: url })
    assert.strictEqual(set.status, 200, `a name passes the URL rules: ${JSON.stringify(set.body)}`)
    const order = m.ok(
      await m.call(app, "POST", "put_payment_order", { currency: "USDT", orderAmount: "1", externalId: "ssrf-1" })
    )
    const until = Date.now() + 20_000
    let delivery: any
    for (;;) {
      ;[delivery] = m.ok(await m.call(app, "GET", `get_webhook_deliveries?id=${order.id}`))
      if (delivery?.state === "Failed") break
      if (Date.now() > until) assert.fail(`not Failed: ${JSON.stringify(delivery)}`)
      await new Promise((r) => setTimeout(r, 200))
    }
    assert.strictEqual(delivery.url, url)
    assert.strictEqual(delivery.history.length, 2)
    for (const attempt of delivery.history) {
      assert.isNull(attempt.httpStatus)
      // C19 §6: the history never shows the resolved address.
      assert.strictEqual(attempt.error, "destination refused")
      assert.notInclude(attempt.error, target.addresses[0]!)
    }
    assert.strictEqual(rx.on("/ssrf").length, 0, "nothing was sent")
  })
})
