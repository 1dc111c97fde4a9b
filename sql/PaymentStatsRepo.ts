/**
 * Daily payment statistics (CONTRACT C16 "Daily statistics"): per UTC day of creation, app, currency
 * and typeTx, how many orders (20 PaymentOrder, 21 TransferOrder) and refunds (19) were created, how
 * many finished and the sum of what finished, in minor units. An order is finished when it is now
 * Paid, PartiallyRefunded or Refunded (payment_orders.state_code 8, 9, 10) and counts its
 * orderAmount; a refund is a transaction with app_id set, finished at tx_state 8 (Finished), and
 * counts its amount in its currency. Groups with no row do not exist, so every row has total > 0.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { decodeAll, Int, Int8, MinorUnits, record, Text } from "./Decoding.ts"

export const PaymentStatRow = record({
  appId: Int8,
  dayNumber: Int8,
  day: Text,
  currency: Text,
  txType: Int,
  total: Int8,
  finished: Int8,
  amountFinished: MinorUnits
})
export type PaymentStatRow = typeof PaymentStatRow.Type

const rows = decodeAll(PaymentStatRow)

/**
 * The rows of [from, to) (UTC instants at midnight), of one app or of all (appId null), sorted by
 * dayNumber, appId, currency, txType. Orders use payment_orders_app_created / payment_orders_created,
 * refunds transactions_refund_created (migration 0021).
 */
export const paymentStats = (appId: string | null, from: Date, to: Date) =>
  SqlClient.SqlClient.use((sql) => {
    const ofOrder = appId === null ? sql`` : sql`AND o.app_id = ${appId}::bigint`
    const ofRefund = appId === null ? sql`` : sql`AND t.app_id = ${appId}::bigint`
    return Effect.map(
      sql`WITH created AS (
          SELECT o.app_id, o.created_at, o.currency, t.type_tx, o.state_code IN (8, 9, 10) AS finished,
            o.order_amount AS amount
          FROM payment_orders o JOIN transactions t ON t.id = o.tx_id
          WHERE o.created_at >= ${from} AND o.created_at < ${to} ${ofOrder} AND t.type_tx IN (20, 21)
          UNION ALL
          SELECT t.app_id, t.created_at, t.currency, t.type_tx, t.tx_state = 8 AS finished, t.amount
          FROM transactions t
          WHERE t.type_tx = 19 AND t.app_id IS NOT NULL AND t.created_at >= ${from} AND t.created_at < ${to} ${ofRefund}
        ), days AS (
          SELECT app_id, (created_at AT TIME ZONE 'UTC')::date AS day, currency, type_tx, finished, amount FROM created
        )
        SELECT app_id, (day - DATE '1970-01-01')::int8 AS day_number, to_char(day, 'YYYY-MM-DD') AS day, currency,
          type_tx AS tx_type, count(*)::int8 AS total, count(*) FILTER (WHERE finished)::int8 AS finished,
          COALESCE(sum(amount) FILTER (WHERE finished), 0)::text AS amount_finished
        FROM days
        GROUP BY app_id, day, currency, type_tx
        ORDER BY day_number, app_id, currency, tx_type`,
      rows
    )
  })
