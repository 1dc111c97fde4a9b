/**
 * A payment order's preselection (CONTRACT C16 put_payment_order `terminalId?`, `payAmount?`), written in
 * the order's Create commit after its payment_order_insert row (sql/migrations/0018_payment_presets.sql).
 */
import { Schema } from "effect"
import { numberArray, textArray } from "../ArrayLiterals.ts"
import type { RowKind } from "../Ledger.ts"

export interface PaymentOrderPreset {
  readonly txId: bigint
  readonly terminalId: bigint
  /** The terminal's currency (the order currency for the built-in internal terminal). */
  readonly payCurrency: string
  /** The fixed price in payCurrency minor units; null: the price follows the rate. */
  readonly payAmount: bigint | null
}

const Big = Schema.BigIntFromString

export const PaymentOrderPresets: RowKind<PaymentOrderPreset> = {
  name: "payment_order_preset",
  rank: 15,
  schema: Schema.Struct({
    txId: Big,
    terminalId: Big,
    payCurrency: Schema.String,
    payAmount: Schema.NullOr(Big)
  }),
  columns: (items) => {
    const r = items.map((i) => i.row)
    return [
      numberArray(r.map((o) => o.txId)),
      numberArray(r.map((o) => o.terminalId)),
      textArray(r.map((o) => o.payCurrency)),
      numberArray(r.map((o) => o.payAmount))
    ]
  }
}
