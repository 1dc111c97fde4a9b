/**
 * Rows of crypto payments of payment orders (sql/migrations/0022_payment_crypto.sql writes them): an
 * Income taken by an order as its payment (in the tx_list_push commit), an order's addresses detached
 * (cancel_crypto, in the order's commit) and the payer's claimed hash (confirm_crypto).
 */
import { Schema } from "effect"
import { numberArray, textArray } from "../ArrayLiterals.ts"
import type { RowKind } from "../Ledger.ts"

export interface PaymentOrderIncome {
  readonly incomeTxId: bigint
  readonly orderTxId: bigint
  readonly amount: bigint
}

export interface PaymentOrderAddressDetach {
  readonly orderTxId: bigint
}

export interface PaymentOrderAddressClaim {
  readonly orderTxId: bigint
  readonly terminalId: bigint
  readonly txHash: string
}

const Big = Schema.BigIntFromString

export const PaymentOrderIncomes: RowKind<PaymentOrderIncome> = {
  name: "payment_order_income",
  rank: 30,
  schema: Schema.Struct({ incomeTxId: Big, orderTxId: Big, amount: Big }),
  columns: (items) => {
    const r = items.map((i) => i.row)
    return [
      numberArray(r.map((o) => o.incomeTxId)),
      numberArray(r.map((o) => o.orderTxId)),
      numberArray(r.map((o) => o.amount))
    ]
  }
}

export const PaymentOrderAddressDetaches: RowKind<PaymentOrderAddressDetach> = {
  name: "payment_order_address_detach",
  rank: 30,
  schema: Schema.Struct({ orderTxId: Big }),
  columns: (items) => [numberArray(items.map((i) => i.row.orderTxId))]
}

/** Conditional on the address being attached (LC409 otherwise: cancel_crypto won). */
export const PaymentOrderAddressClaims: RowKind<PaymentOrderAddressClaim> = {
  name: "payment_order_address_claim",
  rank: 30,
  schema: Schema.Struct({ orderTxId: Big, terminalId: Big, txHash: Schema.String }),
  columns: (items) => {
    const r = items.map((i) => i.row)
    return [
      numberArray(r.map((o) => o.orderTxId)),
      numberArray(r.map((o) => o.terminalId)),
      textArray(r.map((o) => o.txHash))
    ]
  }
}
