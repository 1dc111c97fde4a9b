/**
 * Local mailboxes (src/platform/LocalActors.ts) on the real effect/cluster runtime the single runner uses,
 * with kinds of this test's own: a counter registered as the wallet is (`answerDefects`, a bounded
 * mailbox) and one with fatal defects, which must stay with effect/cluster. What is checked is what a
 * wallet relies on: one actor per id, one message at a time in arrival order (a model: every reply is the
 * counter after exactly the messages before it), a persisted message (through SQL-less message storage
 * here) reaching the same actor as direct calls, back-pressure (a full mailbox and the resident cap fail
 * `MailboxFull`), a defect ending its message only, a caller that gives up not cutting its message, idle
 * actors released and counted, and shutdown finishing the message in hand while refusing the queued ones.
 */
import { assert, describe, it } from "@effect/vitest"
import { Cause, Deferred, Effect, Exit, Fiber, Layer, Metric, References, Schedule, Schema, Scope } from "effect"
import {
  ClusterSchema,
  Entity,
  MessageStorage,
  RunnerHealth,
  Runners,
  RunnerStorage,
  Sharding,
  ShardingConfig
} from "effect/cluster"
import { Rpc } from "effect/rpc"
import { LocalActors } from "../../src/platform/LocalActors.ts"
import { replayMax } from "../../src/platform/LocalMailbox.ts"
import { answerDefects } from "../../src/platform/ActorFailures.ts"
import { CountedSharding } from "../../src/platform/monitoring/ActorMetrics.ts"
import { Metrics } from "../../src/platform/monitoring/Metrics.ts"
import { statsOf } from "../../src/platform/monitoring/MetricsView.ts"

const Counter = Entity.make("Counter", [
  Rpc.make("Add", { payload: { n: Schema.Number, delayMs: Schema.Number }, success: Schema.Number }),
  Rpc.make("Crash"),
  Rpc.make("Hold", { payload: { ms: Schema.Number }, success: Schema.Number }),
  Rpc.make("Where", { success: Schema.String }),
  Rpc.make("Later", { payload: { n: Schema.Number } }).annotate(ClusterSchema.Persisted, true)
])

/** Kept by effect/cluster: one message at a time with fatal defects (as the chain actor). */
const Fatal = Entity.make("Fatal", [Rpc.make("Where", { success: Schema.String })])

/** Hosted concurrently, its defects fatal (as the room): a defect rebuilds it and replays the message. */
const Book = Entity.make("Book", [
  Rpc.make("Hold", { payload: { ms: Schema.Number }, success: Schema.Number }),
  Rpc.make("Crash", { payload: { times: Schema.Number }, success: Schema.Number })
])

const mailboxMax = 4
const idleSeconds = 1
/** Per counter id: handlers running now and the most ever at once. */
const running = new Map<string, { now: number; most: number }>()
let builds = 0

const CounterLayer = Counter.toLayer(
  Effect.gen(function* () {
    const address = yield* Entity.CurrentAddress
    const id = address.entityId
    builds++
    let total = 0
    const track = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      Effect.suspend(() => {
        const r = running.get(id) ?? { now: 0, most: 0 }
        running.set(id, r)
        r.now++
        r.most = Math.max(r.most, r.now)
        return Effect.ensuring(
          effect,
          Effect.sync(() => r.now--)
        )
      })
    return Counter.of({
      Add: ({ payload }) =>
        track(
          Effect.gen(function* () {
            const before = total
            if (payload.delayMs > 0) yield* Effect.sleep(payload.delayMs)
            total = before + payload.n
            return total
          })
        ),
      Crash: () => Effect.die(new Error("a broken invariant")),
      Hold: ({ payload }) =>
        track(
          Effect.gen(function* () {
            yield* Effect.sleep(payload.ms)
            total += 1
            return total
          })
        ),
      Where: () => Effect.succeed(`${address.entityType}/${id}`),
      Later: ({ payload }) =>
        Effect.sync(() => {
          total += payload.n
        })
    })
  }),
  { maxIdleTime: `${idleSeconds} seconds`, mailboxCapacity: mailboxMax, ...answerDefects }
)

let bookBuilds = 0
let bookRunning = 0
let bookMost = 0
let crashes = 0
const BookLayer = Book.toLayer(
  Effect.sync(() => {
    const build = ++bookBuilds
    return Book.of({
      Hold: ({ payload }) =>
        Effect.gen(function* () {
          bookMost = Math.max(bookMost, ++bookRunning)
          yield* Effect.sleep(payload.ms)
          bookRunning--
          return build
        }),
      // Dies on its first `times` runs, each on a build of its own; then answers the build that served it.
      Crash: ({ payload }) =>
        crashes++ < payload.times ? Effect.die(new Error("the book ran ahead of SQL")) : Effect.succeed(build)
    })
  }),
  { maxIdleTime: "1 minute", mailboxCapacity: "unbounded", concurrency: "unbounded" }
)

const FatalLayer = Fatal.toLayer(Effect.succeed(Fatal.of({ Where: () => Effect.succeed("cluster") })))

/** The runtime as src/platform/ActorRuntime.ts wires a single runner, with a registry of this test's own. */
const runtime = (maxResidentEntities: number) =>
  CountedSharding.pipe(
    Layer.provideMerge(
      LocalActors.pipe(
        Layer.provideMerge(Sharding.layer),
        Layer.provideMerge(Runners.layerNoop),
        Layer.provideMerge(MessageStorage.layerMemory),
        Layer.provide([RunnerStorage.layerMemory, RunnerHealth.layerNoop]),
        Layer.provideMerge(ShardingConfig.layer({ maxResidentEntities, entityMessagePollInterval: "50 millis" }))
      )
    ),
    Layer.provideMerge(Metrics.layer),
    Layer.provide(Layer.sync(Metric.MetricRegistry, () => new Map()))
  )

const testLayer = (maxResidentEntities = 100) =>
  Layer.mergeAll(CounterLayer, FatalLayer, BookLayer).pipe(Layer.provideMerge(runtime(maxResidentEntities)))

const figures = Metrics.useSync((metrics) => statsOf(metrics).actors.Counter)

const quiet = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  effect.pipe(Effect.provideService(References.MinimumLogLevel, "None"))

/** What an exit failed with, as text ("" for a success). */
const failure = (exit: Exit.Exit<unknown, unknown>) => (Exit.isFailure(exit) ? Cause.pretty(exit.cause) : "")

/** A seeded stream of draws (the model test is reproducible). */
const draws = (seed: number) => () => {
  seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648
  return seed / 2_147_483_648
}

describe("local mailboxes", () => {
  it.live(
    "one actor per id, one message at a time: every reply is the counter after exactly the messages before it",
    () =>
      Effect.gen(function* () {
        running.clear()
        const counter = yield* Counter.client
        const random = draws(25)
        const ids = ["a", "b", "c", "d"]
        // Waves of concurrent messages, each from its own fiber, at most a full mailbox per id at once.
        const sent: Array<{ id: string; n: number; reply: number }> = []
        for (let wave = 0; wave < 12; wave++) {
          const messages = ids.flatMap((id) =>
            Array.from({ length: 1 + Math.floor(random() * mailboxMax) }, () => ({
              id,
              n: 1 + Math.floor(random() * 9),
              delayMs: Math.floor(random() * 3)
            }))
          )
          const replies = yield* Effect.forEach(messages, (m) => counter(m.id).Add({ n: m.n, delayMs: m.delayMs }), {
            concurrency: "unbounded"
          })
          messages.forEach((m, i) => sent.push({ id: m.id, n: m.n, reply: replies[i] }))
        }
        // The model: per id, the replies are the running sums of some order of its messages, ending at their total.
        for (const id of ids) {
          const mine = sent.filter((m) => m.id === id)
          const total = mine.reduce((sum, m) => sum + m.n, 0)
          const byReply = [...mine].sort((x, y) => x.reply - y.reply)
          let sum = 0
          for (const m of byReply) {
            sum += m.n
            assert.strictEqual(m.reply, sum, `${id}: a reply that is not a running sum (a lost or doubled update)`)
          }
          assert.strictEqual(sum, total)
          assert.strictEqual(running.get(id)!.most, 1, `${id}: two messages ran at once`)
        }
        // A persisted message goes through the cluster's storage and its shell, to the same actor.
        const before = yield* counter("a").Add({ n: 0, delayMs: 0 })
        yield* counter("a").Later({ n: 1000 }, { discard: true })
        const after = yield* counter("a")
          .Add({ n: 0, delayMs: 0 })
          .pipe(
            Effect.repeat({ until: (v) => v === before + 1000, schedule: Schedule.spaced("50 millis") }),
            Effect.timeout("5 seconds")
          )
        assert.strictEqual(after, before + 1000)
        assert.strictEqual(yield* counter("a").Where(), "Counter/a")
        assert.strictEqual(yield* (yield* Fatal.client)("z").Where(), "cluster")
        const f = yield* figures
        assert.strictEqual(f.resident, ids.length, "effect_cluster_entities counts the local mailboxes")
        assert.strictEqual(f.activations, ids.length)
        assert.strictEqual(builds, ids.length, "one build per actor: the shell holds no state of its own")
      }).pipe(Effect.provide(testLayer()), quiet),
    30_000
  )

  it.live(
    "back-pressure, defects, callers that give up, idle release",
    () =>
      Effect.gen(function* () {
        const counter = yield* Counter.client
        // A full mailbox: one in hand and three waiting fill it; the next is refused, not queued.
        const held = yield* Effect.forkChild(
          Effect.all(
            Array.from({ length: mailboxMax }, () => counter("p").Hold({ ms: 200 })),
            { concurrency: "unbounded" }
          )
        )
        yield* Effect.sleep("50 millis")
        assert.strictEqual((yield* figures).mailboxDepthMax, mailboxMax)
        const refused = yield* Effect.exit(counter("p").Add({ n: 1, delayMs: 0 }))
        assert.include(failure(refused), "MailboxFull")
        assert.deepStrictEqual(yield* Fiber.join(held), [1, 2, 3, 4])

        // The resident cap (3 here): a fourth actor is refused until one is released.
        yield* counter("q").Add({ n: 1, delayMs: 0 })
        yield* counter("r").Add({ n: 1, delayMs: 0 })
        const capped = yield* Effect.exit(counter("s").Add({ n: 1, delayMs: 0 }))
        assert.include(failure(capped), "MailboxFull")

        // A defect ends its message; the actor keeps its state and serves the next one (no restart).
        const crashed = yield* Effect.exit(counter("p").Crash())
        assert.include(failure(crashed), "a broken invariant")
        assert.strictEqual(yield* counter("p").Add({ n: 0, delayMs: 0 }), 4)
        assert.strictEqual((yield* figures).restarts, 0)

        // A caller that gives up does not cut its message: it still runs to its end.
        const gaveUp = yield* Effect.forkChild(counter("p").Hold({ ms: 150 }))
        yield* Effect.sleep("30 millis")
        yield* Fiber.interrupt(gaveUp)
        assert.strictEqual(yield* counter("p").Add({ n: 0, delayMs: 0 }), 5)

        // Idle past maxIdleTime: released, counted, and the cap has room again.
        const idle = yield* figures.pipe(
          Effect.repeat({ until: (f) => f.resident === 0, schedule: Schedule.spaced("200 millis") }),
          Effect.timeout("10 seconds")
        )
        assert.strictEqual(idle.passivations, 3)
        assert.strictEqual(yield* counter("s").Add({ n: 1, delayMs: 0 }), 1)
        assert.strictEqual(yield* counter("p").Add({ n: 0, delayMs: 0 }), 0, "a released actor starts afresh")
      }).pipe(Effect.provide(testLayer(3)), quiet),
    30_000
  )

  it.live(
    "a concurrent kind with fatal defects: messages run at once; a defect rebuilds the actor and replays the message, bounded",
    () =>
      Effect.gen(function* () {
        const book = yield* Book.client
        const builds = yield* Effect.all(
          Array.from({ length: 5 }, () => book("x").Hold({ ms: 100 })),
          { concurrency: "unbounded" }
        )
        assert.deepStrictEqual(builds, [1, 1, 1, 1, 1])
        assert.strictEqual(bookMost, 5, "the five ran at once")
        // Two deaths: two rebuilds (restarts, not activations), the third run answers.
        assert.strictEqual(yield* book("x").Crash({ times: 2 }), 3)
        const stats = yield* Metrics.useSync((metrics) => statsOf(metrics).actors.Book)
        assert.deepInclude(stats, { resident: 1, activations: 1, restarts: 2 })
        // A message that dies on every rebuild is answered with its defect after replayMax replays, not forever.
        crashes = 0
        const dead = yield* Effect.exit(book("x").Crash({ times: 1_000 }))
        assert.include(failure(dead), "the book ran ahead of SQL")
        assert.strictEqual(crashes, replayMax + 1)
        assert.strictEqual(yield* book("x").Hold({ ms: 0 }), bookBuilds, "the actor serves on its latest build")
      }).pipe(Effect.provide(testLayer()), quiet),
    30_000
  )

  it.live("shutdown finishes the message in hand and refuses the queued ones", () =>
    Effect.gen(function* () {
      const scope = yield* Scope.make()
      const context = yield* Layer.buildWithScope(testLayer(), scope)
      const counter = yield* Effect.provideContext(Counter.client, context)
      const inHand = yield* Deferred.make<Exit.Exit<number, unknown>>()
      yield* Effect.forkChild(
        Effect.flatMap(Effect.exit(counter("x").Hold({ ms: 200 })), (exit) => Deferred.succeed(inHand, exit))
      )
      yield* Effect.sleep("30 millis")
      const queued = yield* Effect.forkChild(Effect.exit(counter("x").Add({ n: 1, delayMs: 0 })))
      yield* Effect.sleep("10 millis")
      yield* Scope.close(scope, Exit.void)
      assert.deepStrictEqual(yield* Deferred.await(inHand), Exit.succeed(1))
      const refused = yield* Fiber.join(queued)
      assert.include(failure(refused), "EntityNotAssignedToRunner")
    }).pipe(quiet)
  )
})
