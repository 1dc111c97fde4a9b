/**
 * The actor lifecycle counters (src/platform/monitoring/ActorMetrics.ts) on the real effect/cluster runtime
 * (the single-runner Sharding the service uses), with entity kinds of this test's own, registered
 * with no metrics code: activations, restarts after a handler defect, builds that died and were
 * retried, and passivations of idle actors, per entity type, beside the runtime's own resident
 * counts. The runtime keeps real time (its shard loops sleep), so the idle timeout is short and the
 * passivation check waits for the runtime's reaper, which looks every 5 seconds at the soonest. The
 * defects the runtime logs here are the test's own, so logging is off.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Layer, Metric, References, Schedule, Schema } from "effect"
import { Entity, MessageStorage, RunnerHealth, Runners, RunnerStorage, Sharding, ShardingConfig } from "effect/cluster"
import { Rpc } from "effect/rpc"
import { CountedSharding } from "../../src/platform/monitoring/ActorMetrics.ts"
import { Metrics } from "../../src/platform/monitoring/Metrics.ts"
import { statsOf } from "../../src/platform/monitoring/MetricsView.ts"

const Probe = Entity.make("Probe", [Rpc.make("Ping", { success: Schema.String }), Rpc.make("Crash"), Rpc.make("Hold")])

/** A kind whose first build dies (as a rebuild from an unreachable database would). */
const Flaky = Entity.make("Flaky", [Rpc.make("Ping", { success: Schema.String })])

const idleSeconds = 1
/** The runtime's back-off before a rebuild, shortened so the test does not wait for it. */
const defectRetryPolicy = Schedule.spaced("20 millis")

let crashes = 0
const ProbeLayer = Probe.toLayer(
  Effect.succeed(
    Probe.of({
      Ping: () => Effect.succeed("pong"),
      // The runtime replays the request that died into the rebuilt actor: it dies only the first time.
      Crash: () => (++crashes === 1 ? Effect.die(new Error("a broken invariant")) : Effect.void),
      Hold: () => Effect.sleep("400 millis")
    })
  ),
  { maxIdleTime: `${idleSeconds} seconds`, defectRetryPolicy }
)

let flakyBuilds = 0
const FlakyLayer = Flaky.toLayer(
  Effect.suspend(() =>
    ++flakyBuilds === 1
      ? Effect.die(new Error("first build fails"))
      : Effect.succeed(Flaky.of({ Ping: () => Effect.succeed("pong") }))
  ),
  { maxIdleTime: `${idleSeconds} seconds`, defectRetryPolicy }
)

/** The runtime as src/Server.ts wires it, with a registry of this test's own. */
const Runtime = CountedSharding.pipe(
  Layer.provideMerge(
    Sharding.layer.pipe(
      Layer.provideMerge(Runners.layerNoop),
      Layer.provideMerge(MessageStorage.layerMemory),
      Layer.provide([RunnerStorage.layerMemory, RunnerHealth.layerNoop]),
      Layer.provide(ShardingConfig.layer())
    )
  ),
  Layer.provideMerge(Metrics.layer),
  Layer.provide(Layer.sync(Metric.MetricRegistry, () => new Map()))
)

const TestLayer = Layer.mergeAll(ProbeLayer, FlakyLayer).pipe(Layer.provideMerge(Runtime))

const actors = Metrics.useSync((metrics) => statsOf(metrics).actors)

/** The figures but the mailbox depth, which can still count a request whose reply was just sent. */
const lifecycle = ({ mailboxDepthMax: _, ...rest }: { readonly mailboxDepthMax: number } & Record<string, number>) =>
  rest

describe("actor lifecycle counters", () => {
  it.live(
    "count activations, restarts, failed builds and passivations per entity type",
    () =>
      Effect.gen(function* () {
        const probe = yield* Probe.client
        const flaky = yield* Flaky.client
        for (const id of ["a", "b", "c"]) assert.strictEqual(yield* probe(id).Ping(), "pong")
        let figures = yield* actors
        assert.deepStrictEqual(lifecycle(figures.Probe), {
          resident: 3,
          activations: 3,
          passivations: 0,
          restarts: 0,
          buildFailures: 0
        })

        // Three requests for one actor (one message at a time): one in flight, two waiting.
        const held = yield* Effect.forkChild(
          Effect.all([probe("c").Hold(), probe("c").Hold(), probe("c").Hold()], { concurrency: "unbounded" })
        )
        yield* Effect.sleep("100 millis")
        assert.strictEqual((yield* actors).Probe.mailboxDepthMax, 3)
        yield* Fiber.join(held)

        // A defect in a handler: the runtime rebuilds the actor in the same activation and replays it.
        yield* probe("a").Crash()
        assert.strictEqual(crashes, 2)
        assert.strictEqual(yield* probe("a").Ping(), "pong")
        figures = yield* actors
        assert.strictEqual(figures.Probe.restarts, 1)
        assert.strictEqual(figures.Probe.activations, 3, "a restart is not a new activation")
        assert.strictEqual(figures.Probe.resident, 3)

        // A build that dies is retried by the runtime, then serves.
        assert.strictEqual(yield* flaky("x").Ping(), "pong")
        figures = yield* actors
        assert.deepStrictEqual(
          {
            activations: figures.Flaky.activations,
            buildFailures: figures.Flaky.buildFailures,
            restarts: figures.Flaky.restarts
          },
          { activations: 1, buildFailures: 1, restarts: 0 }
        )

        // Idle past maxIdleTime: every actor is released at the reaper's next look, one passivation each.
        figures = yield* actors.pipe(
          Effect.repeat({
            until: (f) => f.Probe.resident === 0 && f.Flaky.resident === 0,
            schedule: Schedule.spaced("200 millis")
          }),
          Effect.timeout("15 seconds")
        )
        assert.deepStrictEqual(figures.Probe, {
          resident: 0,
          mailboxDepthMax: 0,
          activations: 3,
          passivations: 3,
          restarts: 1,
          buildFailures: 0
        })
        assert.strictEqual(figures.Flaky.passivations, 1)
        assert.strictEqual(figures.Flaky.resident, 0)

        // A message after passivation activates the actor again.
        assert.strictEqual(yield* probe("b").Ping(), "pong")
        figures = yield* actors
        assert.strictEqual(figures.Probe.activations, 4)
        assert.strictEqual(figures.Probe.resident, 1)
      }).pipe(Effect.provide(TestLayer), Effect.provideService(References.MinimumLogLevel, "None")),
    30_000
  )
})
