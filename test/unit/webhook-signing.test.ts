/**
 * Merchant webhook signing and retry schedule (CONTRACT C16; docs/WEBHOOKS.md): the signature against an
 * independent HMAC, the docs' verification block against the signer (and refusing what it must), and the
 * backoff WEBHOOK_RETRY_BASE_SECONDS × 2^(n−1) capped at WEBHOOK_RETRY_MAX_DELAY_SECONDS, as a table and
 * as properties over seeded random settings.
 */
import { assert, describe, it } from "@effect/vitest"
import { createHmac } from "node:crypto"
import { readFileSync } from "node:fs"
import { newWebhookSecret, webhookSignature } from "../../src/platform/Signing.ts"
import { retryDelaySeconds } from "../../src/platform/WebhookHttp.ts"
import { verifierFromDocs } from "../support/WebhookReceiver.ts"
import { seeded } from "./Random.ts"

/** The `verifyWebhook` function of a document's first ```js block (its code lines, comments left out). */
const verifierIn = (file: string) => {
  const text = readFileSync(new URL(`../../${file}`, import.meta.url), "utf8")
  const block = /```js\n([\s\S]*?)```/.exec(text)?.[1] ?? ""
  const start = block.indexOf("export function verifyWebhook")
  const end = block.indexOf("\n}\n", start)
  assert.isAbove(start, -1, `${file} shows verifyWebhook`)
  return block.slice(start, end + 2)
}

describe("webhook signature", () => {
  it("the README points to docs/WEBHOOKS.md, whose verification sample is the one tested here", () => {
    const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8")
    assert.include(readme, "(docs/WEBHOOKS.md)")
    assert.include(verifierIn("docs/WEBHOOKS.md"), "timingSafeEqual")
  })

  it("is v1= lowercase hex HMAC-SHA256(secret as UTF-8, timestamp + '.' + body)", () => {
    const secret = "whsec_ünï-cödé"
    const body = '{"eventId":"evt_o1_0_1","data":{"description":"Café ☕"}}'
    const expected = createHmac("sha256", Buffer.from(secret, "utf8"))
      .update(Buffer.from(`1700000000.${body}`, "utf8"))
      .digest("hex")
    assert.strictEqual(webhookSignature(secret, 1_700_000_000, body), `v1=${expected}`)
    assert.match(webhookSignature(secret, 1, body), /^v1=[0-9a-f]{64}$/)
  })

  it("new secrets carry 256 random bits and differ", () => {
    const a = newWebhookSecret()
    const b = newWebhookSecret()
    assert.match(a, /^whsec_[A-Za-z0-9_-]{43}$/)
    assert.notStrictEqual(a, b)
  })

  it("the verification code of docs/WEBHOOKS.md accepts the signer's output and refuses tampering, other secrets, old timestamps", async () => {
    const verify = await verifierFromDocs()
    const secret = newWebhookSecret()
    const body = '{"eventId":"evt_r9_8","type":"Refund.Finished"}'
    const now = Math.floor(Date.now() / 1000)
    const headers = (ts: number, sig = webhookSignature(secret, ts, body)) => ({
      "x-webhook-id": "evt_r9_8",
      "x-webhook-timestamp": String(ts),
      "x-webhook-signature": sig
    })
    assert.isTrue(verify(secret, headers(now), body))
    assert.isTrue(verify(secret, headers(now), Buffer.from(body, "utf8")))
    assert.isFalse(verify(secret, headers(now), body.replace("9", "8")))
    assert.isFalse(verify(newWebhookSecret(), headers(now), body))
    assert.isFalse(verify(secret, headers(now - 301), body))
    assert.isFalse(verify(secret, { "x-webhook-timestamp": String(now) }, body))
    assert.isFalse(verify(secret, headers(now, "v1=00"), body))
  })
})

describe("webhook retry schedule", () => {
  it("defaults (5 s base, 3600 s cap): 5, 10, 20, 40, 80, 160, 320 s before attempts 2..8", () => {
    assert.deepStrictEqual(
      [1, 2, 3, 4, 5, 6, 7].map((n) => retryDelaySeconds(n, 5, 3600)),
      [5, 10, 20, 40, 80, 160, 320]
    )
    assert.strictEqual(retryDelaySeconds(11, 5, 3600), 3600)
    assert.strictEqual(retryDelaySeconds(50, 5, 3600), 3600)
  })

  it("properties: the first delay is the base, each doubles until the cap, never above it, never decreasing", () => {
    const random = seeded(1507)
    for (let run = 0; run < 500; run++) {
      const base = random.int(1, 3600)
      const cap = random.int(1, 86_400)
      const attempts = random.int(1, 50)
      let previous = 0
      for (let n = 1; n <= attempts; n++) {
        const delay = retryDelaySeconds(n, base, cap)
        assert.isAtMost(delay, cap)
        assert.isAtLeast(delay, previous)
        assert.isTrue(Number.isInteger(delay))
        if (n === 1) assert.strictEqual(delay, Math.min(base, cap))
        // Doubling: twice the previous delay until the cap, then the cap.
        else assert.strictEqual(delay, previous < cap ? Math.min(cap, previous * 2) : cap)
        previous = delay
      }
    }
  })
})
