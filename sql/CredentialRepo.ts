/** Sessions, merchant apps and service keys; only hashes of secrets are stored. */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export interface SessionRow {
  readonly wallet_id: bigint
  readonly client_id: bigint
  readonly project: number
  readonly flags: number
  readonly wallet_group: number
  readonly expires_at: Date
}

export const insertSession = (sidHash: Uint8Array, walletId: string, expiresAt: Date) =>
  SqlClient.SqlClient.use((sql) =>
    sql`INSERT INTO sessions (sid_hash, wallet_id, expires_at) VALUES (${sidHash}, ${walletId}, ${expiresAt})`)

export const findLiveSession = (sidHash: Uint8Array) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(sql<SessionRow>`SELECT s.wallet_id, s.expires_at, w.client_id, w.project, w.flags, w.wallet_group FROM sessions s JOIN wallets w ON w.id = s.wallet_id
      WHERE s.sid_hash = ${sidHash} AND s.expires_at > now()`, (rows) => rows[0]))

export const deleteSession = (sidHash: Uint8Array) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(sql<{ wallet_id: bigint }>`DELETE FROM sessions WHERE sid_hash = ${sidHash} RETURNING wallet_id`, (rows) => rows.length > 0))

export const deleteExpiredSessions = SqlClient.SqlClient.use((sql) => sql`DELETE FROM sessions WHERE expires_at <= now()`)

export const nextAppId = SqlClient.SqlClient.use((sql) =>
  Effect.map(sql<{ id: bigint }>`SELECT nextval('app_ids') AS id`, ([row]) => BigInt(row.id)))

export const insertApp = (id: string, walletId: string, name: string, pkeyHash: Uint8Array) =>
  SqlClient.SqlClient.use((sql) =>
    sql`INSERT INTO apps (id, wallet_id, name, pkey_hash) VALUES (${id}, ${walletId}, ${name}, ${pkeyHash})`)

export interface AppRow {
  readonly id: bigint
  readonly wallet_id: bigint
  readonly pkey_hash: Uint8Array
}

export const findAppByKeyHash = (pkeyHash: Uint8Array) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(sql<AppRow>`SELECT id, wallet_id, pkey_hash FROM apps WHERE pkey_hash = ${pkeyHash}`, (rows) => rows[0]))

export const serviceKeyHashes = SqlClient.SqlClient.use((sql) =>
  Effect.map(sql<{ key_hash: Uint8Array }>`SELECT key_hash FROM service_keys`, (rows) => rows.map((row) => row.key_hash)))

export const insertServiceKey = (keyHash: Uint8Array, label: string) =>
  SqlClient.SqlClient.use((sql) => sql`INSERT INTO service_keys (key_hash, label) VALUES (${keyHash}, ${label}) ON CONFLICT DO NOTHING`)
