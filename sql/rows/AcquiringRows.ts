/**
 * Rows of card acquiring sessions in a ledger commit (sql/migrations/0025_card_acquiring.sql writes them):
 * a session opened Pending by pay_card's commit, and a session decided (Approved / Declined / Expired)
 * in the commit of the order's card outcome, conditional on the session still being Pending (LC409
 * otherwise, which undoes the whole commit: a card payment settles exactly once).
 */
import { Schema } from "effect"
import { numberArray, textArray } from "../ArrayLiterals.ts"
import type { RowKind } from "../Ledger.ts"

export interface AcquiringSessionInsert {
  readonly acquiringId: string
  readonly orderTxId: bigint
  readonly appId: bigint
  readonly terminalId: bigint
  /** totalToPay in minor units of `currency` (the order's payCurrency). */
  readonly amount: bigint
  readonly currency: string
}

export const AcquiringSessionInserts: RowKind<AcquiringSessionInsert> = {
  name: "acquiring_session_insert",
  // After the order's update (payment_order_update, rank 20).
  rank: 40,
  schema: Schema.Struct({
    acquiringId: Schema.String,
    orderTxId: Schema.BigIntFromString,
    appId: Schema.BigIntFromString,
    terminalId: Schema.BigIntFromString,
    amount: Schema.BigIntFromString,
    currency: Schema.String
  }),
  columns: (items) => {
    const r = items.map((i) => i.row)
    return [
      textArray(r.map((s) => s.acquiringId)),
      numberArray(r.map((s) => s.orderTxId)),
      numberArray(r.map((s) => s.appId)),
      numberArray(r.map((s) => s.terminalId)),
      numberArray(r.map((s) => s.amount)),
      textArray(r.map((s) => s.currency))
    ]
  }
}

export type SessionOutcome = "Approved" | "Declined" | "Expired"

export interface AcquiringSessionDecide {
  readonly acquiringId: string
  readonly orderTxId: bigint
  readonly status: SessionOutcome
  /** The provider's event that decided it (webhook eventId); null: reconciliation or expiry. */
  readonly eventId: string | null
}

export const AcquiringSessionDecides: RowKind<AcquiringSessionDecide> = {
  name: "acquiring_session_decide",
  rank: 41,
  schema: Schema.Struct({
    acquiringId: Schema.String,
    orderTxId: Schema.BigIntFromString,
    status: Schema.Literals(["Approved", "Declined", "Expired"]),
    eventId: Schema.NullOr(Schema.String)
  }),
  columns: (items) => {
    const r = items.map((i) => i.row)
    return [
      textArray(r.map((s) => s.acquiringId)),
      numberArray(r.map((s) => s.orderTxId)),
      textArray(r.map((s) => s.status)),
      textArray(r.map((s) => s.eventId))
    ]
  }
}
