/**
 * Settings fixed for the life of a database (sql/migrations/0038_cluster_settings.sql): the first process
 * records its value, every later one reads the recorded one back to compare.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { decodeOne, record, Text } from "./Decoding.ts"

const setting = decodeOne(record({ value: Text }))

/**
 * Records `value` for `name` unless one is recorded already; the recorded value either way. Two statements,
 * not one: a process racing the first one's insert sees it committed in the second statement's snapshot.
 */
export const fixSetting = (name: string, value: string) =>
  SqlClient.SqlClient.use((sql) =>
    sql`INSERT INTO cluster_settings (name, value) VALUES (${name}, ${value}) ON CONFLICT (name) DO NOTHING`.pipe(
      Effect.andThen(sql`SELECT value FROM cluster_settings WHERE name = ${name}`),
      Effect.map((rows) => setting(rows).value)
    )
  )
