/**
 * What the job-pass tests (test/actors/job-passes*.test.ts) share: a real-time wait for the database while the
 * service's clock is a TestClock, and the job's lease row (src/platform/PeriodicJob.ts: the last beat claimed, the
 * passes run).
 */
import { assert } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"

/** Waits (real time: database round trips, a partner's answers) until `done`, at most `withinMs`. */
export const until = <E, R>(what: string, done: Effect.Effect<boolean, E, R>, withinMs = 10_000) =>
  TestClock.withLive(
    Effect.gen(function* () {
      for (let waited = 0; waited < withinMs; waited += 100) {
        if (yield* done) return
        yield* Effect.sleep("100 millis")
      }
      assert.fail(`not within ${withinMs / 1000} s: ${what}`)
    })
  )

/** The last beat `job` claimed (and ran its pass for). */
export const lastBeatOf = (job: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const [row] = yield* sql<{ beat: string }>`SELECT beat::text AS beat FROM job_leases WHERE job = ${job}`.pipe(
      Effect.orDie
    )
    return row === undefined ? undefined : Number(row.beat)
  })

/** How many passes `job` has run, across the cluster. */
export const passesOf = (job: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const [row] = yield* sql<{ passes: string }>`SELECT passes::text AS passes FROM job_leases WHERE job = ${job}`.pipe(
      Effect.orDie
    )
    return Number(row?.passes ?? 0)
  })
