/** Crypto payouts (sql/migrations/0020_payout_withdrawals.sql): which TransferOrder a C15 withdrawal pays out. */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { numberArray } from "./ArrayLiterals.ts"
import { decodeAll, Int8, record } from "./Decoding.ts"

export const PayoutLink = record({ withdrawalTxId: Int8, orderTxId: Int8 })
export type PayoutLink = typeof PayoutLink.Type

const links = decodeAll(PayoutLink)

/** The payout links of these withdrawals (most withdrawals have none). */
export const payoutLinksOf = (withdrawalIds: ReadonlyArray<bigint>) =>
  SqlClient.SqlClient.use((sql) =>
    withdrawalIds.length === 0
      ? Effect.succeed([] as ReadonlyArray<PayoutLink>)
      : Effect.map(
          sql`SELECT withdrawal_tx_id, order_tx_id FROM payout_withdrawals
            WHERE withdrawal_tx_id = ANY(${numberArray(withdrawalIds)}::bigint[])`,
          links
        )
  )
