/**
 * Retention of effect/cluster's message storage: persisted messages (the investment maturity
 * timers) stay in cluster_messages / cluster_replies once processed. Every hour (and once at start)
 * this deletes processed ones older than CLUSTER_MESSAGE_RETENTION_DAYS, in batches. Unprocessed
 * messages (timers not yet due) are never touched. Running in every WORKERS process is harmless: the
 * deletes are idempotent.
 */
import { Effect, Layer, Schedule } from "effect"
import { deleteProcessedMessages } from "../../../sql/ClusterMessageRepo.ts"
import { AppConfigService, limits } from "../../platform/Config.ts"
import { makeDb } from "../../platform/db/Sql.ts"

export const ClusterRetention = Layer.effectDiscard(
  Effect.gen(function* () {
    const db = yield* makeDb
    const config = yield* AppConfigService
    const pass = Effect.gen(function* () {
      const before = new Date(Date.now() - config.clusterMessageRetentionDays * 86_400_000)
      let n: number = limits.retentionBatchMax
      while (n === limits.retentionBatchMax) n = yield* db(deleteProcessedMessages(before, limits.retentionBatchMax))
    })
    yield* Effect.forkScoped(
      pass.pipe(
        Effect.ignoreCause({ log: "Warn", message: "cluster message retention failed" }),
        Effect.repeat(Schedule.spaced(`${limits.retentionIntervalMinutes} minutes`))
      )
    )
  })
)
