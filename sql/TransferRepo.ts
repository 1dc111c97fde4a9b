/** The second step of two-step operations: confirmations (hashed one-time codes) and signing keys. */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { Bytes, decodeAll, decodeFirst, Int, Int8, Nullable, OneOf, record, Timestamp } from "./Decoding.ts"
import { Tx, txColumns } from "./JournalRepo.ts"

/** The second step a pending transaction awaits. */
export const Confirmation = record({
  txId: Int8,
  walletId: Int8,
  channel: OneOf(["Inline", "Code", "Sign"]),
  codeHash: Nullable(Bytes),
  attemptsLeft: Int,
  expiresAt: Timestamp
})
export type Confirmation = typeof Confirmation.Type

const firstTx = decodeFirst(Tx)
const firstConfirmation = decodeFirst(Confirmation)

/**
 * A transaction still awaiting its second step, with its confirmation, in one read (undefined when
 * either is missing: settled, cancelled or never created).
 */
export const findPendingWithConfirmation = (id: string) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(
      sql`SELECT ${sql.literal(txColumns)},
        c.tx_id, c.wallet_id, c.channel, c.code_hash, c.attempts_left, c.expires_at
      FROM transactions JOIN confirmations c ON c.tx_id = transactions.id WHERE transactions.id = ${id}`,
      (rows) => {
        // The transaction's columns and the confirmation's do not share a name: one row holds both records.
        const tx = firstTx(rows)
        const confirmation = firstConfirmation(rows)
        return tx === undefined || confirmation === undefined ? undefined : { tx, confirmation }
      }
    )
  )

/** One wrong attempt used; returns the attempts left. */
export const spendAttempt = (txId: string) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(
      sql`UPDATE confirmations SET attempts_left = GREATEST(attempts_left - 1, 0)
      WHERE tx_id = ${txId} RETURNING attempts_left`,
      (rows) => attemptsLeft(rows)?.attemptsLeft ?? 0
    )
  )

const attemptsLeft = decodeFirst(record({ attemptsLeft: Int }))

/** A confirmation past its expiry, for the sweeper that releases its reservation. */
export const ExpiredConfirmation = record({ txId: Int8, walletId: Int8 })
const expired = decodeAll(ExpiredConfirmation)

export const expiredConfirmations = (limit: number) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(
      sql`SELECT tx_id, wallet_id FROM confirmations WHERE expires_at <= now() ORDER BY expires_at LIMIT ${limit}`,
      expired
    )
  )

export const signingKeysOf = (walletId: string) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(sql`SELECT public_key FROM signing_keys WHERE wallet_id = ${walletId}`, (rows) =>
      publicKeys(rows).map((row) => row.publicKey)
    )
  )

const publicKeys = decodeAll(record({ publicKey: Bytes }))

export const insertSigningKey = (walletId: string, publicKey: Uint8Array) =>
  SqlClient.SqlClient.use(
    (sql) =>
      sql`INSERT INTO signing_keys (wallet_id, public_key) VALUES (${walletId}, ${publicKey}) ON CONFLICT DO NOTHING`
  )
