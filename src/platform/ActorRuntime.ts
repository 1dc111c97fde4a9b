/** The actor runtime of one process (src/Server.ts wires it under every actor and feature). */
import { NodeClusterSocket } from "@effect/platform-node"
import { Effect, Layer, Option } from "effect"
import {
  RunnerAddress,
  RunnerHealth,
  Runners,
  RunnerStorage,
  Sharding,
  ShardingConfig,
  SocketRunner,
  SqlMessageStorage,
  SqlRunnerStorage
} from "effect/cluster"
import { Digest } from "effect/crypto"
import { RpcSerialization } from "effect/rpc"
import { migrateClusterStorage } from "../../sql/ClusterMessageRepo.ts"
import { fixSetting } from "../../sql/ClusterSettingsRepo.ts"
import { type AppConfig, AppConfigService, limits, type RunnerHostPort, stopStart } from "./Config.ts"
import { LocalActors } from "./LocalActors.ts"
import { CountedSharding } from "./monitoring/ActorMetrics.ts"

/**
 * How fast a cluster of runners notices a dead one (docs/CLUSTER.md "When a runner dies"): each runner
 * re-reads the runner table and its shard locks every second, one health check a second pings the
 * runners (five failed pings 0.5 s apart declare one dead), and a shard lock not refreshed for 5 s
 * is free. effect's defaults (10 s, 35 s, 1 minute) move a dead runner's shards in about 37 s.
 */
const failoverTimings = {
  refreshAssignmentsInterval: "1 second",
  runnerHealthCheckInterval: "1 second",
  shardLockRefreshInterval: "1 second",
  shardLockExpiration: "5 seconds"
} as const

/** The shard count is fixed for the life of a database: a process started with another refuses to start. */
const fixedShardCount = (count: number) =>
  Layer.effectDiscard(
    Effect.flatMap(Effect.orDie(fixSetting("shard_count", String(count))), (recorded) =>
      recorded === String(count)
        ? Effect.void
        : stopStart(`SHARD_COUNT: this database's cluster has ${recorded} shards, fixed for its life (got ${count})`)
    )
  )

const shardingConfig = (config: AppConfig, runner: Option.Option<RunnerHostPort>) =>
  ShardingConfig.layer({
    entityMaxIdleTime: "5 minutes",
    entityMessagePollInterval: `${limits.clusterPollMs} millis`,
    maxResidentEntities: config.maxResidentEntities,
    shardsPerGroup: config.shardCount,
    simulateRemoteSerialization: false,
    // A single runner keeps effect's default address: with Runners.layerNoop nothing listens on it, and
    // every shard is its own.
    ...(Option.isSome(runner)
      ? { runnerAddress: Option.some(RunnerAddress.make(runner.value.host, runner.value.port)), ...failoverTimings }
      : {})
  } as any)

/** effect/cluster's SQL message storage, its tables migrated first (persisted messages: the investment timers). */
const messageStorage = SqlMessageStorage.layerStorage({}).pipe(
  Layer.provide(Layer.effectDiscard(Effect.orDie(migrateClusterStorage)))
)

/**
 * Single runner (no RUNNER_ADDRESS, the default): every entity in this process. Ordinary messages are
 * volatile and never touch storage; persisted ones (the investment maturity `Timer`, actors/invest/Protocol.ts)
 * are kept in effect/cluster's SQL message storage (cluster_messages / cluster_replies) and read when due
 * every `limits.clusterPollMs` (docs/DURABLE-TIMERS.md). Runner storage stays in memory: SqlRunnerStorage
 * hangs on the embedded database (a reserved connection, a pool of one), and one runner has no one to meet.
 */
const singleRunner = (config: AppConfig) =>
  LocalActors.pipe(
    Layer.provideMerge(Sharding.layer),
    Layer.provideMerge(Runners.layerNoop),
    Layer.provideMerge(messageStorage),
    Layer.provide([RunnerStorage.layerMemory, RunnerHealth.layerNoop, Digest.layerWebCrypto]),
    Layer.provideMerge(shardingConfig(config, Option.none()))
  )

/**
 * A runner of a cluster (RUNNER_ADDRESS, docs/CLUSTER.md): runners register in PostgreSQL
 * (SqlRunnerStorage: the runner table and one advisory lock per shard, freed when a runner's connection
 * dies), every shard has one owner, and a message for an entity of another runner's shard goes to it over
 * a socket on RUNNER_ADDRESS (effect's binary schema serialisation); one on this runner passes by
 * reference as in a single runner. Messages stay volatile: persisting each costs milliseconds and the
 * money's idempotence is in SQL (every mutating message carries the id its commit is unique on).
 */
const clusterRunner = (config: AppConfig, runner: RunnerHostPort) => {
  const serialization = RpcSerialization.layerSchemaBinary()
  const clientProtocol = NodeClusterSocket.layerClientProtocol.pipe(Layer.provide(serialization))
  const settings = shardingConfig(config, Option.some(runner))
  return SocketRunner.layer.pipe(
    Layer.provide(RunnerHealth.layerPing.pipe(Layer.provide(Runners.layerRpc), Layer.provide(clientProtocol))),
    Layer.provide([NodeClusterSocket.layerSocketServer, clientProtocol]),
    Layer.provideMerge(messageStorage),
    Layer.provide(Layer.orDie(SqlRunnerStorage.layer)),
    Layer.provide([Digest.layerWebCrypto, serialization]),
    Layer.provide(settings),
    Layer.orDie
  )
}

/** Every entity type registered through it has its lifecycle counted (monitoring/ActorMetrics.ts). */
export const ActorRuntime = Layer.unwrap(
  AppConfigService.useSync((config) =>
    CountedSharding.pipe(
      Layer.provideMerge(
        Option.match(config.runnerAddress, {
          onNone: () => singleRunner(config),
          onSome: (runner) => clusterRunner(config, runner)
        })
      ),
      Layer.provide(fixedShardCount(config.shardCount))
    )
  )
)
