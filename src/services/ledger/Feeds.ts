/**
 * The committed journal watermark and long-poll waiters (ARCHITECTURE "Feeds and long-polls"). The
 * ledger writer publishes each commit's top tick in-process; other processes' commits arrive by
 * PostgreSQL LISTEN/NOTIFY (sent inside each committing transaction). Waiters are woken by those
 * signals, never by polling SQL; the answer is always re-read from SQL, the authority.
 *
 * Every parked long-poll holds a slot (`admit`): at most LONGPOLL_MAX_PER_CREDENTIAL per caller (the
 * session, app or service key the credential middleware named, CallerKey; C19 §8, 429 10409) and
 * `longPollWaitersMax` in all (429 10429). The merchant feed parks its own waiters by app
 * (src/services/payments/MerchantFeed.ts) and learns of commits through `onAdvance`.
 */
import { PgClient } from "@effect/sql-pg"
import { Context, Deferred, Effect, Layer, Metric, Option, PubSub, Queue, Schedule, type Scope } from "effect"
import { committedWatermark } from "../../../sql/JournalRepo.ts"
import { TooManyWaiters } from "../../../schema/EdgeErrors.ts"
import { RateLimited } from "../../../schema/Errors.ts"
import { CallerKey } from "../../../schema/Security.ts"
import { AppConfigService } from "../../platform/Config.ts"
import { makeDb } from "../../platform/db/Sql.ts"
import { metricNames, Metrics } from "../../platform/monitoring/Metrics.ts"
import { LedgerWriter } from "../../platform/LedgerWriter.ts"

export const journalChannel = "core_journal"
export const longPollWaitersMax = 10_000
export const longPollDefaultSeconds = 30
export const longPollMaxSeconds = 45
/** The feeds that long-poll; each has its own waiter gauge (`longpoll_waiters{feed}`). */
export const longPollFeeds = ["journal", "merchant"] as const
export type LongPollFeed = (typeof longPollFeeds)[number]

/** Waiters a commit woke (not their timeout): a merchant's wake only for its own app's feed. */
const wakeups = Metric.counter(metricNames.longPollWakeups, {
  description: "Long-poll waiters woken by a commit, by feed",
  incremental: true
})

/** A parked long-poll's slot; `woke` counts a wake-up by a commit, `release` gives the slot back. */
export interface WaiterSlot {
  readonly woke: () => void
  readonly release: Effect.Effect<void>
}

export class Feeds extends Context.Service<
  Feeds,
  {
    readonly watermark: () => Effect.Effect<bigint>
    /** Resolves with the committed watermark once it exceeds `cursor`, or after `timeoutMs` idle. */
    readonly waitBeyond: (
      feed: LongPollFeed,
      cursor: bigint,
      timeoutMs: number
    ) => Effect.Effect<{ readonly moved: boolean; readonly watermark: bigint }, RateLimited | TooManyWaiters>
    /** A slot for one waiter about to park, counted for the caller (CallerKey) and in all. */
    readonly admit: (feed: LongPollFeed) => Effect.Effect<WaiterSlot, RateLimited | TooManyWaiters>
    /** Calls `listener` (synchronously, keep it short) with every new committed watermark, for the scope. */
    readonly onAdvance: (listener: (tick: bigint) => void) => Effect.Effect<void, never, Scope.Scope>
  }
>()("core/Feeds") {
  static readonly layer = Layer.effect(
    Feeds,
    Effect.gen(function* () {
      const db = yield* makeDb
      const ledger = yield* LedgerWriter
      const metrics = yield* Metrics
      const config = yield* AppConfigService
      let latest = yield* db(committedWatermark)
      const waiters = new Set<{ readonly cursor: bigint; readonly done: Deferred.Deferred<void> }>()
      const listeners = new Set<(tick: bigint) => void>()
      // Counted as waiters come and go, so a scrape reads a number instead of walking anything.
      const waiting = new Map<LongPollFeed, number>(longPollFeeds.map((feed) => [feed, 0]))
      const byCaller = new Map<string, number>()
      let total = 0
      const perCallerMax = config.longPollMaxPerCredential
      for (const feed of longPollFeeds) {
        yield* metrics.gauge(
          metricNames.longPollWaiters,
          "Long-poll requests waiting for a commit, by feed",
          () => waiting.get(feed) ?? 0,
          { feed }
        )
        metrics.update(Metric.withAttributes(wakeups, { feed }), 0)
      }

      const admit = (feed: LongPollFeed): Effect.Effect<WaiterSlot, RateLimited | TooManyWaiters> =>
        CallerKey.use((caller): Effect.Effect<WaiterSlot, RateLimited | TooManyWaiters> => {
          if (total >= longPollWaitersMax)
            return Effect.fail(new RateLimited({ message: "too many long-poll waiters; retry later" }))
          const held = byCaller.get(caller) ?? 0
          if (perCallerMax > 0 && held >= perCallerMax)
            return Effect.fail(
              new TooManyWaiters({
                message: `this credential already holds ${perCallerMax} long-polls (LONGPOLL_MAX_PER_CREDENTIAL)`
              })
            )
          byCaller.set(caller, held + 1)
          total++
          waiting.set(feed, waiting.get(feed)! + 1)
          const counter = Metric.withAttributes(wakeups, { feed })
          let released = false
          return Effect.succeed<WaiterSlot>({
            woke: () => metrics.update(counter, 1),
            release: Effect.sync(() => {
              if (released) return
              released = true
              total--
              waiting.set(feed, waiting.get(feed)! - 1)
              const left = (byCaller.get(caller) ?? 1) - 1
              if (left <= 0) byCaller.delete(caller)
              else byCaller.set(caller, left)
            })
          })
        })

      const advance = (tick: bigint) =>
        Effect.sync(() => {
          if (tick <= latest) return
          latest = tick
          for (const waiter of waiters) {
            if (waiter.cursor < tick) {
              waiters.delete(waiter)
              Deferred.doneUnsafe(waiter.done, Effect.void)
            }
          }
          for (const listener of listeners) listener(tick)
        })

      const local = yield* PubSub.subscribe(ledger.commits)
      yield* Effect.forkScoped(Effect.forever(Effect.flatMap(PubSub.take(local), advance)))

      if (Option.isSome(config.databaseUrl)) {
        // Other processes' commits: their NOTIFY carries the tick.
        const pg = yield* PgClient.PgClient
        const listener = Effect.scoped(
          Effect.gen(function* () {
            const notifications = yield* pg.listen(journalChannel)
            for (;;) {
              const notification = yield* Queue.take(notifications)
              if (/^[0-9]{1,19}$/.test(notification.payload)) yield* advance(BigInt(notification.payload))
            }
          })
        )
        // A dropped listening connection is re-established; waiters still time out and re-read SQL meanwhile.
        yield* Effect.forkScoped(listener.pipe(Effect.retry({ schedule: Schedule.spaced("1 second") }), Effect.ignore))
      }

      const watermark = () => Effect.map(db(committedWatermark), (tick) => (tick > latest ? (latest = tick) : tick))

      const waitBeyond = (feed: LongPollFeed, cursor: bigint, timeoutMs: number) =>
        Effect.gen(function* () {
          const now = yield* watermark()
          if (now > cursor || timeoutMs <= 0) return { moved: now > cursor, watermark: now }
          // A commit announced while the watermark was being read only woke earlier waiters: if one
          // already passed the cursor, read again instead of sleeping until the next commit.
          if (latest > cursor) {
            const again = yield* watermark()
            return { moved: again > cursor, watermark: again }
          }
          const slot = yield* admit(feed)
          const waiter = { cursor, done: Deferred.makeUnsafe<void>() }
          waiters.add(waiter)
          const woken = yield* Deferred.await(waiter.done).pipe(
            Effect.timeoutOption(timeoutMs),
            Effect.ensuring(Effect.sync(() => waiters.delete(waiter))),
            Effect.ensuring(slot.release)
          )
          if (Option.isSome(woken)) slot.woke()
          const after = yield* watermark()
          return { moved: after > cursor, watermark: after }
        })

      const onAdvance = (listener: (tick: bigint) => void) =>
        Effect.acquireRelease(
          Effect.sync(() => listeners.add(listener)),
          () => Effect.sync(() => listeners.delete(listener))
        ).pipe(Effect.asVoid)

      return Feeds.of({ watermark, waitBeyond, admit, onAdvance })
    })
  )
}
