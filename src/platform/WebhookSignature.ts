/**
 * Merchant webhook signing and retry schedule (CONTRACT C16 "Merchant webhooks (outbound)";
 * docs/WEBHOOKS.md): `X-Webhook-Signature: v1=<lowercase hex HMAC-SHA256(secret, timestamp + "." + raw
 * body)>`, the secret taken as UTF-8; attempt n + 1 waits base × 2^(n−1) seconds, at most the cap.
 */
import { createHmac, randomBytes } from "node:crypto"

/** A new app webhook secret: 256 random bits, `whsec_` + base64url. */
export const newWebhookSecret = (): string => `whsec_${randomBytes(32).toString("base64url")}`

/** The header value for one attempt: `v1=` + hex HMAC-SHA256(secret, `${timestamp}.${body}`). */
export const webhookSignature = (secret: string, timestamp: number, body: string): string =>
  `v1=${createHmac("sha256", Buffer.from(secret, "utf8")).update(`${timestamp}.${body}`, "utf8").digest("hex")}`

/** Seconds between attempt n (1-based, within one budget) and attempt n + 1. */
export const retryDelaySeconds = (attempt: number, baseSeconds: number, maxDelaySeconds: number): number =>
  Math.min(maxDelaySeconds, baseSeconds * 2 ** Math.min(attempt - 1, 40))
