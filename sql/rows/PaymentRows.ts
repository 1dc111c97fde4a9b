/**
 * The payment orders' rows in a ledger commit (sql/migrations/0016_payment_orders.sql writes them): an
 * order created with its transaction, and an order's new state, conditional on the state it leaves (a
 * commit that finds the order moved on fails with LC409 and changes nothing).
 */
import { Schema } from "effect"
import { byteaArray, numberArray, textArray } from "../ArrayLiterals.ts"
import type { RowKind } from "../Ledger.ts"

export interface PaymentOrderInsert {
  readonly txId: bigint
  readonly appId: bigint
  readonly externalId: string
  readonly requestHash: string
  readonly kind: "PaymentOrder" | "TransferOrder"
  readonly codeHash: Uint8Array
  /** In clear for a PaymentOrder (payUrl); null for a TransferOrder (only hashed). */
  readonly code: string | null
  readonly merchantWallet: bigint
  readonly stateCode: number
  readonly currency: string
  readonly orderAmount: bigint
  readonly fee: bigint
  readonly profitWallet: bigint
  readonly expiresAt: Date
  readonly description: string | null
  readonly returnUrlSuccess: string | null
  readonly returnUrlFail: string | null
  readonly webhookUrl: string | null
}

/**
 * The order's state after an operation (every OrderState field); applied only while the order is still
 * in `fromState` at `fromVersion` (0017: the version counts the row's updates).
 */
export interface PaymentOrderUpdate {
  readonly txId: bigint
  readonly fromState: number
  readonly fromVersion: bigint
  readonly stateCode: number
  readonly terminalId: bigint | null
  readonly method: string | null
  readonly payCurrency: string | null
  readonly payAmount: bigint | null
  readonly fee: bigint
  readonly profitWallet: bigint
  readonly rate: string | null
  readonly spreadPct: string | null
  readonly paidAmount: bigint
  readonly refundedAmount: bigint
  readonly payerWalletId: bigint | null
  readonly pendingRefunds: bigint
  readonly refundCount: number
  readonly cardSessionPending: boolean
  readonly incomeSeen: bigint
  readonly incomeFinal: bigint
  /** A payout's recipient as given to pay_transfer (null: keep the stored one). */
  readonly recipient: string | null
  /** A payout's meta as JSON text (null: keep the stored one). */
  readonly meta: string | null
}

const Big = Schema.BigIntFromString
const NullText = Schema.NullOr(Schema.String)

export const PaymentOrderInserts: RowKind<PaymentOrderInsert> = {
  name: "payment_order_insert",
  rank: 10,
  schema: Schema.Struct({
    txId: Big,
    appId: Big,
    externalId: Schema.String,
    requestHash: Schema.String,
    kind: Schema.Literals(["PaymentOrder", "TransferOrder"]),
    codeHash: Schema.Uint8ArrayFromHex,
    code: NullText,
    merchantWallet: Big,
    stateCode: Schema.Number,
    currency: Schema.String,
    orderAmount: Big,
    fee: Big,
    profitWallet: Big,
    expiresAt: Schema.DateFromString,
    description: NullText,
    returnUrlSuccess: NullText,
    returnUrlFail: NullText,
    webhookUrl: NullText
  }),
  columns: (items) => {
    const r = items.map((i) => i.row)
    return [
      numberArray(r.map((o) => o.txId)),
      numberArray(r.map((o) => o.appId)),
      textArray(r.map((o) => o.externalId)),
      textArray(r.map((o) => o.requestHash)),
      textArray(r.map((o) => o.kind)),
      byteaArray(r.map((o) => o.codeHash)),
      textArray(r.map((o) => o.code)),
      numberArray(r.map((o) => o.merchantWallet)),
      numberArray(r.map((o) => o.stateCode)),
      textArray(r.map((o) => o.currency)),
      numberArray(r.map((o) => o.orderAmount)),
      numberArray(r.map((o) => o.fee)),
      numberArray(r.map((o) => o.profitWallet)),
      textArray(r.map((o) => o.expiresAt.toISOString())),
      textArray(r.map((o) => o.description)),
      textArray(r.map((o) => o.returnUrlSuccess)),
      textArray(r.map((o) => o.returnUrlFail)),
      textArray(r.map((o) => o.webhookUrl))
    ]
  }
}

export const PaymentOrderUpdates: RowKind<PaymentOrderUpdate> = {
  name: "payment_order_update",
  rank: 20,
  schema: Schema.Struct({
    txId: Big,
    fromState: Schema.Number,
    stateCode: Schema.Number,
    terminalId: Schema.NullOr(Big),
    method: NullText,
    payCurrency: NullText,
    payAmount: Schema.NullOr(Big),
    fee: Big,
    profitWallet: Big,
    rate: NullText,
    spreadPct: NullText,
    paidAmount: Big,
    refundedAmount: Big,
    payerWalletId: Schema.NullOr(Big),
    fromVersion: Big,
    pendingRefunds: Big,
    refundCount: Schema.Number,
    cardSessionPending: Schema.Boolean,
    incomeSeen: Big,
    incomeFinal: Big,
    recipient: NullText,
    meta: NullText
  }),
  columns: (items) => {
    const r = items.map((i) => i.row)
    return [
      numberArray(r.map((o) => o.txId)),
      numberArray(r.map((o) => o.fromState)),
      numberArray(r.map((o) => o.stateCode)),
      numberArray(r.map((o) => o.terminalId)),
      textArray(r.map((o) => o.method)),
      textArray(r.map((o) => o.payCurrency)),
      numberArray(r.map((o) => o.payAmount)),
      numberArray(r.map((o) => o.fee)),
      numberArray(r.map((o) => o.profitWallet)),
      textArray(r.map((o) => o.rate)),
      textArray(r.map((o) => o.spreadPct)),
      numberArray(r.map((o) => o.paidAmount)),
      numberArray(r.map((o) => o.refundedAmount)),
      numberArray(r.map((o) => o.payerWalletId)),
      numberArray(r.map((o) => o.pendingRefunds)),
      numberArray(r.map((o) => o.refundCount)),
      textArray(r.map((o) => (o.cardSessionPending ? "t" : "f"))),
      numberArray(r.map((o) => o.incomeSeen)),
      numberArray(r.map((o) => o.incomeFinal)),
      textArray(r.map((o) => o.recipient)),
      textArray(r.map((o) => o.meta)),
      numberArray(r.map((o) => o.fromVersion))
    ]
  }
}
