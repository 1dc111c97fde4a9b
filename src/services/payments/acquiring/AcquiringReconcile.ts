/**
 * Card acquiring reconciliation (CONTRACT C16 "Reconciliation"; docs/CARDS.md): a periodic job
 * (src/platform/PeriodicJob.ts: once per beat across the cluster) every ACQUIRING_RECONCILE_SECONDS. Each run asks
 * the acquirer about every session Pending for at least ACQUIRING_RECONCILE_AFTER_SECONDS and applies its
 * answer as the webhook would (the order actor's CardOutcome); a session still not decided by the
 * acquirer (Pending, or unknown to it) once ACQUIRING_SESSION_TTL_SECONDS old is closed at the acquirer
 * (Acquirer.close: atomic against a card taken meanwhile, whose outcome then wins) and becomes Expired
 * (the order is Started again, and may then expire as any order). Every session asked gets `checked_at`. Runs that
 * overlap (two processes, a restart) and a webhook arriving meanwhile meet at the one conditional
 * transition, so nothing settles twice.
 */
import { Clock, Effect, Layer } from "effect"
import { markSessionsChecked, pendingAcquiringSessions } from "../../../../sql/AcquiringRepo.ts"
import { AppConfigService } from "../../../platform/Config.ts"
import { makeDb } from "../../../platform/db/Sql.ts"
import { Acquirer } from "./Acquirer.ts"
import { periodicJob } from "../../../platform/PeriodicJob.ts"
import { PaymentCards } from "./PaymentCards.ts"

/** Sessions one run looks at (the next run takes the rest). */
const reconcileBatchMax = 500

const reconcile = Effect.gen(function* () {
  const db = yield* makeDb
  const config = yield* AppConfigService
  const acquirer = yield* Acquirer
  const cards = yield* PaymentCards
  // The ages are measured on effect's Clock (the wall clock in the service; TestClock in
  // test/actors/job-passes-reconcile.test.ts), the time the job's beats follow.
  const now = yield* Clock.currentTimeMillis
  const due = yield* db(
    pendingAcquiringSessions(new Date(now - config.acquiringReconcileAfterSeconds * 1000), reconcileBatchMax)
  )
  yield* Effect.forEach(
    due,
    (session) =>
      Effect.gen(function* () {
        const status = yield* acquirer.status(session.acquiringId)
        if (status === "Approved" || status === "Declined") return yield* cards.outcome(session, status)
        if (status === "Expired" || now - session.createdAt.getTime() >= config.acquiringSessionTtlSeconds * 1000) {
          // Closed at the provider first, atomically against a card being taken meanwhile: the outcome
          // that won is what the session becomes (a payer's last-second approval is not lost).
          const closed = yield* acquirer.close(session.acquiringId)
          return yield* cards.outcome(session, closed === "Approved" || closed === "Declined" ? closed : "Expired")
        }
      }).pipe(Effect.ignoreCause),
    { concurrency: 8, discard: true }
  )
  yield* db(markSessionsChecked(due.map((s) => s.acquiringId)))
})

/** Every ACQUIRING_RECONCILE_SECONDS, once per beat across the cluster (src/platform/PeriodicJob.ts). */
export const AcquiringReconcileCron = Layer.unwrap(
  Effect.gen(function* () {
    const config = yield* AppConfigService
    return periodicJob("AcquiringReconcile", config.acquiringReconcileSeconds * 1000, reconcile)
  })
)
