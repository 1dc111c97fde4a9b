/**
 * Periodic jobs once per cluster, on their period (issue #22 item 16): the reconciliations, the expiry
 * and investment sweeps and webhook dispatch. Every process (WORKERS) runs the same loop: at each beat
 * (src/platform/CronBeat.ts: floor(epoch_ms / period)) it claims the beat in `job_leases`
 * (sql/JobLeaseRepo.ts, one conditional upsert) and runs the pass only if the claim is its own, so a
 * beat's pass runs once across all processes. The pass at start-up (catching up on what fell due while
 * the service was down) is the current beat's: it runs in one process, not each — claimed like any other,
 * except that a claim made before this start of the service (SERVICE_STARTED_AT, given to every worker
 * by the primary) does not count, so a restart within a beat still catches up.
 * A pass longer than the period skips the beats it overran (no backlog of passes). A failed claim or pass
 * is logged; the next beat tries again. Each process publishes `job_passes_total{job}` (passes it ran)
 * and `job_last_pass_seconds{job}` (the duration of its last one).
 * Beats follow effect's Clock (the live clock in the service; TestClock in test/actors/periodic-job.test.ts and
 * job-passes*.test.ts, which drive the schedule and each job's pass without waiting); a pass that decides
 * what is due reads the same Clock, not Date.now().
 */
import { Clock, Effect, Layer, Metric } from "effect"
import { claimBeat, claimStartBeat } from "../../sql/JobLeaseRepo.ts"
import { beatOf, nextBeatAt } from "./CronBeat.ts"
import { makeDb } from "./db/Sql.ts"
import { Metrics } from "./monitoring/Metrics.ts"

/** When this start of the service began: the primary's (WORKERS, src/Supervisor.ts), else this process's. */
const serviceStartedAt = new Date(Number(process.env.SERVICE_STARTED_AT ?? "") || Date.now())

export const jobPassesTotal = Metric.counter("job_passes_total", {
  description: "Passes of the periodic job this process ran (one per beat across all processes), by job",
  incremental: true
})

/** A job of `periodMs` running `pass` once per beat across the cluster, from the layer's start. */
export const periodicJob = <R>(job: string, periodMs: number, pass: Effect.Effect<void, unknown, R>) =>
  Layer.effectDiscard(
    Effect.gen(function* () {
      const db = yield* makeDb
      const metrics = yield* Metrics
      const passes = Metric.withAttributes(jobPassesTotal, { job })
      let lastPassSeconds = 0
      yield* metrics.gauge(
        "job_last_pass_seconds",
        "Seconds the periodic job's last pass in this process took, by job",
        () => lastPassSeconds,
        { job }
      )
      const runBeat = (beat: bigint, atStart: boolean) =>
        Effect.gen(function* () {
          const now = new Date(yield* Clock.currentTimeMillis)
          const claim = atStart ? claimStartBeat(job, beat, now, serviceStartedAt) : claimBeat(job, beat, now)
          if (!(yield* db(claim))) return
          const started = performance.now()
          yield* Effect.catchCause(pass, (cause) => Effect.logWarning(`periodic job ${job}: pass failed`, cause))
          lastPassSeconds = (performance.now() - started) / 1000
          metrics.update(passes, 1)
        }).pipe(Effect.catchCause((cause) => Effect.logWarning(`periodic job ${job}: beat not claimed`, cause)))
      const loop = Effect.gen(function* () {
        // The start-up pass is the current beat's.
        yield* runBeat(beatOf(yield* Clock.currentTimeMillis, periodMs), true)
        for (;;) {
          const next = nextBeatAt(yield* Clock.currentTimeMillis, periodMs)
          // A timer may wake a little before the wall clock reaches the beat: wait out the rest.
          for (let now = yield* Clock.currentTimeMillis; now < next; now = yield* Clock.currentTimeMillis)
            yield* Effect.sleep(Math.max(1, next - now))
          yield* runBeat(beatOf(yield* Clock.currentTimeMillis, periodMs), false)
        }
      })
      yield* Effect.forkScoped(loop)
    })
  )
