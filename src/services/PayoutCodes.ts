/**
 * The `T…` code of a TransferOrder (CONTRACT C16: a claim on money, stored only hashed or as a keyed
 * derivation). The code is not random but derived: T + base64url(HMAC-SHA256(key, "payout-code:" +
 * orderId)), 256 bits. Only its SHA-256 is stored (payment_orders.code_hash); put_transfer_order and
 * its replays derive it again to show it. The key is the service's own key material (C1): the first
 * configured SERVICE_KEYS entry (never stored), else — a service that generated its key at first start
 * keeps only its hash — the smallest stored service-key hash. Every process of one deployment derives the
 * same key. Rotating the first SERVICE_KEYS entry changes the derivation: replays of older payouts then
 * show `code: null` (the stored hash no longer matches; the code is not recoverable, by design).
 */
import { Context, Effect, Layer } from "effect"
import { createHash, createHmac } from "node:crypto"
import { serviceKeyHashes } from "../../sql/CredentialRepo.ts"
import { AppConfigService } from "../platform/Config.ts"
import { makeDb } from "../platform/db/Sql.ts"

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
      const config = yield* AppConfigService
      const db = yield* makeDb
      let key: Buffer | undefined
      const keyMaterial = Effect.gen(function* () {
        if (key !== undefined) return key
        const configured = config.serviceKeys[0]?.item
        if (configured !== undefined) {
          key = createHash("sha256").update(`payout-codes:${configured}`, "utf8").digest()
          return key
        }
        const stored = (yield* db(serviceKeyHashes)).map((hash) => Buffer.from(hash))
        stored.sort(Buffer.compare)
        if (stored[0] === undefined) return yield* Effect.die(new Error("invariant: no service key material"))
        key = createHash("sha256").update("payout-codes:").update(stored[0]).digest()
        return key
      })
      return PayoutCodes.of({
        codeOf: (txId) =>
          Effect.map(
            keyMaterial,
            (k) => "T" + createHmac("sha256", k).update(`payout-code:${txId}`, "utf8").digest("base64url")
          )
      })
    })
  )
}
