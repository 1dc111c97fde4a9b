/** Refunds of payment orders (CONTRACT C16 "Refunds"): a refund with its transaction's state and its order's code. */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { decodeAll, decodeFirst, Int, Int8, MinorUnits, Nullable, OneOf, record, Text, Timestamp } from "./Decoding.ts"

export const PaymentRefundRow = record({
  txId: Int8,
  orderTxId: Int8,
  appId: Int8,
  externalId: Text,
  requestHash: Text,
  destination: OneOf(["Wallet", "Card", "Crypto"]),
  currency: Text,
  amount: MinorUnits,
  fee: MinorUnits,
  payoutAmount: MinorUnits,
  payoutCurrency: Text,
  reason: Nullable(Text),
  refundAddress: Nullable(Text),
  stateCode: Int,
  createdAt: Timestamp,
  finishedAt: Nullable(Timestamp),
  txState: Int,
  idUpdate: Int8,
  orderCode: Nullable(Text)
})
export type PaymentRefundRow = typeof PaymentRefundRow.Type

const first = decodeFirst(PaymentRefundRow)
const all = decodeAll(PaymentRefundRow)

/** The select list of a PaymentRefundRow over `r` (payment_refunds), `t` (its transaction) and `o` (its order). */
export const columns = `r.tx_id, r.order_tx_id, r.app_id, r.external_id, r.request_hash, r.destination, r.currency,
  r.amount::text AS amount, r.fee::text AS fee, r.payout_amount::text AS payout_amount, r.payout_currency, r.reason,
  r.refund_address, r.state_code::int AS state_code, r.created_at, r.finished_at, t.tx_state, t.id_update,
  o.code AS order_code`

const from = `payment_refunds r JOIN transactions t ON t.id = r.tx_id JOIN payment_orders o ON o.tx_id = r.order_tx_id`

export const refundByTx = (txId: string | bigint) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(sql`SELECT ${sql.literal(columns)} FROM ${sql.literal(from)} WHERE r.tx_id = ${txId}`, first)
  )

export const refundByExternalId = (appId: string | bigint, externalId: string) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(
      sql`SELECT ${sql.literal(columns)} FROM ${sql.literal(from)} WHERE r.app_id = ${appId} AND r.external_id = ${externalId}`,
      first
    )
  )

/** An order's refunds, oldest first (at most 100 per order, C16). */
export const refundsOfOrder = (orderTxId: string | bigint) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(
      sql`SELECT ${sql.literal(columns)} FROM ${sql.literal(from)} WHERE r.order_tx_id = ${orderTxId} ORDER BY r.tx_id`,
      all
    )
  )
