/**
 * Crypto refunds (sql/migrations/0023_crypto_refunds.sql): which Pending refund a C15 withdrawal sends,
 * with what the engine's `refundSettled` needs of it.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { numberArray } from "./ArrayLiterals.ts"
import { decodeAll, Int, Int8, MinorUnits, record } from "./Decoding.ts"

export const RefundLink = record({
  withdrawalTxId: Int8,
  refundTxId: Int8,
  orderTxId: Int8,
  amount: MinorUnits,
  fee: MinorUnits,
  profitWallet: Int8,
  stateCode: Int,
  refundTxState: Int
})
export type RefundLink = typeof RefundLink.Type

const links = decodeAll(RefundLink)

/** The refund links of these withdrawals (most withdrawals have none), by withdrawal id. */
export const refundLinksOf = (withdrawalIds: ReadonlyArray<bigint>) =>
  SqlClient.SqlClient.use((sql) =>
    withdrawalIds.length === 0
      ? Effect.succeed([] as ReadonlyArray<RefundLink>)
      : Effect.map(
          sql`SELECT w.withdrawal_tx_id, w.refund_tx_id, r.order_tx_id, r.amount::text AS amount, r.fee::text AS fee,
              r.profit_wallet, r.state_code::int AS state_code, t.tx_state::int AS refund_tx_state
            FROM refund_withdrawals w JOIN payment_refunds r ON r.tx_id = w.refund_tx_id
              JOIN transactions t ON t.id = w.refund_tx_id
            WHERE w.withdrawal_tx_id = ANY(${numberArray(withdrawalIds)}::bigint[])
            ORDER BY w.withdrawal_tx_id`,
          links
        )
  )
