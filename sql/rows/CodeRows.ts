/**
 * The transfer codes' rows in a ledger commit (sql/migrations/0012_code_rows.sql writes them): a
 * code created with its transaction, and a code's counterparty bound or unbound by a transition.
 */
import { Schema } from "effect"
import { byteaArray, numberArray, textArray } from "../ArrayLiterals.ts"
import type { RowKind } from "../Ledger.ts"

export interface CodeInsert {
  readonly txId: bigint
  readonly codeHash: Uint8Array
  readonly kind: "transfer" | "room"
  readonly creator: bigint
  readonly expiresAt: Date | null
  readonly partnerInfo: string | null
}

/** The code's bound counterparty after an operation (null unbinds). */
export interface CodeBinding {
  readonly txId: bigint
  readonly counterparty: bigint | null
}

export const CodeInserts: RowKind<CodeInsert> = {
  name: "code_insert",
  rank: 10,
  schema: Schema.Struct({
    txId: Schema.BigIntFromString,
    codeHash: Schema.Uint8ArrayFromHex,
    kind: Schema.Literals(["transfer", "room"]),
    creator: Schema.BigIntFromString,
    expiresAt: Schema.NullOr(Schema.DateFromString),
    partnerInfo: Schema.NullOr(Schema.String)
  }),
  columns: (items) => {
    const codes = items.map((i) => i.row)
    return [
      numberArray(codes.map((c) => c.txId)),
      byteaArray(codes.map((c) => c.codeHash)),
      textArray(codes.map((c) => c.kind)),
      numberArray(codes.map((c) => c.creator)),
      textArray(codes.map((c) => (c.expiresAt === null ? null : c.expiresAt.toISOString()))),
      textArray(codes.map((c) => c.partnerInfo))
    ]
  }
}

export const CodeBindings: RowKind<CodeBinding> = {
  name: "code_bind",
  rank: 20,
  schema: Schema.Struct({ txId: Schema.BigIntFromString, counterparty: Schema.NullOr(Schema.BigIntFromString) }),
  columns: (items) => [numberArray(items.map((i) => i.row.txId)), numberArray(items.map((i) => i.row.counterparty))]
}
