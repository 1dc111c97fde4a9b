/**
 * Durable time for investments (CONTRACT C17 "Maturity timer", docs/INVESTMENTS.md), the backstop beside
 * each investment's own DeliverAt timer (actors/invest/Protocol.ts `Timer`): a periodic job every second
 * (src/platform/PeriodicJob.ts: once per beat across the cluster) sends `Due` to every
 * investment not Closed whose due_at passed (the partial index investments_due): maturity, a managed
 * accrual boundary, or finishing a half-closed investment. The due time lives in the investment row, so
 * what fell due while the service was down is found by the first pass, the current beat's at start.
 * Each actor decides from the state it reads and commits conditionally on it, so overlapping passes (two
 * processes, a restart) close nothing twice.
 */
import { Clock, Effect } from "effect"
import { InvestmentEntity } from "../../../actors/invest/Protocol.ts"
import { dueInvestmentIds } from "../../../sql/InvestmentRepo.ts"
import { limits } from "../../platform/Config.ts"
import { makeDb } from "../../platform/db/Sql.ts"
import { periodicJob } from "../../platform/PeriodicJob.ts"

/** One pass: Due for every investment due now (at most limits.expirySweepBatchMax; the next pass takes the rest). */
export const investmentSweep = Effect.gen(function* () {
  const db = yield* makeDb
  const investments = yield* InvestmentEntity.client
  const due = yield* db(dueInvestmentIds(new Date(yield* Clock.currentTimeMillis), limits.expirySweepBatchMax))
  yield* Effect.forEach(due, (timetick) => Effect.ignoreCause(investments(String(timetick)).Due({})), {
    concurrency: 8,
    discard: true
  })
})

/** The sweep every second, once per beat across the cluster, the start-up pass included. */
export const InvestmentSweep = periodicJob("InvestmentSweep", 1000, investmentSweep)
