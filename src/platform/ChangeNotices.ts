/**
 * Short-lived caches of rarely changing rows (sessions with their wallet's flags, tariff rules) that
 * every process drops as soon as those rows change. Triggers on the tables (migration 0010) NOTIFY
 * `core_changes` with the table's name whenever a statement changes it, whichever process or
 * operator ran it; this process listens and drops the caches of that table. Local writes also drop
 * them directly (the embedded database has no listener, and it saves the notification's delay).
 *
 * A cached entry lives at most `ttlMs`. A load that was in flight when a change arrived is returned
 * but not cached (the table's generation moved on), and while the listener is not established (at
 * start, after a dropped connection) nothing is cached against a server.
 */
import { PgClient } from "@effect/sql-pg"
import { Context, Effect, Layer, Option, Queue, Schedule } from "effect"
import { changesChannel } from "../../sql/ChangeRepo.ts"
import { AppConfigService } from "./Config.ts"

export type WatchedTable = "sessions" | "wallets" | "tariffs"

export interface NoticedCache<V> {
  /**
   * The cached value of `key`, or `load`'s (cached when no change intervened). `undefined` is never
   * cached: a row that does not exist yet may be created at any moment.
   */
  readonly get: <E, R>(key: string, load: Effect.Effect<V, E, R>) => Effect.Effect<V, E, R>
  readonly clear: () => void
}

/** Entries per cache: a bound on memory (the cache is cleared when it is reached). */
export const noticedCacheMaxEntries = 100_000

export class ChangeNotices extends Context.Service<
  ChangeNotices,
  {
    /** A cache dropped whenever any of `tables` changes. */
    readonly cache: <V>(tables: ReadonlyArray<WatchedTable>, ttlMs: number) => NoticedCache<V>
    /** This process changed `table`: drop its caches now (other processes learn it from the trigger). */
    readonly changed: (table: WatchedTable) => void
  }
>()("core/ChangeNotices") {
  static readonly layer = Layer.effect(
    ChangeNotices,
    Effect.gen(function* () {
      const embedded = Option.isNone((yield* AppConfigService).databaseUrl)
      let listening = embedded
      const generations = new Map<string, number>()
      const clearers = new Map<string, Array<() => void>>()
      const generationOf = (tables: ReadonlyArray<WatchedTable>) =>
        tables.reduce((sum, t) => sum + (generations.get(t) ?? 0), 0)
      const changed = (table: string) => {
        generations.set(table, (generations.get(table) ?? 0) + 1)
        for (const clear of clearers.get(table) ?? []) clear()
      }
      const changedAll = () => {
        for (const table of clearers.keys()) changed(table)
      }

      if (!embedded) {
        const pg = yield* PgClient.PgClient
        const listener = Effect.scoped(
          Effect.gen(function* () {
            const notifications = yield* pg.listen(changesChannel)
            yield* Effect.addFinalizer(() => Effect.sync(() => (listening = false)))
            // Whatever changed while nobody listened is unknown: start afresh.
            changedAll()
            listening = true
            for (;;) changed((yield* Queue.take(notifications)).payload)
          })
        )
        yield* Effect.forkScoped(listener.pipe(Effect.retry({ schedule: Schedule.spaced("1 second") }), Effect.ignore))
      }

      const cache = <V>(tables: ReadonlyArray<WatchedTable>, ttlMs: number): NoticedCache<V> => {
        const entries = new Map<string, { readonly at: number; readonly value: V }>()
        const clear = () => entries.clear()
        for (const table of tables) clearers.set(table, [...(clearers.get(table) ?? []), clear])
        return {
          clear,
          get: (key, load) =>
            Effect.suspend(() => {
              const hit = entries.get(key)
              const now = Date.now()
              if (hit !== undefined && now - hit.at < ttlMs) return Effect.succeed(hit.value)
              const generation = generationOf(tables)
              return Effect.tap(load, (value) =>
                Effect.sync(() => {
                  if (value === undefined || !listening || generationOf(tables) !== generation) return
                  if (entries.size >= noticedCacheMaxEntries) entries.clear()
                  entries.set(key, { at: now, value })
                })
              )
            })
        }
      }

      return ChangeNotices.of({ cache, changed })
    })
  )
}
