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
