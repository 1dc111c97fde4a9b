/**
 * The committed journal watermark and long-poll waiters (ARCHITECTURE "Feeds and long-polls"). The
 * ledger writer publishes each commit's top tick in-process; other processes' commits arrive by
 * PostgreSQL LISTEN/NOTIFY (sent inside each committing transaction). Waiters are woken by those
 * signals, never by polling SQL; the answer is always re-read from SQL, the authority.
 */
import { PgClient } from "@effect/sql-pg"
import { Context, Deferred, Effect, Layer, Option, PubSub, Queue, Schedule } from "effect"
import { committedWatermark } from "../../sql/JournalRepo.ts"
import { RateLimited } from "../../schema/Errors.ts"
import { AppConfigService } from "../platform/Config.ts"
import { makeDb } from "../platform/db/Sql.ts"
import { metricNames, Metrics } from "../platform/monitoring/Metrics.ts"
import { LedgerWriter } from "../platform/LedgerWriter.ts"

export const journalChannel = "core_journal"
export const longPollWaitersMax = 10_000
export const longPollDefaultSeconds = 30
export const longPollMaxSeconds = 45
/** The feeds that long-poll; each has its own waiter gauge (`longpoll_waiters{feed}`). */
export const longPollFeeds = ["journal", "merchant"] as const
export type LongPollFeed = (typeof longPollFeeds)[number]

export class Feeds extends Context.Service<
  Feeds,
  {
    readonly watermark: () => Effect.Effect<bigint>
    /** Resolves with the committed watermark once it exceeds `cursor`, or after `timeoutMs` idle. */
    readonly waitBeyond: (
      feed: LongPollFeed,
      cursor: bigint,
      timeoutMs: number
    ) => Effect.Effect<{ readonly moved: boolean; readonly watermark: bigint }, RateLimited>
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
      const waiters = new Set<{
        readonly feed: LongPollFeed
        readonly cursor: bigint
        readonly done: Deferred.Deferred<void>
      }>()
      // Counted per feed as waiters come and go, so a scrape reads a number instead of walking the set.
      const waiting = new Map<LongPollFeed, number>(longPollFeeds.map((feed) => [feed, 0]))
      for (const feed of longPollFeeds) {
        yield* metrics.gauge(
          metricNames.longPollWaiters,
          "Long-poll requests waiting for a commit, by feed",
          () => waiting.get(feed) ?? 0,
          { feed }
        )
      }

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
          if (waiters.size >= longPollWaitersMax)
            return yield* new RateLimited({ message: "too many long-poll waiters; retry later" })
          const waiter = { feed, cursor, done: Deferred.makeUnsafe<void>() }
          waiters.add(waiter)
          waiting.set(feed, waiting.get(feed)! + 1)
          yield* Deferred.await(waiter.done).pipe(
            Effect.timeoutOption(timeoutMs),
            Effect.ensuring(
              Effect.sync(() => {
                waiters.delete(waiter)
                waiting.set(feed, waiting.get(feed)! - 1)
              })
            )
          )
          const after = yield* watermark()
          return { moved: after > cursor, watermark: after }
        })

      return Feeds.of({ watermark, waitBeyond })
    })
  )
}
