/**
 * The mailboxes of one hosted actor kind (src/platform/LocalActors.ts says which kinds and why): one per
 * actor id, created by its first message, built with the kind's own build effect (in the actor's activation
 * scope, with its address), released after `maxIdleMs` without a message.
 *
 * Two disciplines, the two the kinds declare to effect/cluster:
 * - **sequential** (concurrency 1; wallet, code, payment order, investment): an array of jobs drained by one
 *   fiber, one message at a time in arrival order; a defect ends its message only (`answerDefects`).
 * - **concurrent** (concurrency "unbounded"; the room, which orders its decisions under its own gate): each
 *   message runs at once in a fiber of its own; a defect is fatal as in effect/cluster: the actor is rebuilt
 *   from SQL (a restart, counted) and the message that died is replayed on the rebuilt one, at most
 *   `replayMax` times, then answered with its defect.
 * Both: a numeric capacity bounds the messages queued or in hand (`MailboxFull`, answered 429), and the runner's
 * resident cap bounds the actors; each message runs uninterruptibly (a caller that gives up cannot cut a commit
 * from its in-memory update); shutdown finishes what is in hand and answers the rest `EntityNotAssignedToRunner`.
 */
import { Cause, Context, Deferred, Effect, Exit, Metric, Schedule, Scope, type Tracer } from "effect"
import { ClusterError, ClusterMetrics, Entity, EntityAddress, EntityId, type RunnerAddress } from "effect/cluster"
import type { Sharding } from "effect/cluster"
import { ActivationScope } from "./monitoring/ActorMetrics.ts"
import { exportedSpanOf } from "./Tracing.ts"

export type Handler = (request: { readonly payload: unknown }) => Effect.Effect<unknown, unknown, unknown>
type Handlers = Record<string, Handler>

interface Job {
  readonly tag: string
  readonly payload: unknown
  readonly reply: Deferred.Deferred<unknown, unknown>
  /** The sender's span when traces are exported: the message's span is its child, as effect/cluster's is. */
  readonly parent: Tracer.AnySpan | undefined
}

/** One resident actor: its jobs (sequential: queued, the one in hand first; concurrent: in hand) and handlers. */
interface Mailbox {
  readonly id: string
  readonly address: EntityAddress.EntityAddress
  readonly jobs: Array<Job>
  readonly scope: Scope.Closeable
  /** The handlers of the current build, while it is being made or once made; a fatal defect drops them. */
  handlers: Deferred.Deferred<Handlers> | undefined
  draining: boolean
  lastActive: number
}

/** The runner-wide cap on resident actors (ShardingConfig.maxResidentEntities), shared by every kind. */
export interface Residency {
  resident: number
  readonly max: number
}

export interface KindOptions {
  readonly concurrent: boolean
  readonly capacity: number
  readonly maxIdleMs: number
}

export interface Kind {
  readonly send: (entityId: string, tag: string, payload: unknown) => Effect.Effect<unknown, unknown>
  /** effect_cluster_entities and the deepest mailbox of this kind, in place of the shell's (same names, labels). */
  readonly publish: Effect.Effect<void>
}

/** Replays of a message whose handler died, each on a rebuilt actor, before its defect is the answer. */
export const replayMax = 5

const idleCheckEvery = (maxIdleMs: number) => Math.min(30_000, Math.max(1_000, maxIdleMs / 10))

const isFatal = (exit: Exit.Exit<unknown, unknown>) =>
  Exit.isFailure(exit) && Cause.hasDies(exit.cause) && !Cause.hasInterrupts(exit.cause)

export const makeKind = Effect.fnUntraced(function* (
  entity: Entity.Entity<string, any>,
  build: Effect.Effect<any, never, any>,
  options: KindOptions,
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
  // Finalizers run last-registered first: at shutdown no mailbox takes a message (closed), then the fibers
  // finish the messages in hand and answer the rest (their scope closes), then every actor is released.
  yield* Scope.addFinalizer(
    scope,
    Effect.suspend(() => {
      const all = [...mailboxes.values()]
      mailboxes.clear()
      return Effect.forEach(all, release, { discard: true })
    })
  )
  const fibers = yield* Scope.fork(scope)
  yield* Scope.addFinalizer(
    scope,
    Effect.sync(() => {
      closed = true
    })
  )

  const addressOf = (entityId: string) => {
    const id = EntityId.make(entityId)
    return new EntityAddress.EntityAddress({
      entityType: entity.type,
      entityId: id,
      shardId: sharding.getShardId(id, entity.getShardGroup(id))
    })
  }

  /** Closes a mailbox already taken out of the map (its activation scope: the passivation). */
  const release = (mailbox: Mailbox) => {
    residency.resident--
    return Scope.close(mailbox.scope, Exit.void)
  }

  /** Takes a mailbox out of the map (once) and releases it. */
  const retire = (mailbox: Mailbox) =>
    Effect.suspend(() => {
      if (mailboxes.get(mailbox.id) !== mailbox) return Effect.void
      mailboxes.delete(mailbox.id)
      return release(mailbox)
    })

  /**
   * The current build's handlers, building them if there are none: the first build of an activation counts as
   * an activation, a later one (after a fatal defect) as a restart (monitoring/ActorMetrics.ts). A build that
   * dies (its SQL load failed) fails every message waiting on it, and the actor is released: the next message
   * builds afresh.
   */
  const handlersOf = (mailbox: Mailbox): Effect.Effect<Handlers, unknown> =>
    Effect.suspend(() => {
      if (mailbox.handlers !== undefined) return Deferred.await(mailbox.handlers)
      const handlers = Deferred.makeUnsafe<Handlers>()
      mailbox.handlers = handlers
      const building = (build as Effect.Effect<Handlers>).pipe(
        Effect.setContext(
          Context.merge(
            context,
            Context.make(Entity.CurrentAddress, mailbox.address).pipe(
              Context.add(Entity.CurrentRunnerAddress, runnerAddress),
              Context.add(ActivationScope, mailbox.scope),
              Context.add(Scope.Scope, mailbox.scope)
            )
          ) as Context.Context<any>
        ),
        Effect.exit,
        Effect.flatMap((built) => {
          Deferred.doneUnsafe(handlers, built)
          return Exit.isSuccess(built) ? Effect.void : retire(mailbox)
        }),
        Effect.uninterruptible
      )
      return Effect.andThen(building, Deferred.await(handlers))
    })

  const traced = (mailbox: Mailbox, job: Job, handling: Effect.Effect<unknown, unknown>) =>
    job.parent === undefined
      ? handling
      : Effect.withSpan(handling, `${entity.type}.${job.tag}`, {
          kind: "server",
          parent: job.parent,
          attributes: { "rpc.method": job.tag, "entity.type": entity.type, "entity.id": mailbox.address.entityId }
        })

  /** One run of a job's handler (its build first, when the actor has none). */
  const handle = (mailbox: Mailbox, job: Job) =>
    Effect.exit(
      Effect.flatMap(handlersOf(mailbox), (handlers) =>
        traced(mailbox, job, handlers[job.tag]({ payload: job.payload }) as Effect.Effect<unknown, unknown>)
      )
    )

  const answer = (mailbox: Mailbox, job: Job, exit: Exit.Exit<unknown, unknown>) => {
    const at = mailbox.jobs.indexOf(job)
    if (at >= 0) mailbox.jobs.splice(at, 1)
    mailbox.lastActive = Date.now()
    Deferred.doneUnsafe(job.reply, exit)
  }

  const refused = (mailbox: Mailbox) =>
    Exit.fail(new ClusterError.EntityNotAssignedToRunner({ address: mailbox.address }))

  /** Sequential: the jobs in arrival order, each answered before the next starts. */
  const drain = (mailbox: Mailbox): Effect.Effect<void> =>
    Effect.gen(function* () {
      // Each job runs and is answered whoever interrupts: an interrupt lands between jobs only.
      while (mailbox.jobs.length > 0) {
        const job = mailbox.jobs[0]
        yield* Effect.uninterruptible(Effect.map(handle(mailbox, job), (exit) => answer(mailbox, job, exit)))
      }
      mailbox.draining = false
    }).pipe(
      Effect.onInterrupt(() =>
        Effect.sync(() => {
          for (const job of mailbox.jobs.splice(0)) Deferred.doneUnsafe(job.reply, refused(mailbox))
        })
      ),
      Effect.setContext(context)
    )

  /** Concurrent: one job at once; a fatal defect rebuilds the actor (once per build) and replays the job. */
  const run = (mailbox: Mailbox, job: Job): Effect.Effect<void> =>
    Effect.gen(function* () {
      for (let attempt = 0; ; attempt++) {
        const before = mailbox.handlers
        // The run and its answer (or the decision to replay) whoever interrupts: an interrupt lands between runs.
        const died = yield* Effect.uninterruptible(
          Effect.map(handle(mailbox, job), (exit) => {
            // A retired actor (its build died) is not rebuilt here: the next message starts a new one.
            if (!isFatal(exit) || attempt === replayMax || mailboxes.get(mailbox.id) !== mailbox) {
              answer(mailbox, job, exit)
              return undefined
            }
            // The build this job used is dropped (once: others that died on it find it gone already).
            const used = before ?? mailbox.handlers
            if (mailbox.handlers === used) mailbox.handlers = undefined
            return exit
          })
        )
        if (died === undefined) return
        yield* Effect.logError(`${entity.type} ${mailbox.id}: defect in a message, rebuilding the actor`, died)
        yield* Effect.sleep(Math.min(1_000, 20 * 2 ** attempt))
      }
    }).pipe(
      Effect.onInterrupt(() => Effect.sync(() => answer(mailbox, job, refused(mailbox)))),
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
        mailbox = {
          id,
          address,
          jobs: [],
          scope: Scope.makeUnsafe(),
          handlers: undefined,
          draining: false,
          lastActive: 0
        }
        mailboxes.set(id, mailbox)
      }
      if (mailbox.jobs.length >= options.capacity)
        return Effect.fail(new ClusterError.MailboxFull({ address: mailbox.address }))
      const job: Job = { tag, payload, reply: Deferred.makeUnsafe(), parent: exportedSpanOf(fiber) }
      mailbox.jobs.push(job)
      if (options.concurrent) return Effect.as(Effect.forkIn(run(mailbox, job), fibers), job.reply)
      if (mailbox.draining) return Effect.succeed(job.reply)
      mailbox.draining = true
      return Effect.as(Effect.forkIn(drain(mailbox), fibers), job.reply)
    })

  const send = (id: string, tag: string, payload: unknown) =>
    Effect.flatMap(Effect.uninterruptible(enqueue(id, tag, payload)), Deferred.await)

  /** Releases actors idle for maxIdleMs (never one with a message queued or in hand). */
  const passivateIdle = Effect.suspend(() => {
    const now = Date.now()
    const idle: Array<Mailbox> = []
    for (const mailbox of mailboxes.values())
      if (!mailbox.draining && mailbox.jobs.length === 0 && now - mailbox.lastActive >= options.maxIdleMs)
        idle.push(mailbox)
    return Effect.forEach(idle, retire, { discard: true })
  })
  if (Number.isFinite(options.maxIdleMs))
    yield* Effect.forkIn(Effect.repeat(passivateIdle, Schedule.spaced(idleCheckEvery(options.maxIdleMs))), fibers)

  const publish = Effect.suspend(() => {
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
    return Scope.addFinalizer(
      scope,
      Effect.sync(() => series.forEach((registration) => registration.remove()))
    )
  })
  return { send, publish } satisfies Kind
})
