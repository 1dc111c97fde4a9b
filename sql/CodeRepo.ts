/** Transfer codes: lookups by the code's hash or by its transaction. */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { decodeFirst, Int, Int8, MinorUnits, Nullable, OneOf, record, Text, Timestamp } from "./Decoding.ts"

/** A code with its transaction's state and money (minor units). */
export const Code = record({
  txId: Int8,
  kind: OneOf(["transfer", "room"]),
  creator: Int8,
  counterparty: Nullable(Int8),
  expiresAt: Nullable(Timestamp),
  partnerInfo: Nullable(Text),
  roomKey: Nullable(Int8),
  typeTx: Int,
  txState: Int,
  idUpdate: Int8,
  currency: Text,
  amount: MinorUnits,
  fee: MinorUnits,
  profitWallet: Nullable(Int8),
  tag: Nullable(Text),
  createdAt: Timestamp
})
export type Code = typeof Code.Type

const firstCode = decodeFirst(Code)

const columns = `c.tx_id, c.kind, c.creator, c.counterparty, c.expires_at, c.partner_info, c.room_key, t.type_tx, t.tx_state, t.id_update,
  t.currency, t.amount::text AS amount, t.fee::text AS fee, t.profit_wallet, t.tag, t.created_at`

export const findCodeByHash = (codeHash: Uint8Array) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(
      sql`SELECT ${sql.literal(columns)} FROM codes c JOIN transactions t ON t.id = c.tx_id WHERE c.code_hash = ${codeHash}`,
      firstCode
    )
  )

export const findCodeByTx = (txId: string | bigint) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(
      sql`SELECT ${sql.literal(columns)} FROM codes c JOIN transactions t ON t.id = c.tx_id WHERE c.tx_id = ${txId}`,
      firstCode
    )
  )
