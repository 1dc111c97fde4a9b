/**
 * Periodic jobs on the service's clock (src/platform/PeriodicJob.ts; issue #24 item 4): the schedule runs on
 * effect's TestClock here, over the real database and its `job_leases`, so beats come when the test moves the
 * clock, not after real seconds. Two job layers of one name stand for two processes of one deployment.
 * - the start-up pass runs at once, in one of the two; each later beat's pass runs once across both;
 * - a pass that overruns its period skips the beats it overran (no backlog);
 * - a failed pass is logged and the next beat runs again.
 * The jobs' own passes (expiry sweep, webhook dispatch, …) are driven the same way in job-passes.test.ts.
 */
import { assert, layer } from "@effect/vitest"
import { Clock, Effect, Layer, Queue } from "effect"
import { TestClock } from "effect/testing"
import { beatOf } from "../../src/platform/CronBeat.ts"
import { periodicJob } from "../../src/platform/PeriodicJob.ts"
import { ActorPlatform } from "../support/Actors.ts"

const period = 10_000
let nextJob = 0

interface Pass {
  readonly process: string
  readonly beat: bigint
}

/** Real milliseconds for the job fibers' database round trips (the test clock does not move meanwhile). */
const settle = TestClock.withLive(Effect.sleep("400 millis"))

/** Runs `body` with the clock at 3 s into a beat and `processes` job layers of one new job name built. */
const withJob = <A, E, R>(
  processes: ReadonlyArray<string>,
  pass: (process: string, passes: Queue.Queue<Pass>) => Effect.Effect<void>,
  body: (passes: Queue.Queue<Pass>, start: number) => Effect.Effect<A, E, R>
) =>
  Effect.gen(function* () {
    const job = `test-job-${process.pid}-${nextJob++}`
    const passes = yield* Queue.unbounded<Pass>()
    const start = (Math.floor(Date.now() / period) + 1) * period + 3_000
    yield* TestClock.setTime(start)
    const layers = processes.map((name) => periodicJob(job, period, pass(name, passes)))
    yield* Layer.build(layers.reduce((all, one) => Layer.merge(all, one)))
    return yield* body(passes, start)
  }).pipe(Effect.scoped, Effect.provide(TestClock.layer()))

const record = (process: string, passes: Queue.Queue<Pass>) =>
  Effect.flatMap(Clock.currentTimeMillis, (now) => Queue.offer(passes, { process, beat: beatOf(now, period) }))

layer(ActorPlatform, { excludeTestServices: true, timeout: 60_000 })("periodic jobs on the test clock", (it) => {
  it.effect("the start-up pass at once, then one pass per beat across two processes", () =>
    withJob(["a", "b"], record, (passes, start) =>
      Effect.gen(function* () {
        const first = yield* Queue.take(passes)
        assert.strictEqual(first.beat, beatOf(start, period), "the start-up pass is the current beat's")
        yield* settle
        assert.strictEqual(yield* Queue.size(passes), 0, "the other process's start-up claim lost")
        for (let beat = 1; beat <= 4; beat++) {
          yield* TestClock.adjust(period)
          const pass = yield* Queue.take(passes)
          assert.strictEqual(pass.beat, beatOf(start, period) + BigInt(beat))
          yield* settle
          assert.strictEqual(yield* Queue.size(passes), 0, `beat ${beat}: one pass across both processes`)
        }
        // Half a period moves no beat.
        yield* TestClock.adjust(period / 2)
        yield* settle
        assert.strictEqual(yield* Queue.size(passes), 0)
      })
    )
  )

  it.effect("a pass that overruns its period skips the beats it overran", () =>
    withJob(
      ["only"],
      (process, passes) =>
        Effect.flatMap(record(process, passes), () =>
          // The start-up pass takes 2.5 periods of the clock; later passes are short.
          Effect.flatMap(Queue.size(passes), (n) => (n === 1 ? Effect.sleep(period * 2.5) : Effect.void))
        ),
      (passes, start) =>
        Effect.gen(function* () {
          const beat0 = beatOf(start, period)
          assert.strictEqual((yield* Queue.take(passes)).beat, beat0)
          for (let i = 0; i < 3; i++) {
            yield* TestClock.adjust(period)
            yield* settle
          }
          // The pass ended 2.5 periods after it began (beat0 + 2, mid-beat); the next pass is beat0 + 3's.
          const next = yield* Queue.take(passes)
          assert.strictEqual(next.beat, beat0 + 3n, "beats beat0+1 and beat0+2 were skipped, not queued")
          yield* settle
          assert.strictEqual(yield* Queue.size(passes), 0)
        })
    )
  )

  it.effect("a failed pass is logged, and the next beat runs again", () => {
    let ran = 0
    return withJob(
      ["only"],
      (process, passes) =>
        Effect.flatMap(record(process, passes), () =>
          ++ran === 1 ? Effect.die(new Error("the first pass fails")) : Effect.void
        ),
      (passes, start) =>
        Effect.gen(function* () {
          assert.strictEqual((yield* Queue.take(passes)).beat, beatOf(start, period))
          yield* TestClock.adjust(period)
          assert.strictEqual((yield* Queue.take(passes)).beat, beatOf(start, period) + 1n)
          assert.strictEqual(ran, 2)
        })
    )
  })
})
