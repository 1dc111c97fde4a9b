/**
 * Payment-order expiry without anyone acting (CONTRACT C16 "now > expiresAt … a sweeper commits the rest
 * every PAYMENT_SWEEP_SECONDS"; docs/PAYMENTS.md "Expiry without action", docs/DURABLE-TIMERS.md).
 * The sweep is a ClusterCron: effect/cluster's own durable schedule (a persisted run message, DeliverAt
 * its tick, in the SQL message storage), every PAYMENT_SWEEP_SECONDS. Each run sends `Expire` to the
 * orders still Created or Started past expiresAt (the partial index payment_orders_due); the order's
 * actor commits Expired only if the engine says it is due and only from the state it read, so a run
 * that overlaps another (two WORKERS processes, a run after a restart) expires nothing twice. After a
 * restart the pending run fires at start, and a first sweep runs as the layer starts, so what fell due
 * while the service was down expires within seconds.
 * Why not one DeliverAt timer per order: its storage INSERT is a transaction of its own on every
 * put_payment_order (an fsync before the order's commit) and the storage poll then scans every pending
 * timer each second; measured, the payment benchmark spent as much database time on the timers as on
 * the ledger. A sweep per PAYMENT_SWEEP_SECONDS is what C16 asks for, costs ~3 writes per tick whatever
 * the order volume, and reads the few due rows through the index.
 */
import { Cron, Effect, Layer } from "effect"
import { ClusterCron } from "effect/cluster"
import { PaymentOrderEntity } from "../../actors/payment/Protocol.ts"
import { dueOrderIds } from "../../sql/PaymentOrderRepo.ts"
import { beat } from "../platform/CronBeat.ts"
import { AppConfigService, limits } from "../platform/Config.ts"
import { makeDb } from "../platform/db/Sql.ts"

/** One pass: Expire for every order due now (at most limits.expirySweepBatchMax; the next pass takes the rest). */
const sweep = Effect.gen(function* () {
  const db = yield* makeDb
  const orders = yield* PaymentOrderEntity.client
  const due = yield* db(dueOrderIds(new Date(), limits.expirySweepBatchMax))
  yield* Effect.forEach(due, (txId) => Effect.ignoreCause(orders(String(txId)).Expire({})), {
    concurrency: 8,
    discard: true
  })
})

/** The sweep as a ClusterCron every PAYMENT_SWEEP_SECONDS, plus one pass at start. */
export const PaymentExpirySweep = Layer.unwrap(
  Effect.gen(function* () {
    const config = yield* AppConfigService
    const cron = Cron.parseUnsafe(beat(config.paymentSweepSeconds))
    const atStart = Layer.effectDiscard(Effect.forkScoped(Effect.ignoreCause(sweep)))
    return Layer.merge(
      ClusterCron.make({ name: "PaymentExpirySweep", cron, execute: Effect.ignoreCause(sweep) }),
      atStart
    )
  })
)
