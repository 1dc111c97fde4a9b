/**
 * The periodic jobs' beat leases (sql/migrations/0034_job_leases.sql): a process claims beat `beat` of
 * job `job` with one conditional upsert; true only for the first claim of that beat (or a later one)
 * across every process.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export const claimBeat = (job: string, beat: bigint, now: Date) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(
      sql`INSERT INTO job_leases (job, beat, claimed_at) VALUES (${job}, ${String(beat)}, ${now})
        ON CONFLICT (job) DO UPDATE SET beat = EXCLUDED.beat, passes = job_leases.passes + 1, claimed_at = EXCLUDED.claimed_at
        WHERE job_leases.beat < EXCLUDED.beat
        RETURNING 1 AS claimed`,
      (rows) => rows.length === 1
    )
  )

/**
 * The start-up pass's claim: beat `beat` (the current one), also when it was claimed already but before
 * this start of the service (`startedAt`: a restart within one beat still catches up), not when another
 * worker of this same start took it.
 */
export const claimStartBeat = (job: string, beat: bigint, now: Date, startedAt: Date) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(
      sql`INSERT INTO job_leases (job, beat, claimed_at) VALUES (${job}, ${String(beat)}, ${now})
        ON CONFLICT (job) DO UPDATE SET beat = GREATEST(job_leases.beat, EXCLUDED.beat), passes = job_leases.passes + 1,
          claimed_at = EXCLUDED.claimed_at
        WHERE job_leases.beat < EXCLUDED.beat OR job_leases.claimed_at < ${startedAt}
        RETURNING 1 AS claimed`,
      (rows) => rows.length === 1
    )
  )

/** Passes claimed so far of each job (all processes together). */
export const jobPasses = SqlClient.SqlClient.use(
  (sql) =>
    sql<{
      job: string
      passes: string
      beat: string
    }>`SELECT job, passes::text AS passes, beat::text AS beat FROM job_leases`
)
