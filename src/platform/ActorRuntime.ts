/** The actor runtime of one process (src/Server.ts wires it under every actor and feature). */
import { Effect, Layer } from "effect"
import { RunnerHealth, Runners, RunnerStorage, Sharding, ShardingConfig, SqlMessageStorage } from "effect/cluster"
import { Digest } from "effect/crypto"
import { migrateClusterStorage } from "../../sql/ClusterMessageRepo.ts"
import { AppConfigService, limits } from "./Config.ts"
import { CountedSharding } from "./monitoring/ActorMetrics.ts"

/**
 * Single runner (the default): every entity in this process. Ordinary messages are volatile and never
 * touch storage; persisted ones (the investment maturity `Timer`, actors/invest/Protocol.ts) are kept in
 * effect/cluster's SQL message storage (cluster_messages / cluster_replies, created by the layer itself)
 * and read when due every `limits.clusterPollMs` (docs/DURABLE-TIMERS.md). Runner storage stays in
 * memory: SqlRunnerStorage hangs on the embedded database (a reserved connection, a pool of one).
 * Every entity type registered through it has its lifecycle counted (monitoring/ActorMetrics.ts).
 * Messages pass by reference (`simulateRemoteSerialization: false`): nothing leaves the process, and
 * encoding then decoding each typed payload (a ledger operation, an order) cost about 100 µs of CPU
 * per order. The wire stays proven: test/actors/code-commit.test.ts runs on effect's TestRunner, which
 * keeps the default and serialises every message (the code actor's CommitWithDebit to a wallet among
 * them), and test/unit/wallet-orders.test.ts round-trips an order intent through its schema.
 */
export const ActorRuntime = Layer.unwrap(
  AppConfigService.useSync((config) =>
    CountedSharding.pipe(
      Layer.provideMerge(
        Sharding.layer.pipe(
          Layer.provideMerge(Runners.layerNoop),
          Layer.provideMerge(
            SqlMessageStorage.layerStorage({}).pipe(
              Layer.provide(Layer.effectDiscard(Effect.orDie(migrateClusterStorage)))
            )
          ),
          Layer.provide([RunnerStorage.layerMemory, RunnerHealth.layerNoop, Digest.layerWebCrypto]),
          Layer.provide(
            ShardingConfig.layer({
              entityMaxIdleTime: "5 minutes",
              entityMessagePollInterval: `${limits.clusterPollMs} millis`,
              maxResidentEntities: config.maxResidentEntities,
              simulateRemoteSerialization: false
            } as any)
          )
        )
      )
    )
  )
)
