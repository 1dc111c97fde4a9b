/** A fresh database per test service on the PostgreSQL server named by DATABASE_URL. */
import { PgClient } from "@effect/sql-pg"
import { Effect, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { randomBytes } from "node:crypto"

/** A new empty database, or a copy of `template` (a database URL on the same server, with no one connected). */
export const createDatabase = async (serverUrl: string, template?: string): Promise<string> => {
  const name = "core_test_" + randomBytes(6).toString("hex")
  const from = template === undefined ? "" : ` TEMPLATE ${new URL(template).pathname.slice(1)}`
  await Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        yield* sql.unsafe(`CREATE DATABASE ${name}${from}`)
      }).pipe(Effect.provide(PgClient.layer({ url: Redacted.make(serverUrl), maxConnections: 1 })))
    )
  )
  const url = new URL(serverUrl)
  url.pathname = "/" + name
  return url.toString()
}

/** Drops a database this test run created (after its service has stopped). */
export const dropDatabase = async (databaseUrl: string): Promise<void> => {
  const url = new URL(databaseUrl)
  const name = url.pathname.slice(1)
  if (!/^core_test_[0-9a-f]+$/.test(name)) return
  url.pathname = "/postgres"
  await Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        yield* sql.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      }).pipe(Effect.provide(PgClient.layer({ url: Redacted.make(url.toString()), maxConnections: 1 })))
    )
  ).catch(() => undefined)
}

/** Runs one statement on a service's own database (real PostgreSQL only: `itWithServer` tests). */
export const withDatabase = <A>(
  databaseUrl: string,
  statement: (sql: SqlClient.SqlClient) => Effect.Effect<A, unknown>
): Promise<A> =>
  Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        return yield* statement(sql)
      }).pipe(Effect.provide(PgClient.layer({ url: Redacted.make(databaseUrl), maxConnections: 1 })))
    ) as Effect.Effect<A>
  )
