/**
 * Payment-order expiry without anyone acting (CONTRACT C16 "now > expiresAt … a sweeper commits the rest
 * every PAYMENT_SWEEP_SECONDS"; docs/PAYMENTS.md "Expiry without action", docs/DURABLE-TIMERS.md).
 * The sweep is a periodic job (src/platform/PeriodicJob.ts): every PAYMENT_SWEEP_SECONDS, once per beat
 * across the cluster (a beat lease in SQL, job_leases). Each run sends `Expire` to the
 * orders still Created or Started past expiresAt (the partial index payment_orders_due); the order's
 * actor commits Expired only if the engine says it is due and only from the state it read, so a run
 * that overlaps another (a pass overrunning its beat, a run after a restart) expires nothing twice. The
 * pass at start is the current beat's, so what fell due while the service was down expires within
 * seconds.
 * Why not one DeliverAt timer per order: its storage INSERT is a transaction of its own on every
 * put_payment_order (an fsync before the order's commit) and the storage poll then scans every pending
 * timer each second; measured, the payment benchmark spent as much database time on the timers as on
 * the ledger. A sweep per PAYMENT_SWEEP_SECONDS is what C16 asks for, costs one write per beat and process whatever
 * the order volume, and reads the few due rows through the index.
 */
import { Effect, Layer } from "effect"
import { PaymentOrderEntity } from "../../../actors/payment/Protocol.ts"
import { dueOrderIds } from "../../../sql/PaymentOrderRepo.ts"
import { periodicJob } from "../../platform/PeriodicJob.ts"
import { AppConfigService, limits } from "../../platform/Config.ts"
import { makeDb } from "../../platform/db/Sql.ts"

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

/** The sweep every PAYMENT_SWEEP_SECONDS, once per beat across the cluster, the start-up pass included. */
export const PaymentExpirySweep = Layer.unwrap(
  Effect.gen(function* () {
    const config = yield* AppConfigService
    return periodicJob("PaymentExpirySweep", config.paymentSweepSeconds * 1000, sweep)
  })
)
