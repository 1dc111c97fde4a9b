/**
 * The acquirer webhook's signature (CONTRACT C16): lowercase hex HMAC-SHA256(secret, timestamp + "." +
 * raw body), checked in constant time over the raw bytes, with the timestamp within the tolerance.
 * Known vectors from node:crypto directly, then every way a webhook is refused.
 */
import { assert, describe, it } from "@effect/vitest"
import { createHmac } from "node:crypto"
import { sign as signWebhook, verify as verifyWebhook } from "../../src/platform/Signing.ts"
import { seeded } from "./Random.ts"

const secret = "whsec_test"
const body = '{"eventId":"e1","acquiringId":"acq_x","status":"Approved","amount":"10.6","currency":"USDT"}'
const now = 1_800_000_000

const check = (over: Partial<Parameters<typeof verifyWebhook>[0]> = {}) =>
  verifyWebhook({
    secret,
    timestamp: String(now),
    signature: signWebhook(secret, String(now), body),
    body,
    nowSeconds: now,
    toleranceSeconds: 300,
    ...over
  })

describe("acquirer webhook signature", () => {
  it("is lowercase hex HMAC-SHA256 over timestamp.body", () => {
    const expected = createHmac("sha256", secret).update(`${now}.${body}`).digest("hex")
    assert.strictEqual(signWebhook(secret, String(now), body), expected)
    assert.strictEqual(signWebhook(secret, String(now), new TextEncoder().encode(body)), expected)
    assert.match(expected, /^[0-9a-f]{64}$/)
  })

  it("accepts a good one, within the tolerance either way", () => {
    assert.strictEqual(check(), "ok")
    for (const skew of [-300, 300]) {
      const ts = String(now + skew)
      assert.strictEqual(check({ timestamp: ts, signature: signWebhook(secret, ts, body) }), "ok")
    }
  })

  it("refuses missing headers, a malformed or stale timestamp, and any other signature", () => {
    assert.strictEqual(check({ signature: undefined }), "missing")
    assert.strictEqual(check({ timestamp: undefined }), "missing")
    assert.strictEqual(check({ signature: "" }), "missing")
    assert.strictEqual(check({ timestamp: "12.5" }), "badTimestamp")
    assert.strictEqual(check({ timestamp: "-5" }), "badTimestamp")
    for (const skew of [-301, 301]) {
      const ts = String(now + skew)
      assert.strictEqual(check({ timestamp: ts, signature: signWebhook(secret, ts, body) }), "stale")
    }
    const good = signWebhook(secret, String(now), body)
    assert.strictEqual(check({ signature: good.toUpperCase() }), "badSignature")
    assert.strictEqual(check({ signature: good.slice(0, 62) }), "badSignature")
    assert.strictEqual(check({ signature: "v1=" + good }), "badSignature")
    assert.strictEqual(check({ secret: "other" }), "badSignature")
    assert.strictEqual(check({ body: body + " " }), "badSignature")
    assert.strictEqual(check({ signature: signWebhook(secret, String(now + 1), body) }), "badSignature")
  })

  it("property: only the exact body, timestamp and secret verify (seeded random inputs)", () => {
    const random = seeded(15)
    const text = () =>
      Array.from({ length: random.int(0, 40) }, () => String.fromCharCode(random.int(32, 0x2fff))).join("")
    for (let i = 0; i < 300; i++) {
      const b = text()
      const s = text() + "k"
      const other = text()
      const ts = String(now + random.int(-300, 300))
      const base = {
        secret: s,
        timestamp: ts,
        signature: signWebhook(s, ts, b),
        body: b,
        nowSeconds: now,
        toleranceSeconds: 300
      }
      assert.strictEqual(verifyWebhook(base), "ok")
      if (other !== b) assert.strictEqual(verifyWebhook({ ...base, body: other }), "badSignature")
      if (other + "k" !== s) assert.strictEqual(verifyWebhook({ ...base, secret: other + "k" }), "badSignature")
    }
  })
})
