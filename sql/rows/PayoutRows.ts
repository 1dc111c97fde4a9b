/**
 * Crypto payouts' row in a ledger commit (sql/migrations/0020_payout_withdrawals.sql writes it): the
 * C15 withdrawal that pays a TransferOrder out, linked to its order.
 */
import { Schema } from "effect"
import { numberArray } from "../ArrayLiterals.ts"
import type { RowKind } from "../Ledger.ts"

export interface PayoutWithdrawal {
  readonly withdrawalTxId: bigint
  readonly orderTxId: bigint
}

export const PayoutWithdrawals: RowKind<PayoutWithdrawal> = {
  name: "payout_withdrawal",
  // After the payment order and crypto transaction inserts (rank 10) it refers to.
  rank: 15,
  schema: Schema.Struct({ withdrawalTxId: Schema.BigIntFromString, orderTxId: Schema.BigIntFromString }),
  columns: (items) => {
    const rows = items.map((i) => i.row)
    return [numberArray(rows.map((r) => r.withdrawalTxId)), numberArray(rows.map((r) => r.orderTxId))]
  }
}
