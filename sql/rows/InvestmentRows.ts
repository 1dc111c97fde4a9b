/**
 * The investments' rows in a ledger commit (sql/migrations/0027_investments.sql writes them): an
 * investment created with its CreateInvest transaction, and an investment's new state, conditional on
 * the state and version it leaves (a commit that finds the row moved on fails with LC409, changes nothing).
 */
import { Schema } from "effect"
import { numberArray, textArray } from "../ArrayLiterals.ts"
import type { RowKind } from "../Ledger.ts"

export interface InvestmentInsert {
  readonly timetick: bigint
  readonly walletId: bigint
  readonly currency: string
  readonly investmentType: number
  readonly state: number
  readonly flags: number
  readonly amount: bigint
  /** The baseline profit given at creation (also kept as `baseline`). */
  readonly profit: bigint
  readonly ratePct: string
  readonly dateEnd: Date
  readonly tag: string | null
  readonly createdAt: Date
  readonly activatedAt: Date | null
  readonly ownerId: string | null
  readonly externalId: string | null
  readonly requestHash: string | null
  /** JSON text: the transitions entered at creation. */
  readonly transitions: string
  readonly dueAt: Date | null
  /** INVEST_MAX_OPEN_PER_WALLET, checked by the commit under the wallet's lock (null: no cap). */
  readonly openMax: number | null
}

export interface InvestmentUpdate {
  readonly timetick: bigint
  readonly fromState: number
  readonly fromVersion: bigint
  readonly state: number
  readonly profit: bigint
  readonly penalty: bigint
  readonly activatedAt: Date | null
  readonly closedAt: Date | null
  readonly dueAt: Date | null
  /** JSON text: the transitions this commit enters (appended). */
  readonly added: string
  /** The close transaction opened by this commit (null: keep the stored one). */
  readonly closeTx: bigint | null
  /** The PaymentInvest committed with this change (null: none). */
  readonly creditTx: bigint | null
}

const Big = Schema.BigIntFromString
const NullDate = Schema.NullOr(Schema.DateFromString)
const NullText = Schema.NullOr(Schema.String)
const iso = (d: Date | null): string | null => (d === null ? null : d.toISOString())

export const InvestmentInserts: RowKind<InvestmentInsert> = {
  name: "investment_insert",
  rank: 10,
  schema: Schema.Struct({
    timetick: Big,
    walletId: Big,
    currency: Schema.String,
    investmentType: Schema.Number,
    state: Schema.Number,
    flags: Schema.Number,
    amount: Big,
    profit: Big,
    ratePct: Schema.String,
    dateEnd: Schema.DateFromString,
    tag: NullText,
    createdAt: Schema.DateFromString,
    activatedAt: NullDate,
    ownerId: NullText,
    externalId: NullText,
    requestHash: NullText,
    transitions: Schema.String,
    dueAt: NullDate,
    openMax: Schema.NullOr(Schema.Number)
  }),
  columns: (items) => {
    const r = items.map((i) => i.row)
    return [
      numberArray(r.map((o) => o.timetick)),
      numberArray(r.map((o) => o.walletId)),
      textArray(r.map((o) => o.currency)),
      numberArray(r.map((o) => o.investmentType)),
      numberArray(r.map((o) => o.state)),
      numberArray(r.map((o) => o.flags)),
      numberArray(r.map((o) => o.amount)),
      numberArray(r.map((o) => o.profit)),
      textArray(r.map((o) => o.ratePct)),
      textArray(r.map((o) => o.dateEnd.toISOString())),
      textArray(r.map((o) => o.tag)),
      textArray(r.map((o) => o.createdAt.toISOString())),
      textArray(r.map((o) => iso(o.activatedAt))),
      textArray(r.map((o) => o.ownerId)),
      textArray(r.map((o) => o.externalId)),
      textArray(r.map((o) => o.requestHash)),
      textArray(r.map((o) => o.transitions)),
      textArray(r.map((o) => iso(o.dueAt))),
      numberArray(r.map((o) => o.openMax))
    ]
  }
}

export const InvestmentUpdates: RowKind<InvestmentUpdate> = {
  name: "investment_update",
  rank: 20,
  schema: Schema.Struct({
    timetick: Big,
    fromState: Schema.Number,
    fromVersion: Big,
    state: Schema.Number,
    profit: Big,
    penalty: Big,
    activatedAt: NullDate,
    closedAt: NullDate,
    dueAt: NullDate,
    added: Schema.String,
    closeTx: Schema.NullOr(Big),
    creditTx: Schema.NullOr(Big)
  }),
  columns: (items) => {
    const r = items.map((i) => i.row)
    return [
      numberArray(r.map((o) => o.timetick)),
      numberArray(r.map((o) => o.fromState)),
      numberArray(r.map((o) => o.fromVersion)),
      numberArray(r.map((o) => o.state)),
      numberArray(r.map((o) => o.profit)),
      numberArray(r.map((o) => o.penalty)),
      textArray(r.map((o) => iso(o.activatedAt))),
      textArray(r.map((o) => iso(o.closedAt))),
      textArray(r.map((o) => iso(o.dueAt))),
      textArray(r.map((o) => o.added)),
      numberArray(r.map((o) => o.closeTx)),
      numberArray(r.map((o) => o.creditTx))
    ]
  }
}
