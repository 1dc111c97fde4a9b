/**
 * The stored usable secrets (C19 §6): app webhook secrets, partner outbound pkeys and webhook secrets, the
 * generated acquirer secret. `clearSecrets` finds the rows still in clear text (written before C19, or
 * by an older build) and `resealSecret` replaces one value with its sealed form only while it is still
 * that clear value (two processes starting together seal it once).
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/** Table, key column and secret column of every stored secret. */
export const secretColumns = [
  { table: "apps", key: "id", column: "webhook_secret" },
  { table: "federation_partners", key: "partner_id", column: "outbound_pkey" },
  { table: "federation_partners", key: "partner_id", column: "webhook_secret" },
  { table: "acquirer_secrets", key: "id", column: "secret" }
] as const

export type SecretColumn = (typeof secretColumns)[number]

/** The rows of one secret column whose value does not start with `prefix` (clear text). */
export const clearSecrets = (at: SecretColumn, prefix: string) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(
      sql<{ k: string; v: string }>`SELECT ${sql.literal(at.key)}::text AS k, ${sql.literal(at.column)} AS v
        FROM ${sql.literal(at.table)}
        WHERE ${sql.literal(at.column)} IS NOT NULL AND left(${sql.literal(at.column)}, ${prefix.length}) <> ${prefix}`,
      (rows) => rows.map((row) => ({ key: String(row.k), value: String(row.v) }))
    )
  )

export const resealSecret = (at: SecretColumn, key: string, clear: string, sealed: string) =>
  SqlClient.SqlClient.use(
    (sql) =>
      sql`UPDATE ${sql.literal(at.table)} SET ${sql.literal(at.column)} = ${sealed}
        WHERE ${sql.literal(at.key)}::text = ${key} AND ${sql.literal(at.column)} = ${clear}`
  )
