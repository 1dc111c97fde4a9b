/**
 * Services capture the SQL client once and run repository effects through `db`: infrastructure
 * failures become defects at the service boundary (a 500 without internals), as STYLE asks.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export type Db = <A, E>(effect: Effect.Effect<A, E, SqlClient.SqlClient>) => Effect.Effect<A>

export const makeDb = SqlClient.SqlClient.useSync(
  (sql): Db =>
    (effect) =>
      Effect.orDie(Effect.provideService(effect, SqlClient.SqlClient, sql))
)

/** The PostgreSQL SQLSTATE behind a failure (23505 unique violation, 23514 check violation), if any. */
export const sqlStateOf = (error: unknown): string | undefined => {
  let current: any = error
  for (let depth = 0; depth < 6 && current !== undefined && current !== null; depth++) {
    if (typeof current.code === "string" && /^[0-9A-Z]{5}$/.test(current.code)) return current.code
    if (typeof current.sqlState === "string") return current.sqlState
    current = current.cause ?? current.reason
  }
  const text = String((error as any)?.message ?? (error as any)?.cause?.message ?? "")
  return /23505|duplicate key/.test(text) ? "23505" : /23514|violates check constraint/.test(text) ? "23514" : undefined
}

export const isUniqueViolation = (error: unknown): boolean => sqlStateOf(error) === "23505"
