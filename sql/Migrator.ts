/**
 * Applies the numbered migrations of sql/migrations at start, idempotently: each file runs once,
 * in order, inside a transaction holding an advisory lock, so concurrent starts of several
 * processes against one server apply each migration exactly once.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { readdirSync, readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"

const migrationsDir = fileURLToPath(new URL("./migrations/", import.meta.url))
/** Held by every schema change at start (ours, and effect/cluster's in sql/ClusterMessageRepo.ts). */
export const migrationLockKey = 7_261_001

/**
 * Statements are separated by a semicolon at the end of a line; inside a `$$`-quoted function body
 * such semicolons belong to the body (an odd count of `$$` before them means the body is still open).
 */
export const statementsOf = (text: string): Array<string> => {
  const statements: Array<string> = []
  let current = ""
  for (const part of text.split(/(?<=;)[ \t]*\n/)) {
    current += (current.length > 0 ? "\n" : "") + part
    if ((current.match(/\$\$/g)?.length ?? 0) % 2 === 0) {
      statements.push(current.replace(/;\s*$/, ""))
      current = ""
    }
  }
  if (current.length > 0) statements.push(current)
  return statements
    .map((part) => part.trim())
    .filter((part) => part.split("\n").some((line) => line.trim().length > 0 && !line.trim().startsWith("--")))
}

export const migrationFiles = (): Array<{
  readonly id: number
  readonly name: string
  readonly statements: Array<string>
}> =>
  readdirSync(migrationsDir)
    .filter((file) => /^[0-9]{4}_[a-z0-9_]+\.sql$/.test(file))
    .sort()
    .map((file) => ({
      id: Number(file.slice(0, 4)),
      name: file.slice(5, -4),
      statements: statementsOf(readFileSync(migrationsDir + file, "utf8"))
    }))

export const runMigrations = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const applied: Array<string> = []
  yield* sql.withTransaction(
    Effect.gen(function* () {
      yield* sql`SELECT pg_advisory_xact_lock(${migrationLockKey})`
      yield* sql`CREATE TABLE IF NOT EXISTS schema_migrations (
      id integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`
      const done = new Set((yield* sql<{ id: number }>`SELECT id FROM schema_migrations`).map((row) => Number(row.id)))
      for (const migration of migrationFiles()) {
        if (done.has(migration.id)) continue
        for (const statement of migration.statements) yield* sql.unsafe(statement)
        yield* sql`INSERT INTO schema_migrations (id, name) VALUES (${migration.id}, ${migration.name})`
        applied.push(`${migration.id}_${migration.name}`)
      }
    })
  )
  return applied
})
