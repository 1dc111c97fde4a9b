/**
 * The database: a real PostgreSQL server when DATABASE_URL is set, else an embedded PostgreSQL
 * (PGlite, kept in DATA_DIR) served on a private unix socket so the same sql-pg client and one
 * SQL dialect serve both (ARCHITECTURE "Persistence"). Migrations and the seed run at start.
 */
import { PGlite } from "@electric-sql/pglite"
import { PGLiteSocketServer } from "@electric-sql/pglite-socket"
import { PgClient } from "@effect/sql-pg"
import { Context, Effect, Layer, Option } from "effect"
import { Reactivity } from "effect/reactivity"
import { SqlClient } from "effect/sql"
import { mkdirSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { runMigrations } from "../../../sql/Migrator.ts"
import { AppConfigService } from "../Config.ts"

const embeddedSocket = Effect.acquireRelease(
  Effect.gen(function* () {
    const config = yield* AppConfigService
    const dataDir = resolve(config.dataDir)
    mkdirSync(dataDir, { recursive: true })
    const socketPath = join(tmpdir(), `core-pglite-${process.pid}-${Date.now()}.sock`)
    rmSync(socketPath, { force: true })
    const db = yield* Effect.promise(() => PGlite.create(dataDir))
    const server = new PGLiteSocketServer({ db, path: socketPath })
    yield* Effect.promise(() => server.start())
    return { db, server, socketPath }
  }),
  ({ db, server, socketPath }) =>
    Effect.promise(async () => {
      await server.stop()
      await db.close()
      rmSync(socketPath, { force: true })
    })
)

export const DatabaseLive = Layer.unwrap(
  Effect.gen(function* () {
    const config = yield* AppConfigService
    if (Option.isSome(config.databaseUrl)) {
      return PgClient.layer({
        url: config.databaseUrl.value,
        maxConnections: config.poolSize,
        applicationName: "core-wallet",
        multiplex: true
      })
    }
    return Layer.unwrap(
      Effect.map(embeddedSocket, ({ socketPath }) =>
        // PGlite is a single connection: one pooled connection, no multiplexing across transactions.
        PgClient.layer({ path: socketPath, maxConnections: 1, username: "postgres", database: "postgres" })
      )
    )
  })
)

/**
 * The connections the ledger writer commits on. Against a server: a small pool of its own, not
 * multiplexed, so a batch never waits for a shared connection's pipelined reads to drain before
 * it can begin (and reads never queue behind a commit). Embedded: the one shared connection.
 */
export class LedgerSql extends Context.Service<LedgerSql, SqlClient.SqlClient>()("core/LedgerSql") {}

export const ledgerConnections = 2

const LedgerSqlLive = Layer.unwrap(
  Effect.gen(function* () {
    const config = yield* AppConfigService
    if (Option.isNone(config.databaseUrl)) return Layer.effect(LedgerSql, SqlClient.SqlClient.use(Effect.succeed))
    return Layer.effect(
      LedgerSql,
      Effect.map(
        PgClient.make({
          url: config.databaseUrl.value,
          maxConnections: ledgerConnections,
          applicationName: "core-wallet-ledger"
        }),
        (client) => client as SqlClient.SqlClient
      )
    ).pipe(Layer.provide(Reactivity.layer))
  })
)

export const MigratedDatabase = Layer.mergeAll(
  Layer.effectDiscard(runMigrations.pipe(Effect.orDie)),
  LedgerSqlLive
).pipe(Layer.provideMerge(DatabaseLive))
