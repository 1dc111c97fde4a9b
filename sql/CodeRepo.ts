/** Transfer codes: lookups by the code's hash or by its transaction. */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export interface CodeRow {
  readonly tx_id: bigint
  readonly kind: "transfer" | "room"
  readonly creator: bigint
  readonly counterparty: bigint | null
  readonly expires_at: Date | null
  readonly partner_info: string | null
  readonly room_key: bigint | null
  readonly type_tx: number
  readonly tx_state: number
  readonly id_update: bigint
  readonly currency: string
  readonly amount: string
  readonly fee: string
  readonly profit_wallet: bigint | null
  readonly tag: string | null
  readonly created_at: Date
}

const columns = `c.tx_id, c.kind, c.creator, c.counterparty, c.expires_at, c.partner_info, c.room_key, t.type_tx, t.tx_state, t.id_update,
  t.currency, t.amount::text AS amount, t.fee::text AS fee, t.profit_wallet, t.tag, t.created_at`

export const findCodeByHash = (codeHash: Uint8Array) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(sql<CodeRow>`SELECT ${sql.literal(columns)} FROM codes c JOIN transactions t ON t.id = c.tx_id WHERE c.code_hash = ${codeHash}`,
      (rows) => rows[0]))

export const findCodeByTx = (txId: string) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(sql<CodeRow>`SELECT ${sql.literal(columns)} FROM codes c JOIN transactions t ON t.id = c.tx_id WHERE c.tx_id = ${txId}`,
      (rows) => rows[0]))
