/**
 * Federation's rows in a ledger commit (sql/migrations/0031_federation_link_commit.sql writes them): the
 * link of a partner order or of a federation_credit to the partner's order, written by the same commit
 * as its FederationCredit (CONTRACT C18), so neither exists without the other. The link's
 * (partner_id, remote_id) is unique: a commit whose link is taken already fails as a whole (Duplicate).
 */
import { Schema } from "effect"
import { numberArray, textArray } from "../ArrayLiterals.ts"
import type { LinkInsert } from "../FederationRepo.ts"
import type { RowKind } from "../Ledger.ts"

const Big = Schema.BigIntFromString
const NullText = Schema.NullOr(Schema.String)

export const FederationLinkInserts: RowKind<LinkInsert> = {
  name: "federation_link_insert",
  rank: 10,
  schema: Schema.Struct({
    txId: Big,
    partnerId: Schema.String,
    kind: Schema.Literals([1, 2, 3]),
    remoteId: NullText,
    remoteCode: NullText,
    payUrl: NullText,
    expiresAt: Schema.NullOr(Schema.DateFromString),
    walletId: Big,
    currency: Schema.String,
    amount: Big,
    fee: Big,
    profitWallet: Schema.NullOr(Big),
    tag: NullText,
    recipient: NullText
  }),
  columns: (items) => {
    const r = items.map((i) => i.row)
    return [
      numberArray(r.map((l) => l.txId)),
      textArray(r.map((l) => l.partnerId)),
      numberArray(r.map((l) => l.kind)),
      textArray(r.map((l) => l.remoteId)),
      textArray(r.map((l) => l.remoteCode)),
      textArray(r.map((l) => l.payUrl)),
      textArray(r.map((l) => (l.expiresAt === null ? null : l.expiresAt.toISOString()))),
      numberArray(r.map((l) => l.walletId)),
      textArray(r.map((l) => l.currency)),
      numberArray(r.map((l) => l.amount)),
      numberArray(r.map((l) => l.fee)),
      numberArray(r.map((l) => l.profitWallet)),
      textArray(r.map((l) => l.tag)),
      textArray(r.map((l) => l.recipient))
    ]
  }
}
