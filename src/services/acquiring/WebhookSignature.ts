/**
 * The acquirer webhook's signature (CONTRACT C16 "Built-in card acquiring"): `X-Acquirer-Timestamp` (unix
 * seconds) and `X-Acquirer-Signature` = lowercase hex HMAC-SHA256(secret, timestamp + "." + raw body).
 * Verified over the raw bytes, compared in constant time, refused when the timestamp is off by more than
 * the tolerance either way. The secret is ACQUIRER_WEBHOOK_SECRET, or (unset) one generated once and
 * kept in the database (acquirer_secrets), so every process of one database signs and verifies alike.
 */
import { Secrets } from "../../platform/Secrets.ts"
import { Context, Effect, Layer, Option, Redacted } from "effect"
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto"
import { storedAcquirerSecret } from "../../../sql/AcquiringRepo.ts"
import { AppConfigService } from "../../platform/Config.ts"
import { makeDb } from "../../platform/db/Sql.ts"

/** Lowercase hex HMAC-SHA256(secret, timestamp + "." + body). */
export const signWebhook = (secret: string, timestamp: string, body: string | Uint8Array): string =>
  createHmac("sha256", Buffer.from(secret, "utf8"))
    .update(timestamp + ".", "utf8")
    .update(body)
    .digest("hex")

export type SignatureCheck = "ok" | "missing" | "badTimestamp" | "stale" | "badSignature"

/**
 * Checks a webhook's headers against its raw body at `nowSeconds`: both headers present, the timestamp
 * an integer within `toleranceSeconds` of now, the signature 64 lowercase hex digits equal (in constant
 * time) to the expected one.
 */
export const verifyWebhook = (input: {
  readonly secret: string
  readonly timestamp: string | undefined
  readonly signature: string | undefined
  readonly body: string | Uint8Array
  readonly nowSeconds: number
  readonly toleranceSeconds: number
}): SignatureCheck => {
  const { timestamp, signature } = input
  if (timestamp === undefined || signature === undefined || timestamp === "" || signature === "") return "missing"
  if (!/^[0-9]{1,12}$/.test(timestamp)) return "badTimestamp"
  if (Math.abs(input.nowSeconds - Number(timestamp)) > input.toleranceSeconds) return "stale"
  if (!/^[0-9a-f]{64}$/.test(signature)) return "badSignature"
  const expected = Buffer.from(signWebhook(input.secret, timestamp, input.body), "hex")
  return timingSafeEqual(expected, Buffer.from(signature, "hex")) ? "ok" : "badSignature"
}

/** The webhook secret this service signs (sandbox) and verifies (webhook route) with. */
export class AcquirerSecret extends Context.Service<AcquirerSecret, { readonly secret: string }>()(
  "core/AcquirerSecret"
) {
  static readonly layer = Layer.effect(
    AcquirerSecret,
    Effect.gen(function* () {
      const config = yield* AppConfigService
      const given = Option.map(config.acquirerWebhookSecret, Redacted.value)
      if (Option.isSome(given)) return AcquirerSecret.of({ secret: given.value })
      const db = yield* makeDb
      const secrets = yield* Secrets
      const stored = yield* Effect.orDie(
        db(storedAcquirerSecret(secrets.seal("acquirer_secrets.secret", randomBytes(32).toString("hex"))))
      )
      const secret = yield* secrets.open("acquirer_secrets.secret", stored)
      return AcquirerSecret.of({ secret })
    })
  )
}
