/**
 * Payment-order expiry (CONTRACT C16 "now > expiresAt"; docs/DURABLE-TIMERS.md, docs/PAYMENTS.md).
 * Two paths meet at the order actor's conditional Expire, so an order expires once whichever comes:
 * - a durable timer per order (actors/expiry): `schedule` stores a persisted message due at expiresAt
 *   in effect/cluster's SQL message storage; it fires within the storage poll (~1 s) of expiresAt,
 *   and after a restart as soon as the entity type registers;
 * - the sweeper, every PAYMENT_SWEEP_SECONDS (and once at start): orders still Created/Started past
 *   expiresAt that no timer expired (a failed send, an order from before the timers, a timer that
 *   found the order busy) get Expire.
 */
import { Context, Effect, Layer, Schedule } from "effect"
import { ExpiryDue, PaymentExpiryEntity } from "../../actors/expiry/Protocol.ts"
import { PaymentOrderEntity } from "../../actors/payment/Protocol.ts"
import { dueOrderIds } from "../../sql/PaymentOrderRepo.ts"
import { AppConfigService, limits } from "../platform/Config.ts"
import { makeDb } from "../platform/db/Sql.ts"

export class PaymentExpiry extends Context.Service<
  PaymentExpiry,
  {
    /**
     * Stores the order's expiry timer (send it before the order's commit: a timer for an order that
     * never committed finds nothing). Never fails: the sweeper expires an order whose timer is missing.
     */
    readonly schedule: (txId: bigint, expiresAt: Date) => Effect.Effect<void>
  }
>()("core/PaymentExpiry") {
  static readonly layer = Layer.effect(
    PaymentExpiry,
    Effect.gen(function* () {
      const db = yield* makeDb
      const config = yield* AppConfigService
      const timers = yield* PaymentExpiryEntity.client
      const orders = yield* PaymentOrderEntity.client

      const sweep = Effect.gen(function* () {
        const due = yield* db(dueOrderIds(new Date(), limits.expirySweepBatchMax))
        yield* Effect.forEach(due, (txId) => Effect.ignoreCause(orders(String(txId)).Expire({})), {
          concurrency: 8,
          discard: true
        })
      })
      yield* Effect.forkScoped(
        sweep.pipe(Effect.ignoreCause, Effect.repeat(Schedule.spaced(`${config.paymentSweepSeconds} seconds`)))
      )

      return PaymentExpiry.of({
        schedule: (txId, expiresAt) =>
          timers(String(txId))
            .ExpireAt(ExpiryDue.of(txId, expiresAt), { discard: true })
            .pipe(Effect.ignoreCause({ log: "Warn", message: "payment order expiry timer not stored" }))
      })
    })
  )
}
