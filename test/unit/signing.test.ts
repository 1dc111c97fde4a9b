/**
 * The one signing module (src/platform/Signing.ts): `sign` is lowercase hex HMAC-SHA256(secret as UTF-8,
 * timestamp + "." + raw body) — the bytes the acquirer webhook carries bare and the merchant webhooks
 * after `v1=` (docs/WEBHOOKS.md's verifier checks the latter) — and `verify` accepts exactly that within
 * the tolerance either way, with or without the `v1=` prefix, and refuses every tampered part.
 */
import { assert, describe, it } from "@effect/vitest"
import { createHmac } from "node:crypto"
import { newWebhookSecret, sign, verify, webhookSignature } from "../../src/platform/Signing.ts"

const secret = "whsec_signing-test-ü"
const body = '{"eventId":"evt_1","type":"PaymentOrder.Paid","data":{"orderAmount":"10.6"}}'
const now = 1_800_000_000

const check = (over: Partial<Parameters<typeof verify>[0]> = {}) =>
  verify({
    secret,
    timestamp: String(now),
    signature: webhookSignature(secret, now, body),
    body,
    nowSeconds: now,
    toleranceSeconds: 300,
    prefix: "v1=",
    ...over
  })

describe("signing module", () => {
  it("sign: HMAC-SHA256 of timestamp.body keyed with the UTF-8 secret, the same for text, bytes and numeric timestamps", () => {
    const expected = createHmac("sha256", Buffer.from(secret, "utf8")).update(`${now}.${body}`, "utf8").digest("hex")
    assert.strictEqual(sign(secret, now, body), expected)
    assert.strictEqual(sign(secret, String(now), body), expected)
    assert.strictEqual(sign(secret, now, Buffer.from(body, "utf8")), expected)
    assert.strictEqual(webhookSignature(secret, now, body), `v1=${expected}`)
  })

  it("verify: the merchant (v1=) and acquirer (bare) formats, each only with its own prefix", () => {
    assert.strictEqual(check(), "ok")
    const bare = sign(secret, now, body)
    assert.strictEqual(check({ signature: bare, prefix: "" }), "ok")
    assert.strictEqual(check({ signature: bare }), "badSignature", "v1= expected")
    assert.strictEqual(check({ prefix: "" }), "badSignature", "bare expected")
    assert.strictEqual(check({ signature: "v2=" + bare }), "badSignature")
  })

  it("tolerance: inclusive either way, stale one second past it, and only once the signature verifies", () => {
    for (const skew of [-300, 0, 300]) {
      const ts = now + skew
      assert.strictEqual(check({ timestamp: String(ts), signature: webhookSignature(secret, ts, body) }), "ok")
    }
    for (const skew of [-301, 301, -86_400]) {
      const ts = now + skew
      assert.strictEqual(check({ timestamp: String(ts), signature: webhookSignature(secret, ts, body) }), "stale")
    }
    // A stale timestamp with a signature that does not verify says only that (nothing about the clock).
    assert.strictEqual(check({ timestamp: String(now - 1000) }), "badSignature")
    assert.strictEqual(check({ toleranceSeconds: 1, nowSeconds: now + 1 }), "ok")
    assert.strictEqual(
      check({ toleranceSeconds: 1, nowSeconds: now + 1.001 }),
      "stale",
      "a fractional now is compared as is"
    )
  })

  it("tamper: another body byte, timestamp, secret or signature digit is refused; missing parts are missing", () => {
    assert.strictEqual(check({ body: body.replace("10.6", "10.7") }), "badSignature")
    assert.strictEqual(check({ body: body + "\n" }), "badSignature")
    assert.strictEqual(check({ timestamp: String(now + 1) }), "badSignature")
    assert.strictEqual(check({ secret: secret + "x" }), "badSignature")
    assert.strictEqual(check({ secret: "whsec_signing-test-u" }), "badSignature", "the secret is UTF-8, not folded")
    const good = webhookSignature(secret, now, body)
    const flipped = good.slice(0, -1) + (good.endsWith("0") ? "1" : "0")
    assert.strictEqual(check({ signature: flipped }), "badSignature")
    assert.strictEqual(check({ signature: good.toUpperCase() }), "badSignature")
    assert.strictEqual(check({ signature: good + "00" }), "badSignature")
    assert.strictEqual(check({ signature: undefined }), "missing")
    assert.strictEqual(check({ timestamp: "" }), "missing")
    assert.strictEqual(check({ timestamp: "1e9" }), "badTimestamp")
    assert.strictEqual(check({ timestamp: " 1800000000" }), "badTimestamp")
  })

  it("a new webhook secret is whsec_ + 256 random bits and signs like any other", () => {
    const fresh = newWebhookSecret()
    assert.match(fresh, /^whsec_[A-Za-z0-9_-]{43}$/)
    assert.notStrictEqual(fresh, newWebhookSecret())
    assert.strictEqual(check({ secret: fresh, signature: webhookSignature(fresh, now, body) }), "ok")
  })
})
