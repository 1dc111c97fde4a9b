/** The second step of two-step operations: confirmations (hashed one-time codes) and signing keys. */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export interface ConfirmationRow {
  readonly tx_id: bigint
  readonly wallet_id: bigint
  readonly channel: "Inline" | "Code" | "Sign"
  readonly code_hash: Uint8Array | null
  readonly attempts_left: number
  readonly expires_at: Date
}

export const findConfirmation = (txId: string) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(sql<ConfirmationRow>`SELECT tx_id, wallet_id, channel, code_hash, attempts_left, expires_at
      FROM confirmations WHERE tx_id = ${txId}`, (rows) => rows[0]))

/** One wrong attempt used; returns the attempts left. */
export const spendAttempt = (txId: string) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(sql<{ attempts_left: number }>`UPDATE confirmations SET attempts_left = GREATEST(attempts_left - 1, 0)
      WHERE tx_id = ${txId} RETURNING attempts_left`, (rows) => (rows[0] === undefined ? 0 : Number(rows[0].attempts_left))))

export const expiredConfirmations = (limit: number) =>
  SqlClient.SqlClient.use((sql) =>
    sql<{ tx_id: bigint; wallet_id: bigint }>`SELECT tx_id, wallet_id FROM confirmations WHERE expires_at <= now() ORDER BY expires_at LIMIT ${limit}`)

export const signingKeysOf = (walletId: string) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(sql<{ public_key: Uint8Array }>`SELECT public_key FROM signing_keys WHERE wallet_id = ${walletId}`,
      (rows) => rows.map((row) => new Uint8Array(row.public_key))))

export const insertSigningKey = (walletId: string, publicKey: Uint8Array) =>
  SqlClient.SqlClient.use((sql) =>
    sql`INSERT INTO signing_keys (wallet_id, public_key) VALUES (${walletId}, ${publicKey}) ON CONFLICT DO NOTHING`)
