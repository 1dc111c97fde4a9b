/**
 * effect/cluster's own message storage (SqlMessageStorage creates and migrates `cluster_messages`
 * and `cluster_replies` itself; docs/DURABLE-TIMERS.md). It never deletes a processed message: the
 * retention job removes processed ones, and their replies, older than a cutoff. A message's id is a
 * Snowflake (its first bits are the time it was saved), so "older than" is a range on the primary key.
 */
import { Effect, Layer } from "effect"
import { MachineId, Snowflake, SqlMessageStorage } from "effect/cluster"
import { SqlClient } from "effect/sql"
import { decodeFirst, Int, record } from "./Decoding.ts"
import { migrationLockKey } from "./Migrator.ts"

/**
 * SqlMessageStorage's own migrations (its tables and `cluster_migrations`), in one transaction under
 * our migration lock: WORKERS processes starting at once on a fresh database would otherwise race
 * on its unguarded `CREATE TABLE IF NOT EXISTS cluster_migrations`.
 */
export const migrateClusterStorage = SqlClient.SqlClient.use((sql) =>
  sql.withTransaction(
    Effect.andThen(
      sql`SELECT pg_advisory_xact_lock(${migrationLockKey})`,
      Effect.scoped(Layer.build(SqlMessageStorage.layerMigrations({}))).pipe(
        // Periodic jobs left ClusterCron for beat leases (src/platform/PeriodicJob.ts): a database of an
        // older build may still hold unprocessed ClusterCron runs, whose entity types no longer exist and
        // which the storage poll would retry for ever.
        Effect.andThen(sql`DELETE FROM cluster_messages WHERE NOT processed AND entity_type LIKE 'ClusterCron/%'`)
      )
    )
  )
)

const deleted = decodeFirst(record({ n: Int }))

/** The smallest Snowflake id saved at or after `at`. */
const idAt = (at: Date) =>
  String(Snowflake.make({ timestamp: at.getTime(), machineId: MachineId.make(0), sequence: 0 }))

/**
 * Deletes at most `limit` processed messages saved before `before`, with their replies; the number
 * deleted (the job repeats while a batch comes back full). An unprocessed message (a timer not yet
 * due) is never deleted, however old.
 */
export const deleteProcessedMessages = (before: Date, limit: number) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(
      sql`WITH gone AS (
          DELETE FROM cluster_messages WHERE id IN (
            SELECT id FROM cluster_messages WHERE processed AND id < ${idAt(before)} ORDER BY id LIMIT ${limit})
          RETURNING request_id),
        replies AS (DELETE FROM cluster_replies WHERE request_id IN (SELECT request_id FROM gone))
        SELECT count(*)::int AS n FROM gone`,
      (rows) => deleted(rows)?.n ?? 0
    )
  )
