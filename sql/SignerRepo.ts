/**
 * The signer's queue (CONTRACT C15 "Withdrawals"): Queued, HandedOff and Broadcast Outcomes and
 * Refunds by queue tick, and the Queued count per terminal (monitoring's withdrawals_queued).
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { decodeAll, Int, Int8, MinorUnits, Nullable, record, Text } from "./Decoding.ts"

export const QueueItem = record({
  txId: Int8,
  typeTx: Int,
  txState: Int,
  stage: Text,
  terminalId: Int8,
  typeNetwork: Int,
  typeContract: Int,
  currency: Text,
  decimals: Int,
  addressContract: Nullable(Text),
  toAddress: Text,
  memo: Nullable(Text),
  amount: MinorUnits,
  sourceAddress: Nullable(Text),
  sourceIndex: Nullable(Int),
  queueTick: Int8
})
export type QueueItem = typeof QueueItem.Type
const queueItems = decodeAll(QueueItem)

/**
 * Items to send after `cursor` (exclusive) in queue-tick order, of one terminal or all. An item without a
 * client asset source is sent from its terminal's defaultHotAddress (C19 §10): that address, index null.
 */
export const txsToSend = (terminalId: string | null, cursor: string, limit: number) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(
      sql`SELECT c.tx_id, t.type_tx, t.tx_state, c.stage, c.terminal_id, r.type_network, r.type_contract, t.currency,
          r.decimals, r.address_contract, c.to_address, c.memo, t.amount::text AS amount,
          CASE WHEN c.source_address IS NULL THEN r.default_hot_address ELSE c.source_address END AS source_address,
          CASE WHEN c.source_address IS NULL THEN NULL ELSE c.source_index END AS source_index, c.queue_tick
        FROM crypto_txs c
          JOIN transactions t ON t.id = c.tx_id
          JOIN terminals r ON r.id = c.terminal_id
        WHERE c.stage IN ('Queued', 'HandedOff', 'Broadcast') AND c.type_tx IN (2, 19)
          AND c.queue_tick > ${cursor}
          ${terminalId === null ? sql`` : sql`AND c.terminal_id = ${terminalId}`}
        ORDER BY c.queue_tick
        LIMIT ${limit}`,
      queueItems
    )
  )

/** A transaction's current update id (an idempotent report answers it unchanged). */
export const updateIdOf = (txId: bigint) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(
      sql<{ id_update: string }>`SELECT id_update::text AS id_update FROM transactions WHERE id = ${txId}`,
      (rows) => rows[0]?.id_update ?? "0"
    )
  )

/** Whether a scanner pushed an item of this txHash on the terminal that is still in its current chain (C19 §9). */
export const txHashInChain = (terminalId: bigint, txHash: string) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(
      sql`SELECT 1 AS one FROM chain_items
        WHERE terminal_id = ${terminalId} AND tx_hash = ${txHash} AND NOT orphaned LIMIT 1`,
      (rows) => rows.length > 0
    )
  )
