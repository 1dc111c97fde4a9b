/**
 * A payment order's trace (sql/migrations/0037_payment_traces.sql): the W3C traceparent of its
 * `payment.create` span, written in the order's Create commit after its payment_order_insert row, only
 * when traces are exported (src/platform/Tracing.ts).
 */
import { Schema } from "effect"
import { numberArray, textArray } from "../ArrayLiterals.ts"
import type { RowKind } from "../Ledger.ts"

export interface PaymentTrace {
  readonly orderTxId: bigint
  readonly traceParent: string
}

export const PaymentTraces: RowKind<PaymentTrace> = {
  name: "payment_trace",
  rank: 15,
  schema: Schema.Struct({ orderTxId: Schema.BigIntFromString, traceParent: Schema.String }),
  columns: (items) => {
    const r = items.map((i) => i.row)
    return [numberArray(r.map((t) => t.orderTxId)), textArray(r.map((t) => t.traceParent))]
  }
}
