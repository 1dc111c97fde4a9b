/**
 * Spike (docs/DURABLE-TIMERS.md): timers that survive a restart with effect's own machinery, on
 * the database the service uses (embedded PGlite behind the unix socket, or a fresh database on
 * DATABASE_URL) and the single-runner Sharding of src/platform/ActorRuntime.ts: SqlMessageStorage (what the
 * investment maturity timers run on), runner storage in memory (one runner).
 *
 * Each case runs a first runtime that schedules work, shuts it down before the work is due, then a
 * second runtime on the same database (PGlite closed and reopened on the same data directory)
 * that must do the work once, after it is due:
 * - an entity message whose payload carries DeliverAt (a payment order's expiry),
 * - a workflow that sleeps on DurableClock between two activities (an investment's maturity),
 * - a ClusterCron job that fires every two seconds, once per tick (reconciliation).
 * With DATABASE_URL (real PostgreSQL) a fourth case runs two runners at once on one database
 * (SqlRunnerStorage shard locks, no runner transport): the cron runs once per tick in the cluster and
 * expiries sent by one runner are delivered once, by whichever runner owns each shard.
 * The runtimes keep real time: the storage poll is 500 ms, so a due message waits at most that.
 */
import { assert, describe, it } from "@effect/vitest"
import { Context, Cron, DateTime, Effect, Layer, Option, PrimaryKey, Schema } from "effect"
import {
  ClusterCron,
  ClusterSchema,
  ClusterWorkflowEngine,
  DeliverAt,
  Entity,
  RunnerAddress,
  RunnerHealth,
  Runners,
  RunnerStorage,
  Sharding,
  ShardingConfig,
  SqlMessageStorage,
  SqlRunnerStorage
} from "effect/cluster"
import { Digest } from "effect/crypto"
import { Rpc } from "effect/rpc"
import { SqlClient } from "effect/sql"
import { Activity, DurableClock, Workflow } from "effect/workflow"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { AppConfigService } from "../../src/platform/Config.ts"
import { MigratedDatabase } from "../../src/platform/db/Database.ts"
import { testConfig } from "../support/Actors.ts"
import { dropDatabase } from "../support/Postgres.ts"
import { usingRealPostgres } from "../support/Service.ts"
import { fillDataDir, newServerDatabase } from "../support/Template.ts"
import { deleteProcessedMessages } from "../../sql/ClusterMessageRepo.ts"

// ---------------------------------------------------------------------------------------------
// One database that outlives the runtimes of a case
// ---------------------------------------------------------------------------------------------

interface Place {
  readonly dataDir: string
  readonly databaseUrl: string | undefined
}

const newPlace = Effect.acquireRelease(
  Effect.promise(async (): Promise<Place> => {
    const dataDir = mkdtempSync(join(tmpdir(), "core-timers-"))
    const databaseUrl = usingRealPostgres() ? await newServerDatabase(process.env.DATABASE_URL!) : undefined
    if (databaseUrl === undefined) fillDataDir(dataDir) // the run's migrated template
    return { dataDir, databaseUrl }
  }),
  (place) =>
    Effect.promise(async () => {
      rmSync(place.dataDir, { recursive: true, force: true })
      if (place.databaseUrl !== undefined) await dropDatabase(place.databaseUrl)
    })
)

const configFor = (place: Place) => Layer.succeed(AppConfigService)(testConfig(place.databaseUrl, place.dataDir))

/**
 * The runtime under test: the service's single runner (src/platform/ActorRuntime.ts) with SQL message storage,
 * on the migrated database of `place`. Building it opens the database; releasing it closes both.
 */
const clusterOn = (place: Place) =>
  Sharding.layer.pipe(
    Layer.provideMerge(Runners.layerNoop),
    Layer.provideMerge(SqlMessageStorage.layer),
    Layer.provide([RunnerStorage.layerMemory, RunnerHealth.layerNoop, Digest.layerWebCrypto]),
    Layer.provide(
      ShardingConfig.layer({
        entityMaxIdleTime: "5 minutes",
        entityMessagePollInterval: "500 millis",
        simulateRemoteSerialization: false
      })
    ),
    Layer.provideMerge(MigratedDatabase),
    Layer.provide(configFor(place))
  )

/**
 * One of several runners in one cluster (real PostgreSQL only): shard locks and the runner list in
 * SqlRunnerStorage (advisory locks on a reserved connection), messages in SqlMessageStorage, and no
 * runner-to-runner transport (Runners.layerNoop): persisted messages reach the shard's owner
 * through its storage poll.
 */
const runnerOn = (place: Place, port: number) =>
  Sharding.layer.pipe(
    Layer.provideMerge(Runners.layerNoop),
    Layer.provideMerge(SqlMessageStorage.layer),
    Layer.provide([Layer.orDie(SqlRunnerStorage.layer), RunnerHealth.layerNoop, Digest.layerWebCrypto]),
    Layer.provide(
      ShardingConfig.layer({
        runnerAddress: Option.some(RunnerAddress.make("127.0.0.1", port)),
        entityMessagePollInterval: "500 millis",
        simulateRemoteSerialization: false
      })
    ),
    Layer.provideMerge(MigratedDatabase),
    Layer.provide(configFor(place))
  )

/** Runs `program` on a runtime of `features` over the cluster on `place`, then shuts it all down. */
const runtime = <A, E>(
  place: Place,
  features: Layer.Layer<never, never, any>,
  program: Effect.Effect<A, E, any>
): Effect.Effect<A, E> =>
  program.pipe(Effect.provide(Layer.provideMerge(features, clusterOn(place)))) as Effect.Effect<A, E>

const waitUntil = (done: () => boolean, seconds: number) =>
  Effect.gen(function* () {
    const until = Date.now() + seconds * 1000
    while (!done() && Date.now() < until) yield* Effect.sleep("100 millis")
  })

/** Which runtime of the case is alive (1 before the restart, 2 after). */
let generation = 0

/** The runner that did the work (two-runner case); the fiber's own service, so each runner tags its runs. */
class RunnerName extends Context.Service<RunnerName, string>()("spike/RunnerName") {}

// ---------------------------------------------------------------------------------------------
// 1. DeliverAt: a persisted entity message held in storage until its time
// ---------------------------------------------------------------------------------------------

/** A payment order's expiry: due at `dueAt`, one per order (the primary key deduplicates). */
class ExpireOrder extends Schema.Class<ExpireOrder>("spike/ExpireOrder")({
  orderId: Schema.String,
  dueAt: Schema.DateTimeUtc
}) {
  [PrimaryKey.symbol]() {
    return this.orderId
  }
  [DeliverAt.symbol]() {
    return this.dueAt
  }
}

const OrderTimer = Entity.make("SpikeOrderTimer", [
  Rpc.make("Expire", { payload: ExpireOrder }).annotate(ClusterSchema.Persisted, true)
])

const expired: Array<{
  readonly orderId: string
  readonly at: number
  readonly generation: number
  readonly runner?: string | undefined
}> = []

const OrderTimerLayer = OrderTimer.toLayer(
  Effect.gen(function* () {
    const runner = Option.getOrUndefined(yield* Effect.serviceOption(RunnerName))
    return OrderTimer.of({
      Expire: ({ payload }) =>
        Effect.sync(() => void expired.push({ orderId: payload.orderId, at: Date.now(), generation, runner }))
    })
  })
)

// ---------------------------------------------------------------------------------------------
// 2. Workflow + DurableClock: an investment that matures after a durable sleep
// ---------------------------------------------------------------------------------------------

const Maturity = Workflow.make("SpikeMaturity", {
  payload: { investmentId: Schema.String },
  idempotencyKey: (payload) => payload.investmentId
})

const steps: Array<{ readonly step: string; readonly at: number; readonly generation: number }> = []

const MaturityLayer = Maturity.toLayer((payload) =>
  Effect.gen(function* () {
    yield* Activity.make({
      name: "open",
      execute: Effect.sync(() => void steps.push({ step: `open ${payload.investmentId}`, at: Date.now(), generation }))
    })
    // inMemoryThreshold 0: even a short sleep goes through the clock entity (a DeliverAt message).
    yield* DurableClock.sleep({ name: "term", duration: "3 seconds", inMemoryThreshold: 0 })
    yield* Activity.make({
      name: "mature",
      execute: Effect.sync(
        () => void steps.push({ step: `mature ${payload.investmentId}`, at: Date.now(), generation })
      )
    })
  })
).pipe(Layer.provideMerge(ClusterWorkflowEngine.layer))

// ---------------------------------------------------------------------------------------------
// 3. ClusterCron: a job every two seconds
// ---------------------------------------------------------------------------------------------

const ticks: Array<{ readonly scheduled: number; readonly generation: number; readonly runner?: string }> = []

const ReconcileCron = ClusterCron.make({
  name: "SpikeReconcile",
  cron: Cron.parseUnsafe("*/2 * * * * *"),
  execute: Effect.gen(function* () {
    const scheduled = yield* ClusterCron.CurrentScheduledTime
    const runner = yield* Effect.serviceOption(RunnerName)
    ticks.push({ scheduled: scheduled.epochMilliseconds, generation, runner: Option.getOrUndefined(runner) })
  })
})

const clusterTables = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{
    table_name: string
  }>`SELECT table_name FROM information_schema.tables WHERE table_name LIKE 'cluster%' ORDER BY table_name`
  return rows.map((row) => row.table_name)
})

describe("durable timers on effect/cluster with SqlMessageStorage", () => {
  it.live(
    "DeliverAt: expiries for now+2s and now+5s, runtime stopped before either is due, each delivered once by the next runtime",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const place = yield* newPlace
          expired.length = 0
          const due: Record<string, number> = {}
          generation = 1
          const tables = yield* runtime(
            place,
            OrderTimerLayer,
            Effect.gen(function* () {
              const now = yield* DateTime.now
              for (const [orderId, seconds] of [
                ["falls-due-while-down", 2],
                ["falls-due-while-running", 5]
              ] as const) {
                const dueAt = DateTime.add(now, { seconds })
                due[orderId] = dueAt.epochMilliseconds
                const client = (yield* OrderTimer.client)(orderId)
                // discard: the caller does not wait for the reply (it would wait until the message is due);
                // sent twice: the primary key keeps one
                yield* client.Expire(new ExpireOrder({ orderId, dueAt }), { discard: true })
                yield* client.Expire(new ExpireOrder({ orderId, dueAt }), { discard: true })
              }
              yield* Effect.sleep("1 second")
              return yield* clusterTables
            })
          )
          assert.deepStrictEqual(expired, [], "nothing delivered before its time, nor at shutdown")
          assert.includeMembers(tables, ["cluster_messages", "cluster_replies"])
          // down past the first expiry
          yield* Effect.sleep(Math.max(0, due["falls-due-while-down"]! + 500 - Date.now()))
          generation = 2
          const restarted = Date.now()
          yield* runtime(
            place,
            OrderTimerLayer,
            Effect.gen(function* () {
              yield* waitUntil(() => expired.length >= 2, 15)
              yield* Effect.sleep("1500 millis") // a second delivery would show here
            })
          )
          const byOrder = new Map(expired.map((e) => [e.orderId, e]))
          assert.strictEqual(expired.length, 2, JSON.stringify(expired))
          assert.deepStrictEqual(
            expired.map((e) => e.generation),
            [2, 2]
          )
          const down = byOrder.get("falls-due-while-down")!
          const running = byOrder.get("falls-due-while-running")!
          assert.isBelow(down.at - restarted, 3_000, "what fell due while down: within seconds of the start")
          assert.isAtLeast(running.at, due["falls-due-while-running"]!)
          assert.isBelow(running.at - due["falls-due-while-running"]!, 1_000, "while running: within the 500 ms poll")
        })
      ),
    60_000
  )

  it.live(
    "DurableClock: a workflow sleeping 3 s is stopped mid-sleep and completes after a restart, each activity once",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const place = yield* newPlace
          steps.length = 0
          generation = 1
          let started = 0
          yield* runtime(
            place,
            MaturityLayer,
            Effect.gen(function* () {
              started = Date.now()
              yield* Maturity.execute({ investmentId: "inv-1" }, { discard: true })
              yield* waitUntil(() => steps.length > 0, 10)
              yield* Effect.sleep("500 millis")
            })
          )
          assert.deepStrictEqual(
            steps.map((s) => s.step),
            ["open inv-1"]
          )
          generation = 2
          const result = yield* runtime(
            place,
            MaturityLayer,
            Effect.gen(function* () {
              yield* waitUntil(() => steps.length > 1, 15)
              yield* Effect.sleep("1 second")
              const executionId = yield* Maturity.executionId({ investmentId: "inv-1" })
              return yield* Maturity.poll(executionId)
            })
          )
          assert.deepStrictEqual(
            steps.map((s) => `${s.step}@${s.generation}`),
            ["open inv-1@1", "mature inv-1@2"]
          )
          assert.isAtLeast(steps[1]!.at - started, 3_000)
          assert.strictEqual(Option.getOrUndefined(result)?._tag, "Complete")
        })
      ),
    60_000
  )

  it.live(
    "ClusterCron: every 2 s, one run per scheduled time, across a restart",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const place = yield* newPlace
          ticks.length = 0
          generation = 1
          yield* runtime(place, ReconcileCron, Effect.sleep("5 seconds"))
          const before = ticks.length
          generation = 2
          yield* runtime(place, ReconcileCron, Effect.sleep("5 seconds"))
          const times = ticks.map((t) => t.scheduled)
          assert.isAtLeast(before, 1, JSON.stringify(ticks))
          assert.isAtLeast(ticks.length - before, 1, JSON.stringify(ticks))
          assert.strictEqual(new Set(times).size, times.length, "one run per scheduled time")
          for (const t of times) assert.strictEqual(t % 2000, 0)
        })
      ),
    60_000
  )

  it.live(
    "retention (sql/ClusterMessageRepo.ts): processed messages older than the cutoff go with their replies, a timer not yet due stays",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const place = yield* newPlace
          expired.length = 0
          generation = 1
          const counts = Effect.gen(function* () {
            const sql = yield* SqlClient.SqlClient
            const [m] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM cluster_messages`
            const [r] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM cluster_replies`
            return [m!.n, r!.n]
          })
          const result = yield* runtime(
            place,
            OrderTimerLayer,
            Effect.gen(function* () {
              const now = yield* DateTime.now
              for (const [orderId, seconds] of [
                ["due-soon", 0.3],
                ["due-later", 600]
              ] as const) {
                const client = (yield* OrderTimer.client)(orderId)
                yield* client.Expire(new ExpireOrder({ orderId, dueAt: DateTime.add(now, { seconds }) }), {
                  discard: true
                })
              }
              yield* waitUntil(() => expired.length >= 1, 10)
              yield* Effect.sleep("500 millis") // the reply is saved
              const before = yield* counts
              const tooOld = yield* deleteProcessedMessages(new Date(Date.now() - 86_400_000), 1000)
              const done = yield* deleteProcessedMessages(new Date(Date.now() + 1_000), 1000)
              return { before, tooOld, done, after: yield* counts }
            })
          )
          assert.deepStrictEqual(
            expired.map((e) => e.orderId),
            ["due-soon"]
          )
          assert.deepStrictEqual(result.before, [2, 1], "two timers stored, one processed with its reply")
          assert.strictEqual(result.tooOld, 0, "nothing older than a day")
          assert.strictEqual(result.done, 1)
          assert.deepStrictEqual(result.after, [1, 0], "the timer not yet due stays; the reply went with its message")
        })
      ),
    60_000
  )

  it.live.skipIf(!usingRealPostgres())(
    "two runners on one PostgreSQL: the cron runs once per tick in the cluster, an expiry sent by one is delivered once",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const place = yield* newPlace
          ticks.length = 0
          expired.length = 0
          generation = 3
          const runnerA = runnerOn(place, 50001)
          const runnerB = runnerOn(place, 50002)
          const features = (name: string) =>
            Layer.mergeAll(ReconcileCron, OrderTimerLayer).pipe(Layer.provide(Layer.succeed(RunnerName)(name)))
          // Due well after B has taken its shards, even on a loaded machine (B starts 300 ms after A).
          const dueAt = Date.now() + 8_000
          const orders = Array.from({ length: 16 }, (_, i) => `o-${i}`)
          const work = (name: string, runner: typeof runnerA) =>
            Effect.gen(function* () {
              if (name === "A") {
                for (const orderId of orders) {
                  const client = (yield* OrderTimer.client)(orderId)
                  yield* client.Expire(new ExpireOrder({ orderId, dueAt: DateTime.makeUnsafe(dueAt) }), {
                    discard: true
                  })
                }
              }
              yield* Effect.sleep("13 seconds")
            }).pipe(Effect.provide(Layer.provideMerge(features(name), runner)))
          yield* Effect.all([work("A", runnerA), Effect.delay(work("B", runnerB), "300 millis")], {
            concurrency: "unbounded"
          })
          const times = ticks.map((t) => t.scheduled)
          assert.isAtLeast(ticks.length, 2, JSON.stringify(ticks))
          assert.strictEqual(new Set(times).size, times.length, "one run per scheduled time: " + JSON.stringify(ticks))
          assert.sameMembers(
            expired.map((e) => e.orderId),
            orders
          )
          for (const e of expired) assert.isAtLeast(e.at, dueAt)
          assert.sameMembers(
            [...new Set(expired.map((e) => e.runner))],
            ["A", "B"],
            "the expiries sent by A are delivered by the owner of each shard, B included"
          )
        })
      ),
    60_000
  )
})
