/**
 * A ledger operation as a message field: the schema that carries it through an actor mailbox
 * exactly (bigints as decimal strings, bytes as hex, dates as ISO strings, each feature's rows by
 * its kind's own schema). A code actor hands the operation that pays an invoice to the payer's
 * wallet actor, which alone decides the debit.
 */
import { Schema, SchemaTransformation } from "effect"
import type { KindRows, LedgerOperation } from "../Ledger.ts"
import { rowKindNamed } from "./RowKinds.ts"

const Big = Schema.BigIntFromString

const Posting = Schema.Struct({
  walletId: Big,
  currency: Schema.String,
  bucket: Schema.Literals([0, 1, 2, 3]),
  delta: Big
})

const TxRecord = Schema.Struct({
  id: Big,
  typeTx: Schema.Int,
  txState: Schema.Int,
  walletFrom: Big,
  walletTo: Big,
  currency: Schema.String,
  amount: Big,
  fee: Big,
  tag: Schema.NullOr(Schema.String),
  appId: Schema.NullOr(Big),
  externalId: Schema.NullOr(Schema.String),
  requestHash: Schema.NullOr(Schema.String),
  clientNonce: Schema.optional(Schema.NullOr(Big)),
  profitWallet: Schema.optional(Schema.NullOr(Big)),
  currencyTo: Schema.optional(Schema.NullOr(Schema.String)),
  amountTo: Schema.optional(Schema.NullOr(Big))
})

const TxTransition = Schema.Struct({
  id: Big,
  from: Schema.Int,
  to: Schema.Int,
  walletFrom: Schema.optional(Big),
  walletTo: Schema.optional(Big),
  amount: Schema.optional(Big),
  amountTo: Schema.optional(Big),
  fee: Schema.optional(Big)
})

const Confirmation = Schema.Struct({
  txId: Big,
  walletId: Big,
  channel: Schema.Literals(["Inline", "Code", "Sign"]),
  codeHash: Schema.NullOr(Schema.Uint8ArrayFromHex),
  attempts: Schema.Int,
  expiresAt: Schema.DateFromString
})

const Event = Schema.Struct({ kind: Schema.String, walletId: Big, payload: Schema.Unknown })

/** A kind travels by name; its rows by the kind's own schema. */
const Rows = Schema.Struct({ kind: Schema.String, rows: Schema.Array(Schema.Unknown) }).pipe(
  Schema.decodeTo(
    Schema.declare((u): u is KindRows => typeof u === "object" && u !== null && "kind" in u && "rows" in u),
    SchemaTransformation.transform({
      decode: (data): KindRows => {
        const kind = rowKindNamed(data.kind)
        return { kind, rows: data.rows.map((row) => Schema.decodeUnknownSync(kind.schema)(row)) }
      },
      encode: (rows: KindRows): { readonly kind: string; readonly rows: ReadonlyArray<unknown> } => ({
        kind: rows.kind.name,
        rows: rows.rows.map((row) => Schema.encodeSync(rows.kind.schema)(row))
      })
    })
  )
)

const fields = {
  tx: Schema.optional(TxRecord),
  transition: Schema.optional(TxTransition),
  postings: Schema.Array(Posting),
  confirmation: Schema.optional(Confirmation),
  dropConfirmation: Schema.optional(Schema.Boolean),
  events: Schema.optional(Schema.Array(Event)),
  nonce: Schema.optional(Schema.Struct({ walletId: Big, clientNonce: Big })),
  rows: Schema.optional(Schema.Array(Rows))
}

export const LedgerOperationSchema: Schema.Codec<LedgerOperation, unknown> = Schema.Struct({
  ...fields,
  extra: Schema.optional(Schema.Array(Schema.Struct(fields)))
}) as any
