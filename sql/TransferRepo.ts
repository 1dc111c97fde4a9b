/** The second step of two-step operations: confirmations (hashed one-time codes) and signing keys. */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { type TxDbRow, txColumns } from "./JournalRepo.ts"

export interface ConfirmationRow {
  readonly tx_id: bigint
  readonly wallet_id: bigint
  readonly channel: "Inline" | "Code" | "Sign"
  readonly code_hash: Uint8Array | null
  readonly attempts_left: number
  readonly expires_at: Date
}

/**
 * A transaction still awaiting its second step, with its confirmation, in one read (undefined when
 * either is missing: settled, cancelled or never created).
 */
export const findPendingWithConfirmation = (id: string) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(sql<TxDbRow & Omit<ConfirmationRow, "tx_id" | "wallet_id"> & { readonly c_wallet_id: bigint }>`SELECT ${sql.literal(txColumns)},
        c.wallet_id AS c_wallet_id, c.channel, c.code_hash, c.attempts_left, c.expires_at
      FROM transactions JOIN confirmations c ON c.tx_id = transactions.id WHERE transactions.id = ${id}`, ([row]) =>
      row === undefined ? undefined : {
        tx: row as TxDbRow,
        confirmation: {
          tx_id: BigInt(row.id), wallet_id: BigInt(row.c_wallet_id), channel: row.channel, code_hash: row.code_hash,
          attempts_left: Number(row.attempts_left), expires_at: row.expires_at
        }
      }))

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
