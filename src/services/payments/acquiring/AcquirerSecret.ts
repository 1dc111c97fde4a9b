/**
 * The acquirer webhook's secret (CONTRACT C16 "Built-in card acquiring"; signed and verified by
 * src/platform/Signing.ts): ACQUIRER_WEBHOOK_SECRET, or (unset) one generated once and kept in the
 * database (acquirer_secrets), so every process of one database signs and verifies alike.
 */
import { Secrets } from "../../../platform/Secrets.ts"
import { Context, Effect, Layer, Option, Redacted } from "effect"
import { randomBytes } from "node:crypto"
import { storedAcquirerSecret } from "../../../../sql/AcquiringRepo.ts"
import { AppConfigService } from "../../../platform/Config.ts"
import { makeDb } from "../../../platform/db/Sql.ts"

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
