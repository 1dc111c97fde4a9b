/**
 * The payment refunds' rows in a ledger commit (sql/migrations/0019_payment_refunds.sql writes them): a
 * refund created with its own transaction (typeTx 19), in the commit that updates its order.
 */
import { Schema } from "effect"
import { numberArray, textArray } from "../ArrayLiterals.ts"
import type { RowKind } from "../Ledger.ts"

export interface PaymentRefundInsert {
  /** The refund's own transaction (typeTx 19). */
  readonly txId: bigint
  readonly orderTxId: bigint
  readonly appId: bigint
  readonly externalId: string
  readonly requestHash: string
  readonly destination: "Wallet" | "Card" | "Crypto"
  /** The order currency: amount and fee are in it. */
  readonly currency: string
  readonly amount: bigint
  readonly fee: bigint
  readonly profitWallet: bigint
  readonly payoutAmount: bigint
  readonly payoutCurrency: string
  readonly reason: string | null
  readonly refundAddress: string | null
  /** 1 Pending, 8 Finished (finished_at set), 16 Failed. */
  readonly stateCode: 1 | 8 | 16
}

const Big = Schema.BigIntFromString
const NullText = Schema.NullOr(Schema.String)

export const PaymentRefundInserts: RowKind<PaymentRefundInsert> = {
  name: "payment_refund_insert",
  rank: 30,
  schema: Schema.Struct({
    txId: Big,
    orderTxId: Big,
    appId: Big,
    externalId: Schema.String,
    requestHash: Schema.String,
    destination: Schema.Literals(["Wallet", "Card", "Crypto"]),
    currency: Schema.String,
    amount: Big,
    fee: Big,
    profitWallet: Big,
    payoutAmount: Big,
    payoutCurrency: Schema.String,
    reason: NullText,
    refundAddress: NullText,
    stateCode: Schema.Literals([1, 8, 16])
  }),
  columns: (items) => {
    const r = items.map((i) => i.row)
    return [
      numberArray(r.map((o) => o.txId)),
      numberArray(r.map((o) => o.orderTxId)),
      numberArray(r.map((o) => o.appId)),
      textArray(r.map((o) => o.externalId)),
      textArray(r.map((o) => o.requestHash)),
      textArray(r.map((o) => o.destination)),
      textArray(r.map((o) => o.currency)),
      numberArray(r.map((o) => o.amount)),
      numberArray(r.map((o) => o.fee)),
      numberArray(r.map((o) => o.profitWallet)),
      numberArray(r.map((o) => o.payoutAmount)),
      textArray(r.map((o) => o.payoutCurrency)),
      textArray(r.map((o) => o.reason)),
      textArray(r.map((o) => o.refundAddress)),
      numberArray(r.map((o) => o.stateCode))
    ]
  }
}
