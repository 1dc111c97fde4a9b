/**
 * Rows of crypto refunds in a ledger commit (sql/migrations/0023_crypto_refunds.sql writes them): the C15
 * withdrawal that sends a Pending refund, linked to it; and the refund settled (8 Finished / 16 Failed)
 * in the commit that settles that withdrawal.
 */
import { Schema } from "effect"
import { numberArray } from "../ArrayLiterals.ts"
import type { RowKind } from "../Ledger.ts"

export interface RefundWithdrawal {
  readonly withdrawalTxId: bigint
  readonly refundTxId: bigint
}

export const RefundWithdrawals: RowKind<RefundWithdrawal> = {
  name: "refund_withdrawal",
  // After the refund's row (payment_refund_insert, rank 30) and the withdrawal's crypto record it refers to.
  rank: 35,
  schema: Schema.Struct({ withdrawalTxId: Schema.BigIntFromString, refundTxId: Schema.BigIntFromString }),
  columns: (items) => {
    const rows = items.map((i) => i.row)
    return [numberArray(rows.map((r) => r.withdrawalTxId)), numberArray(rows.map((r) => r.refundTxId))]
  }
}

export interface PaymentRefundSettle {
  readonly txId: bigint
  /** 8 Finished, 16 Failed; from Pending only (LC409 otherwise). */
  readonly stateCode: 8 | 16
}

export const PaymentRefundSettles: RowKind<PaymentRefundSettle> = {
  name: "payment_refund_settle",
  rank: 36,
  schema: Schema.Struct({ txId: Schema.BigIntFromString, stateCode: Schema.Literals([8, 16]) }),
  columns: (items) => {
    const rows = items.map((i) => i.row)
    return [numberArray(rows.map((r) => r.txId)), numberArray(rows.map((r) => r.stateCode))]
  }
}
