/**
 * Durable time for investments (CONTRACT C17 "Maturity timer", docs/INVESTMENTS.md), the backstop beside
 * each investment's own DeliverAt timer (actors/invest/Protocol.ts `Timer`): a ClusterCron every
 * second (effect/cluster's own durable schedule, as src/services/PaymentExpiry.ts) sends `Due` to every
 * investment not Closed whose due_at passed (the partial index investments_due): maturity, a managed
 * accrual boundary, or finishing a half-closed investment. The due time lives in the investment row, so
 * what fell due while the service was down is found by the first pass, which runs as the layer starts.
 * Each actor decides from the state it reads and commits conditionally on it, so overlapping passes (two
 * processes, a restart) close nothing twice.
 */
import { Cron, Effect, Layer } from "effect"
import { ClusterCron } from "effect/cluster"
import { InvestmentEntity } from "../../actors/invest/Protocol.ts"
import { dueInvestmentIds } from "../../sql/InvestmentRepo.ts"
import { limits } from "../platform/Config.ts"
import { makeDb } from "../platform/db/Sql.ts"

/** One pass: Due for every investment due now (at most limits.expirySweepBatchMax; the next pass takes the rest). */
export const investmentSweep = Effect.gen(function* () {
  const db = yield* makeDb
  const investments = yield* InvestmentEntity.client
  const due = yield* db(dueInvestmentIds(new Date(), limits.expirySweepBatchMax))
  yield* Effect.forEach(due, (timetick) => Effect.ignoreCause(investments(String(timetick)).Due({})), {
    concurrency: 8,
    discard: true
  })
})

/** The sweep every second, plus one pass at start. */
export const InvestmentSweep = Layer.merge(
  ClusterCron.make({
    name: "InvestmentSweep",
    cron: Cron.parseUnsafe("* * * * * *"),
    execute: Effect.ignoreCause(investmentSweep)
  }),
  Layer.effectDiscard(Effect.forkScoped(Effect.ignoreCause(investmentSweep)))
)
