/**
 * The one HMAC signing module: what the service signs (merchant webhooks, CONTRACT C16 "Merchant webhooks
 * (outbound)", docs/WEBHOOKS.md; the sandbox acquirer's webhook, C16 "Built-in card acquiring") and what
 * it verifies (the acquirer webhook; a partner's webhook, C18 "Inbound webhook"). One wire format: the
 * lowercase hex HMAC-SHA256 of `timestamp + "." + raw body` keyed with the secret as UTF-8 — bare in
 * `X-Acquirer-Signature`, after `v1=` in `X-Webhook-Signature`. Verification is over the raw bytes, in
 * constant time, and refuses a timestamp off by more than the tolerance either way.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto"

/** Lowercase hex HMAC-SHA256(secret, timestamp + "." + body). */
export const sign = (secret: string, timestamp: string | number, body: string | Uint8Array): string =>
  createHmac("sha256", Buffer.from(secret, "utf8")).update(`${timestamp}.`, "utf8").update(body).digest("hex")

/** The merchant webhook's `X-Webhook-Signature` value: `v1=` + sign(...). */
export const webhookSignature = (secret: string, timestamp: number, body: string): string =>
  `v1=${sign(secret, timestamp, body)}`

/** A new app webhook secret: 256 random bits, `whsec_` + base64url. */
export const newWebhookSecret = (): string => `whsec_${randomBytes(32).toString("base64url")}`

export type Verdict = "ok" | "missing" | "badTimestamp" | "badSignature" | "stale"

/**
 * Checks a signature header against the raw body at `nowSeconds`: both headers present, the timestamp
 * an integer, the signature `prefix` + 64 lowercase hex digits equal (in constant time) to the expected
 * one, and only then the timestamp within `toleranceSeconds` of now (so an unsigned request learns nothing
 * about the clock).
 */
export const verify = (input: {
  readonly secret: string
  readonly timestamp: string | undefined
  readonly signature: string | undefined
  readonly body: string | Uint8Array
  readonly nowSeconds: number
  readonly toleranceSeconds: number
  /** What precedes the hex digits in the header: "" (acquirer) or "v1=" (merchant webhooks). */
  readonly prefix?: string
}): Verdict => {
  const { timestamp, signature } = input
  const prefix = input.prefix ?? ""
  if (timestamp === undefined || signature === undefined || timestamp === "" || signature === "") return "missing"
  if (!/^[0-9]{1,12}$/.test(timestamp)) return "badTimestamp"
  const hex = signature.startsWith(prefix) ? signature.slice(prefix.length) : ""
  if (!/^[0-9a-f]{64}$/.test(hex)) return "badSignature"
  const expected = Buffer.from(sign(input.secret, timestamp, input.body), "hex")
  if (!timingSafeEqual(expected, Buffer.from(hex, "hex"))) return "badSignature"
  return Math.abs(input.nowSeconds - Number(timestamp)) > input.toleranceSeconds ? "stale" : "ok"
}
