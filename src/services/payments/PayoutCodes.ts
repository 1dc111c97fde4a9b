/**
 * The `T…` code of a TransferOrder (CONTRACT C16: a claim on money, stored only hashed or as a keyed
 * derivation). The code is not random but derived: T + base64url(HMAC-SHA256(key, "payout-code:" +
 * orderId)), 256 bits. Only its SHA-256 is stored (payment_orders.code_hash); put_transfer_order and
 * its replays derive it again to show it. The key is derived from SECRETS_KEY (C19 §6, src/platform/Secrets.ts),
 * which never enters the database: a database backup yields no payout code. Every process of one
 * deployment has the same SECRETS_KEY, so derives the same key. Changing SECRETS_KEY changes the
 * derivation: replays of older payouts then show `code: null` (the stored hash no longer matches; the
 * code is not recoverable, by design).
 */
import { Context, Effect, Layer } from "effect"
import { createHmac } from "node:crypto"
import { Secrets } from "../../platform/Secrets.ts"

export class PayoutCodes extends Context.Service<
  PayoutCodes,
  {
    /** The code of the order with this transaction id. */
    readonly codeOf: (txId: bigint) => Effect.Effect<string>
  }
>()("core/PayoutCodes") {
  static readonly layer = Layer.effect(
    PayoutCodes,
    Effect.gen(function* () {
      const secrets = yield* Secrets
      const key = secrets.keyFor("payout-codes")
      return PayoutCodes.of({
        codeOf: (txId) =>
          Effect.sync(() => "T" + createHmac("sha256", key).update(`payout-code:${txId}`, "utf8").digest("base64url"))
      })
    })
  )
}
