/** Sessions, merchant apps and service keys; only hashes of secrets are stored. */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { Bool, Bytes, decodeAll, decodeFirst, decodeOne, Int, Int8, record, Timestamp } from "./Decoding.ts"

/** A live session with what a request needs of its wallet. */
export const Session = record({
  walletId: Int8,
  clientId: Int8,
  project: Int,
  flags: Int,
  walletGroup: Int,
  expiresAt: Timestamp
})
export type Session = typeof Session.Type

const firstSession = decodeFirst(Session)

export const insertSession = (sidHash: Uint8Array, walletId: string, expiresAt: Date) =>
  SqlClient.SqlClient.use(
    (sql) => sql`INSERT INTO sessions (sid_hash, wallet_id, expires_at) VALUES (${sidHash}, ${walletId}, ${expiresAt})`
  )

export const findLiveSession = (sidHash: Uint8Array) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(
      sql`SELECT s.wallet_id, s.expires_at, w.client_id, w.project, w.flags, w.wallet_group FROM sessions s JOIN wallets w ON w.id = s.wallet_id
      WHERE s.sid_hash = ${sidHash} AND s.expires_at > now()`,
      firstSession
    )
  )

export const deleteSession = (sidHash: Uint8Array) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(sql`DELETE FROM sessions WHERE sid_hash = ${sidHash} RETURNING wallet_id`, (rows) => rows.length > 0)
  )

export const deleteExpiredSessions = SqlClient.SqlClient.use(
  (sql) => sql`DELETE FROM sessions WHERE expires_at <= now()`
)

const nextId = decodeOne(record({ id: Int8 }))

export const nextAppId = SqlClient.SqlClient.use((sql) =>
  Effect.map(sql`SELECT nextval('app_ids') AS id`, (rows) => nextId(rows).id)
)

/** A new app with its key's hash and its webhook signing secret (kept usable: it signs, docs/WEBHOOKS.md). */
export const insertApp = (id: string, walletId: string, name: string, pkeyHash: Uint8Array, webhookSecret: string) =>
  SqlClient.SqlClient.use(
    (sql) => sql`INSERT INTO apps (id, wallet_id, name, pkey_hash, webhook_secret)
      VALUES (${id}, ${walletId}, ${name}, ${pkeyHash}, ${webhookSecret})`
  )

/** A merchant app, found by the hash of its key. */
export const App = record({ id: Int8, walletId: Int8, pkeyHash: Bytes, enabled: Bool })
export type App = typeof App.Type

const firstApp = decodeFirst(App)

export const findAppByKeyHash = (pkeyHash: Uint8Array) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(sql`SELECT id, wallet_id, pkey_hash, enabled FROM apps WHERE pkey_hash = ${pkeyHash}`, firstApp)
  )

/** A merchant app by its id (the private payment actions name the app). */
export const findAppById = (appId: string | bigint) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(sql`SELECT id, wallet_id, pkey_hash, enabled FROM apps WHERE id = ${appId}`, firstApp)
  )

const keyHashes = decodeAll(record({ keyHash: Bytes }))

export const serviceKeyHashes = SqlClient.SqlClient.use((sql) =>
  Effect.map(sql`SELECT key_hash FROM service_keys`, (rows) => keyHashes(rows).map((row) => row.keyHash))
)

export const insertServiceKey = (keyHash: Uint8Array, label: string) =>
  SqlClient.SqlClient.use(
    (sql) => sql`INSERT INTO service_keys (key_hash, label) VALUES (${keyHash}, ${label}) ON CONFLICT DO NOTHING`
  )

const AppId = record({ id: Int8 })
const firstAppId = decodeFirst(AppId)

/** C19 §5 rotate_app_key: the app's new key hash (the old key is refused from this commit on); false: no such app. */
export const rotateAppKey = (appId: string, pkeyHash: Uint8Array) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(
      sql`UPDATE apps SET pkey_hash = ${pkeyHash} WHERE id = ${appId} RETURNING id`,
      (rows) => firstAppId(rows) !== undefined
    )
  )

/** C19 §5 set_app_enabled; false: no such app. */
export const setAppEnabled = (appId: string, enabled: boolean) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(
      sql`UPDATE apps SET enabled = ${enabled} WHERE id = ${appId} RETURNING id`,
      (rows) => firstAppId(rows) !== undefined
    )
  )
