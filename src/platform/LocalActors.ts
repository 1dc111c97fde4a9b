/**
 * Local mailboxes: on a single runner (no RUNNER_ADDRESS), actors whose state is a cache of SQL (wallet,
 * transfer code, payment order, investment: the kinds registered with `answerDefects`) are hosted here,
 * one mailbox per actor, instead of in effect/cluster's entity manager. A message to one of them is a
 * call of the same typed handler (the entity's own protocol and behaviour, unchanged) through an array
 * mailbox drained by one fiber, not an RpcClient → Sharding → EntityManager → RpcServer round with its
 * request ids, envelopes, fibers and maps (issue #25: that path was a third of a transfer's CPU).
 *
 * What it keeps of the runtime: one actor per id, messages handled one at a time in arrival order;
 * back-pressure (a full mailbox, or the runner's resident cap, fails `MailboxFull`, which callers answer
 * 429); each message runs uninterruptibly (a caller that gives up cannot cut a commit from its in-memory
 * update); a defect ends that message only (`answerDefects`); idle actors are released after the kind's
 * `maxIdleTime` (their activation scope closed, counted as a passivation); shutdown finishes the message
 * in hand and answers the queued ones with `EntityNotAssignedToRunner`; `effect_cluster_entities` and
 * `effect_cluster_entity_mailbox_size_max` count these mailboxes. The kind stays registered with
 * effect/cluster as a shell that forwards every message it receives here, so persisted messages (an
 * investment's `Timer`, kept in SQL message storage and delivered when due) reach the same actor, and
 * sending a persisted message still goes through the cluster client.
 *
 * Kinds whose defects are fatal (room, chain: their state runs ahead of SQL and is rebuilt on a defect)
 * and every kind on a runner of a multi-runner cluster keep effect/cluster's own delivery: a shard can
 * move between runners there, and its hand-off drain is the entity manager's.
 */
import {
  Cause,
  Context,
  Deferred,
  Duration,
  Effect,
  Exit,
  Layer,
  Metric,
  Option,
  Schedule,
  Scope,
  type Tracer
} from "effect"
import {
  ClusterError,
  ClusterMetrics,
  ClusterSchema,
  Entity,
  EntityAddress,
  EntityId,
  RunnerAddress,
  Sharding,
  ShardingConfig
} from "effect/cluster"
import { ActivationScope } from "./monitoring/ActorMetrics.ts"
import { exportedSpanOf } from "./Tracing.ts"

type Handler = (request: { readonly payload: unknown }) => Effect.Effect<unknown, unknown, unknown>

interface Job {
  readonly tag: string
  readonly payload: unknown
  readonly reply: Deferred.Deferred<unknown, unknown>
  /** The sender's span when traces are exported: the message's span is its child, as effect/cluster's is. */
  readonly parent: Tracer.AnySpan | undefined
}

/** One resident actor: its mailbox (the job in hand stays first until answered) and its handlers once built. */
interface Mailbox {
  readonly address: EntityAddress.EntityAddress
  readonly jobs: Array<Job>
  readonly scope: Scope.Closeable
  handlers: Record<string, Handler> | undefined
  draining: boolean
  lastActive: number
}

/** The runner-wide cap on resident actors (ShardingConfig.maxResidentEntities), shared by every kind. */
interface Residency {
  resident: number
  readonly max: number
}

interface Kind {
  readonly send: (entityId: string, tag: string, payload: unknown) => Effect.Effect<unknown, unknown>
  readonly publish: Effect.Effect<void>
}

type RegisterOptions = Parameters<Sharding.Sharding["Service"]["registerEntity"]>[2]

/** Whether effect/cluster's entity manager should keep a kind: fatal defects, concurrency, or unbounded mailboxes. */
const hostedHere = (options: RegisterOptions) =>
  options?.disableFatalDefects === true &&
  (options.concurrency === undefined || options.concurrency === 1) &&
  typeof options.mailboxCapacity === "number"

const idleCheckEvery = (maxIdleMs: number) => Duration.millis(Math.min(30_000, Math.max(1_000, maxIdleMs / 10)))

const makeKind = Effect.fnUntraced(function* (
  entity: Entity.Entity<string, any>,
  build: Effect.Effect<any, never, any>,
  maxIdleMs: number,
  capacity: number,
  residency: Residency,
  sharding: Sharding.Sharding["Service"],
  runnerAddress: RunnerAddress.RunnerAddress,
  runtimeContext: Context.Context<never>
) {
  const scope = yield* Effect.scope
  const context = yield* Effect.context<never>()
  // The series go where the runtime's own would (its context, overridden by the registration's).
  const metricsContext = Context.merge(runtimeContext, context)
  const mailboxes = new Map<string, Mailbox>()
  let closed = false
  // Finalizers run last-registered first: at shutdown no mailbox takes a message (closed), then the drains
  // finish the message in hand and answer the rest (their scope closes), then every actor is released.
  yield* Scope.addFinalizer(
    scope,
    Effect.suspend(() => {
      const all = [...mailboxes]
      mailboxes.clear()
      return Effect.forEach(all, ([, mailbox]) => release(mailbox), { discard: true })
    })
  )
  const drains = yield* Scope.fork(scope)
  yield* Scope.addFinalizer(
    scope,
    Effect.sync(() => {
      closed = true
    })
  )

  const addressOf = (entityId: string) =>
    new EntityAddress.EntityAddress({
      entityType: entity.type,
      entityId: EntityId.make(entityId),
      shardId: sharding.getShardId(EntityId.make(entityId), entity.getShardGroup(EntityId.make(entityId)))
    })

  /** Closes a mailbox already taken out of the map (its activation scope: the passivation). */
  const release = (mailbox: Mailbox) => {
    residency.resident--
    return Scope.close(mailbox.scope, Exit.void)
  }

  const handlersOf = (mailbox: Mailbox): Effect.Effect<Record<string, Handler>> =>
    (build as Effect.Effect<Record<string, Handler>>).pipe(
      Effect.setContext(
        Context.merge(
          context,
          Context.make(Entity.CurrentAddress, mailbox.address).pipe(
            Context.add(Entity.CurrentRunnerAddress, runnerAddress),
            Context.add(ActivationScope, mailbox.scope),
            Context.add(Scope.Scope, mailbox.scope)
          )
        ) as Context.Context<any>
      )
    )

  const traced = (mailbox: Mailbox, job: Job, handling: Effect.Effect<unknown, unknown>) =>
    job.parent === undefined
      ? handling
      : Effect.withSpan(handling, `${entity.type}.${job.tag}`, {
          kind: "server",
          parent: job.parent,
          attributes: { "rpc.method": job.tag, "entity.type": entity.type, "entity.id": mailbox.address.entityId }
        })

  /** Answers one job: the handler runs to its end whoever interrupts, then the job leaves the mailbox. */
  const answer = (mailbox: Mailbox, job: Job) =>
    Effect.uninterruptible(
      Effect.flatMap(
        Effect.exit(
          traced(
            mailbox,
            job,
            Effect.suspend(
              () => mailbox.handlers![job.tag]({ payload: job.payload }) as Effect.Effect<unknown, unknown>
            )
          )
        ),
        (exit) =>
          Effect.sync(() => {
            mailbox.jobs.shift()
            Deferred.doneUnsafe(job.reply, exit)
          })
      )
    )

  const refuseQueued = (mailbox: Mailbox, cause: Cause.Cause<unknown>) => {
    for (const job of mailbox.jobs.splice(0)) Deferred.doneUnsafe(job.reply, Exit.failCause(cause))
  }

  const drain = (id: string, mailbox: Mailbox): Effect.Effect<void> =>
    Effect.gen(function* () {
      if (mailbox.handlers === undefined) {
        const built = yield* Effect.exit(handlersOf(mailbox))
        if (Exit.isFailure(built)) {
          // A build that died (the kind's SQL load failed): answer what waits with it, start afresh next time.
          if (mailboxes.get(id) === mailbox) mailboxes.delete(id)
          refuseQueued(mailbox, built.cause)
          return yield* release(mailbox)
        }
        mailbox.handlers = built.value
      }
      while (mailbox.jobs.length > 0) yield* answer(mailbox, mailbox.jobs[0])
      mailbox.draining = false
      mailbox.lastActive = Date.now()
    }).pipe(
      (effect) => effect as Effect.Effect<void>,
      Effect.onInterrupt(() =>
        Effect.sync(() =>
          refuseQueued(mailbox, Cause.fail(new ClusterError.EntityNotAssignedToRunner({ address: mailbox.address })))
        )
      ),
      Effect.setContext(context)
    )

  const enqueue = (id: string, tag: string, payload: unknown) =>
    Effect.withFiber((fiber): Effect.Effect<Deferred.Deferred<unknown, unknown>, unknown> => {
      if (closed) return Effect.fail(new ClusterError.EntityNotAssignedToRunner({ address: addressOf(id) }))
      let mailbox = mailboxes.get(id)
      if (mailbox === undefined) {
        const address = addressOf(id)
        if (residency.resident >= residency.max) return Effect.fail(new ClusterError.MailboxFull({ address }))
        residency.resident++
        mailbox = { address, jobs: [], scope: Scope.makeUnsafe(), handlers: undefined, draining: false, lastActive: 0 }
        mailboxes.set(id, mailbox)
      }
      if (mailbox.jobs.length >= capacity)
        return Effect.fail(new ClusterError.MailboxFull({ address: mailbox.address }))
      const reply = Deferred.makeUnsafe<unknown, unknown>()
      mailbox.jobs.push({ tag, payload, reply, parent: exportedSpanOf(fiber) })
      if (mailbox.draining) return Effect.succeed(reply)
      mailbox.draining = true
      return Effect.as(Effect.forkIn(drain(id, mailbox), drains), reply)
    })

  const send = (id: string, tag: string, payload: unknown) =>
    Effect.flatMap(Effect.uninterruptible(enqueue(id, tag, payload)), Deferred.await)

  /** Releases actors idle for the kind's maxIdleTime (never one with a message queued or in hand). */
  const passivateIdle = Effect.suspend(() => {
    const now = Date.now()
    const idle: Array<[string, Mailbox]> = []
    for (const entry of mailboxes) {
      const mailbox = entry[1]
      if (!mailbox.draining && mailbox.jobs.length === 0 && now - mailbox.lastActive >= maxIdleMs) idle.push(entry)
    }
    for (const [id] of idle) mailboxes.delete(id)
    return Effect.forEach(idle, ([, mailbox]) => release(mailbox), { discard: true })
  })
  if (Number.isFinite(maxIdleMs))
    yield* Effect.forkIn(Effect.repeat(passivateIdle, Schedule.spaced(idleCheckEvery(maxIdleMs))), drains)

  /** effect_cluster_entities and the deepest mailbox for this kind, in place of the shell's (same names, labels). */
  const publish = Effect.gen(function* () {
    const series = [
      Metric.registerUnsafe(Metric.withAttributes(ClusterMetrics.entities, { type: entity.type }), metricsContext, {
        get: () => ({ value: BigInt(mailboxes.size) }),
        update: () => {},
        modify: () => {}
      }),
      Metric.registerUnsafe(
        Metric.withAttributes(ClusterMetrics.entityMailboxSizeMax, { type: entity.type }),
        metricsContext,
        {
          get: () => {
            let max = 0
            for (const mailbox of mailboxes.values()) if (mailbox.jobs.length > max) max = mailbox.jobs.length
            return { value: BigInt(max) }
          },
          update: () => {},
          modify: () => {}
        }
      )
    ]
    yield* Scope.addFinalizer(
      scope,
      Effect.sync(() => series.forEach((registration) => registration.remove()))
    )
  })
  return { send, publish }
})

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
          if (!hostedHere(options)) return yield* sharding.registerEntity(entity, build, options)
          const maxIdleMs = Duration.toMillis(
            Duration.fromInputUnsafe(options?.maxIdleTime ?? config.entityMaxIdleTime)
          )
          const kind = yield* makeKind(
            entity as unknown as Entity.Entity<string, any>,
            build as Effect.Effect<any, never, any>,
            maxIdleMs,
            options!.mailboxCapacity as unknown as number,
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
