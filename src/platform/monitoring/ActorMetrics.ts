/**
 * Per-kind actor figures. effect/cluster already publishes, per entity type, the resident entities
 * (`effect_cluster_entities`) and the deepest mailbox (`effect_cluster_entity_mailbox_size_max`),
 * read at scrape time. What it does not count is an actor's life: activations, passivations,
 * restarts after a defect (a room whose commit failed and that rebuilt its book from SQL), and
 * builds that died. Those are counted here by decorating `Sharding.registerEntity`: every entity
 * kind registered through it, today's and any added later, is counted with no code of its own.
 * The counting runs when an actor is built or released, never per message.
 *
 * How a build is told apart: the runtime runs an entity's build once per activation and again
 * for each restart, in the same activation scope. A build in a scope seen before is a restart; a
 * first successful build is an activation, and that scope's closing (idle timeout, shutdown,
 * shard hand-off) is its passivation.
 */
import { Cause, Context, Effect, Exit, Layer, Metric, Option, Scope } from "effect"
import { Sharding } from "effect/cluster"
import { metricNames, Metrics } from "./Metrics.ts"

/**
 * The runtime's activation scope. It is not exported by effect/cluster, so it is read by its
 * service key; if a later Effect renames it, every build counts as an activation and none as a
 * passivation or restart, and test/unit/actor-metrics.test.ts fails.
 */
export class ActivationScope extends Context.Service<ActivationScope, Scope.Scope>()(
  "effect/cluster/internal/CurrentActivationScope"
) {}

const counter = (name: string, description: string) => Metric.counter(name, { description, incremental: true })

export const actorActivations = counter(
  metricNames.actorActivations,
  "Actors activated (built from SQL on their first message), by entity type"
)
export const actorPassivations = counter(
  metricNames.actorPassivations,
  "Actors released (idle timeout, shutdown, shard hand-off), by entity type"
)
export const actorRestarts = counter(
  metricNames.actorRestarts,
  "Actors rebuilt after a defect in a handler, by entity type"
)
export const actorBuildFailures = counter(
  metricNames.actorBuildFailures,
  "Actor builds that died (the runtime retries them), by entity type"
)

/** Wraps one entity type's build so each run is counted as an activation, a restart or a failure. */
export const countedBuild = <A, R>(
  type: string,
  build: Effect.Effect<A, never, R>,
  metrics: Metrics["Service"]
): Effect.Effect<A, never, R> => {
  const labels = { type }
  const activated = Metric.withAttributes(actorActivations, labels)
  const passivated = Metric.withAttributes(actorPassivations, labels)
  const restarted = Metric.withAttributes(actorRestarts, labels)
  const failed = Metric.withAttributes(actorBuildFailures, labels)
  // Every series from registration on, at 0: a kind that never failed still shows it.
  for (const metric of [activated, passivated, restarted, failed]) metrics.update(metric, 0)
  // Weak: a released activation's scope is not kept alive by having been counted.
  const activations = new WeakSet<Scope.Scope>()
  return Effect.flatMap(Effect.serviceOption(ActivationScope), (option) => {
    const scope = Option.getOrUndefined(option)
    const restart = scope !== undefined && activations.has(scope)
    return Effect.onExit(build, (exit) => {
      if (Exit.isFailure(exit)) {
        if (!Cause.hasInterruptsOnly(exit.cause)) metrics.update(failed, 1)
        return Effect.void
      }
      if (restart) return Effect.sync(() => metrics.update(restarted, 1))
      metrics.update(activated, 1)
      if (scope === undefined) return Effect.void
      activations.add(scope)
      return Scope.addFinalizer(
        scope,
        Effect.sync(() => metrics.update(passivated, 1))
      )
    })
  })
}

/** Sharding whose registerEntity counts every entity type's lifecycle; everything else is the runtime's. */
export const CountedSharding = Layer.effect(
  Sharding.Sharding,
  Effect.gen(function* () {
    const sharding = yield* Sharding.Sharding
    const metrics = yield* Metrics
    return Sharding.Sharding.of({
      ...sharding,
      registerEntity: (entity, build, options) =>
        sharding.registerEntity(entity, countedBuild(entity.type, build, metrics), options)
    })
  })
)
