/**
 * Local mailboxes: on a single runner (no RUNNER_ADDRESS), the wallet, transfer code, payment order,
 * investment and room actors are hosted in this process's own mailboxes (src/platform/LocalMailbox.ts)
 * instead of effect/cluster's entity manager. A message to one of them is a call of the same typed handler
 * (the entity's own protocol and behaviour, unchanged) through a local mailbox, not an RpcClient → Sharding →
 * EntityManager → RpcServer round with its request ids, envelopes, fibers and maps (issue #25: that path was
 * a third of a transfer's CPU). What the runtime guaranteed is kept there: one actor per id, each kind's
 * message discipline, back-pressure, uninterruptible messages, idle release, counted lifecycles, the
 * cluster's resident and mailbox series and the message span names.
 *
 * Each hosted kind stays registered with effect/cluster as a shell that forwards every message it delivers
 * here, so persisted messages (an investment's `Timer`, kept in SQL message storage and delivered when due)
 * reach the same actor, and sending a persisted message still goes through the cluster client. The chain actor
 * (one message at a time with fatal defects) and every kind on a runner of a multi-runner cluster keep
 * effect/cluster's own delivery: a shard moves between runners there, and its hand-off drain is the entity
 * manager's.
 */
import { Context, Duration, Effect, Layer, Option } from "effect"
import { ClusterSchema, Entity, RunnerAddress, Sharding, ShardingConfig } from "effect/cluster"
import { type Handler, type Kind, makeKind, type Residency } from "./LocalMailbox.ts"

type RegisterOptions = Parameters<Sharding.Sharding["Service"]["registerEntity"]>[2]

/**
 * The kinds hosted here, by what they declare to effect/cluster: one message at a time with defects answered
 * (a bounded mailbox), or every message at once (the room, whose defects rebuild it); anything else (the chain
 * actor: one at a time, fatal defects) stays with effect/cluster.
 */
const disciplineOf = (options: RegisterOptions): { readonly concurrent: boolean } | undefined =>
  options?.concurrency === "unbounded"
    ? options.disableFatalDefects === true
      ? undefined
      : { concurrent: true }
    : options?.disableFatalDefects === true &&
        (options.concurrency === undefined || options.concurrency === 1) &&
        typeof options.mailboxCapacity === "number"
      ? { concurrent: false }
      : undefined

/** The shell effect/cluster keeps for a hosted kind: every message it delivers is handed to the local mailbox. */
const forwarding = (entity: Entity.Entity<string, any>, kind: Kind) =>
  Effect.gen(function* () {
    const address = yield* Entity.CurrentAddress
    const handlers: Record<string, Handler> = {}
    for (const tag of entity.protocol.requests.keys())
      handlers[tag] = (request) => kind.send(address.entityId, tag, request.payload)
    return handlers
  })

/** A client whose calls go to the local mailbox, except persisted messages, which keep the cluster's path. */
const localClient = (entity: Entity.Entity<string, any>, kind: Kind, cluster: (entityId: string) => any) => {
  const persisted = new Set<string>()
  for (const [tag, rpc] of entity.protocol.requests)
    if (Context.get(rpc.annotations, ClusterSchema.Persisted)) persisted.add(tag)
  return (entityId: string) => {
    const methods: Record<string, unknown> = {}
    return new Proxy(methods, {
      get(target, tag) {
        if (typeof tag !== "string") return undefined
        if (Object.hasOwn(target, tag)) return target[tag]
        if (!entity.protocol.requests.has(tag)) return undefined
        const method = persisted.has(tag)
          ? cluster(entityId)[tag]
          : (payload: unknown) => kind.send(entityId, tag, payload)
        target[tag] = method
        return method
      }
    })
  }
}

/** Sharding whose hosted kinds (see above) live in local mailboxes; everything else is effect/cluster's. */
export const LocalActors = Layer.effect(
  Sharding.Sharding,
  Effect.gen(function* () {
    const sharding = yield* Sharding.Sharding
    const runtimeContext = yield* Effect.context<never>()
    const config = yield* ShardingConfig.ShardingConfig
    const runnerAddress = Option.getOrElse(config.runnerAddress, () => RunnerAddress.make("localhost", 0))
    const max = config.maxResidentEntities
    const residency: Residency = { resident: 0, max: typeof max === "number" ? max : Number.POSITIVE_INFINITY }
    const kinds = new Map<string, Kind>()
    return Sharding.Sharding.of({
      ...sharding,
      registerEntity: (entity, build, options) =>
        Effect.gen(function* () {
          const discipline = disciplineOf(options)
          if (discipline === undefined) return yield* sharding.registerEntity(entity, build, options)
          const capacity = options?.mailboxCapacity
          const kind = yield* makeKind(
            entity as unknown as Entity.Entity<string, any>,
            build as Effect.Effect<any, never, any>,
            {
              concurrent: discipline.concurrent,
              capacity: typeof capacity === "number" ? capacity : Number.POSITIVE_INFINITY,
              maxIdleMs: Duration.toMillis(Duration.fromInputUnsafe(options?.maxIdleTime ?? config.entityMaxIdleTime))
            },
            residency,
            sharding,
            runnerAddress,
            runtimeContext
          )
          kinds.set(entity.type, kind)
          yield* sharding.registerEntity(
            entity,
            forwarding(entity as unknown as Entity.Entity<string, any>, kind) as any,
            options
          )
          // The shell's manager registered its series just now; ours replace them.
          yield* kind.publish
        }) as any,
      makeClient: (entity) =>
        Effect.map(sharding.makeClient(entity), (cluster) => {
          let local: ((entityId: string) => any) | undefined
          return ((entityId: string) => {
            if (local !== undefined) return local(entityId)
            const kind = kinds.get(entity.type)
            if (kind === undefined) return cluster(entityId)
            local = localClient(entity as any, kind, cluster)
            return local(entityId)
          }) as any
        })
    })
  })
)
