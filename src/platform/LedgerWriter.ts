/**
 * The group-committing ledger writer (ARCHITECTURE "The ledger"). Operations from every actor are
 * queued; one fiber commits them in batches (one SQL transaction, multi-row statements) and
 * resolves each operation only after its batch is durable. If a batch fails, its operations are
 * retried one by one, so one operation's failure never fails its neighbours. The queue is bounded:
 * when it is full, callers wait (back-pressure), memory does not grow.
 */
import { Cause, Context, Data, Deferred, Effect, Exit, Layer, PubSub, Queue, type Tracer } from "effect"
import { SqlClient } from "effect/sql"
import { type LedgerOperation, StateConflict, txIdOf } from "../../sql/Ledger.ts"
import { commitOperations } from "../../sql/LedgerCommit.ts"
import { limits } from "./Config.ts"
import { LedgerSql } from "./db/Database.ts"
import { sqlMessage, sqlState } from "../../sql/SqlState.ts"
import { metricNames, Metrics } from "./monitoring/Metrics.ts"
import { exportedSpanOf } from "./Tracing.ts"

/** A commit refused by a UNIQUE constraint (a reused nonce or external id). */
export class Duplicate extends Data.TaggedError("Duplicate")<{ readonly constraint: string }> {}

/** A commit refused by a CHECK constraint (a balance would go negative: another process spent meanwhile). */
export class ConstraintViolated extends Data.TaggedError("ConstraintViolated")<{ readonly constraint: string }> {}

/**
 * A commit `ledger_commit` refused by its own rule (nothing written, never retried): postings that do not
 * sum to zero per transaction and currency (LC422, defence in depth beside `invariantSumsToZero`), or a
 * creation over INVEST_MAX_OPEN_PER_WALLET counted under the wallet's lock (LC461).
 */
export class LedgerRefused extends Data.TaggedError("LedgerRefused")<{
  readonly reason: "Unbalanced" | "TooManyOpenInvestments"
  readonly message: string
}> {}

/** Why a commit failed, classified in one place (`classify`); anything else is a defect. */
export type CommitFailure = Duplicate | ConstraintViolated | StateConflict | LedgerRefused

export const isCommitFailure = (value: unknown): value is CommitFailure =>
  value instanceof Duplicate ||
  value instanceof ConstraintViolated ||
  value instanceof StateConflict ||
  value instanceof LedgerRefused

/** The SQLSTATEs of ledger_commit's own refusals (sql/migrations/0032, 0033). */
const refusalStates: Record<string, LedgerRefused["reason"]> = {
  LC422: "Unbalanced",
  LC461: "TooManyOpenInvestments"
}

interface Pending {
  readonly operation: LedgerOperation
  readonly done: Deferred.Deferred<bigint, CommitFailure>
  /** The span that asked for this operation, when traces are exported: the batch's span links to it. */
  readonly span: Tracer.Span | undefined
}

const invariantSumsToZero = (operation: LedgerOperation): void => {
  const sums = new Map<string, bigint>()
  for (const posting of operation.postings)
    sums.set(posting.currency, (sums.get(posting.currency) ?? 0n) + posting.delta)
  for (const [currency, sum] of sums) {
    if (sum !== 0n) throw new Error(`invariant: postings of tx ${txIdOf(operation)} sum to ${sum} in ${currency}`)
  }
}

/** A failed commit as a CommitFailure (undefined: a defect). */
export const classify = (error: unknown): CommitFailure | undefined => {
  if (error instanceof StateConflict) return error
  const text = sqlMessage(error)
  const code = sqlState(error)
  if (code === "23505") return new Duplicate({ constraint: text })
  if (code === "23514") return new ConstraintViolated({ constraint: text })
  const refusal = code === undefined ? undefined : refusalStates[code]
  if (refusal !== undefined) return new LedgerRefused({ reason: refusal, message: text })
  return undefined
}

export class LedgerWriter extends Context.Service<
  LedgerWriter,
  {
    /** Commits one operation; resolves with its update tick once durable. */
    readonly commit: (operation: LedgerOperation) => Effect.Effect<bigint, CommitFailure>
    /**
     * Queues one operation now (operations are committed in queue order) and answers the wait for its
     * commit: an actor can queue its next operation before the previous one is durable (pipelining).
     */
    readonly enqueue: (operation: LedgerOperation) => Effect.Effect<Effect.Effect<bigint, CommitFailure>>
    /** The committed watermark of this process's commits (and of others', via the feed service). */
    readonly commits: PubSub.PubSub<bigint>
  }
>()("core/LedgerWriter") {
  static readonly layer = Layer.effect(
    LedgerWriter,
    Effect.gen(function* () {
      const sql = yield* LedgerSql
      const metrics = yield* Metrics
      const queue = yield* Queue.bounded<Pending>(limits.ledgerQueueMax)
      const commits = yield* PubSub.sliding<bigint>(1024)
      const nowMicros = () => BigInt(Date.now()) * 1000n
      // Read at scrape time: operations waiting, and the size of the batch being committed now.
      let batchInFlight = 0
      yield* metrics.gauge(
        metricNames.ledgerQueueDepth,
        "Operations queued for the ledger writer, not yet in a batch",
        () => Queue.sizeUnsafe(queue)
      )
      yield* metrics.gauge(
        metricNames.ledgerBatchInFlight,
        "Operations in the batch being committed now (0 when idle)",
        () => batchInFlight
      )

      // Operations of one batch that change the same row in turn (a pipelining room rests an order,
      // then fills it) are folded into one change per row by commitOperations (sql/Folding.ts).
      const commitBatch = (batch: ReadonlyArray<Pending>) =>
        commitOperations(
          batch.map((p) => p.operation),
          nowMicros()
        ).pipe(Effect.provideService(SqlClient.SqlClient, sql))

      const resolveOne = Effect.fnUntraced(function* (pending: Pending) {
        const exit = yield* Effect.exit(commitBatch([pending]))
        if (Exit.isSuccess(exit)) {
          yield* Deferred.succeed(pending.done, exit.value[0])
          return exit.value[0]
        }
        const failure = exit.cause.reasons.find((r) => r._tag === "Fail")
        const classified = failure ? classify((failure as any).error) : undefined
        if (classified !== undefined) yield* Deferred.fail(pending.done, classified)
        else yield* Deferred.die(pending.done, Cause.squash(exit.cause))
        return undefined
      })

      // A batch once taken is committed and resolved without interruption, so shutdown never
      // abandons an operation half way.
      const commitTaken = (batch: ReadonlyArray<Pending>) =>
        Effect.gen(function* () {
          batchInFlight = batch.length
          const started = performance.now()
          const exit = yield* Effect.exit(commitBatch(batch))
          let top: bigint | undefined
          if (Exit.isSuccess(exit)) {
            for (let i = 0; i < batch.length; i++) yield* Deferred.succeed(batch[i].done, exit.value[i])
            top = exit.value[exit.value.length - 1]
          } else {
            for (const pending of batch) {
              const tick = yield* resolveOne(pending)
              if (tick !== undefined) top = tick
            }
          }
          metrics.observeCommit(batch.length, performance.now() - started)
          batchInFlight = 0
          if (top !== undefined) yield* PubSub.publish(commits, top)
        }).pipe(
          Effect.uninterruptible,
          // One span per group commit (exported when OTEL_EXPORTER_OTLP_ENDPOINT is set: src/platform/Tracing.ts),
          // linked to the span of every operation it commits: each request's trace reaches its commit.
          Effect.withSpan("ledger.commit_batch", {
            attributes: { "ledger.batch.size": batch.length },
            links: batch.flatMap((p) => (p.span === undefined ? [] : [{ span: p.span, attributes: {} }]))
          })
        )

      // Under load (the last batch had company), linger briefly so the next batch fills up; alone, go at once.
      let lastBatchSize = 1
      const takeBatch = Effect.gen(function* () {
        const first = yield* Queue.takeBetween(queue, 1, limits.ledgerBatchMax)
        if (lastBatchSize <= 1 || first.length >= limits.ledgerBatchMax || limits.ledgerLingerMs <= 0) return first
        yield* Effect.sleep(limits.ledgerLingerMs)
        const more = yield* Queue.takeBetween(queue, 0, limits.ledgerBatchMax - first.length)
        return more.length === 0 ? first : [...first, ...more]
      })
      const loop = takeBatch.pipe(
        Effect.tap((batch) => Effect.sync(() => (lastBatchSize = batch.length))),
        Effect.flatMap(commitTaken),
        Effect.forever
      )

      yield* Effect.forkScoped(loop)
      // On shutdown, commit what is queued before the scope closes.
      yield* Effect.addFinalizer(() =>
        Effect.gen(function* () {
          for (;;) {
            const rest = yield* Queue.takeBetween(queue, 0, limits.ledgerBatchMax)
            if (rest.length === 0) return
            for (const pending of rest) yield* resolveOne(pending)
          }
        }).pipe(Effect.ignore)
      )

      const enqueue = (operation: LedgerOperation) =>
        Effect.withFiber((fiber) => {
          invariantSumsToZero(operation)
          for (const part of operation.extra ?? []) invariantSumsToZero(part)
          const done = Deferred.makeUnsafe<bigint, CommitFailure>()
          return Effect.as(Queue.offer(queue, { operation, done, span: exportedSpanOf(fiber) }), Deferred.await(done))
        })
      const commit = (operation: LedgerOperation) => Effect.flatten(enqueue(operation))

      return LedgerWriter.of({ commit, enqueue, commits })
    })
  )
}
