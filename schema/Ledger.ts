/** Ledger shapes shared by the bootstrap postings (execute_transactions) and later ledger issues. */
import { Schema } from "effect"
import { ErrorBody } from "./Envelope.ts"
import { TxIdOut, WalletId } from "./Ids.ts"
import { PositiveAmount } from "./Money.ts"
import { CurrencyCode } from "./Reference.ts"

export const executeBatchMax = 1000

export const TreasuryPostingIn = Schema.Struct({
  externalId: Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(100)),
  walletId: WalletId,
  currency: CurrencyCode,
  amount: PositiveAmount,
  direction: Schema.Literals(["credit", "debit"]),
  tag: Schema.optional(Schema.NullOr(Schema.String.check(Schema.isMaxLength(100))))
}).annotate({ identifier: "TreasuryPostingIn" })
export type TreasuryPostingIn = typeof TreasuryPostingIn.Type

export const ExecuteTransactionsIn = Schema.Array(TreasuryPostingIn).check(
  Schema.isMinLength(1),
  Schema.isMaxLength(executeBatchMax)
)

export const ExecuteItemOut = Schema.Struct({
  externalId: Schema.String,
  txId: Schema.NullOr(TxIdOut),
  replayed: Schema.Boolean.annotate({
    description: "True when this externalId was executed before and the first result is returned"
  }),
  error: Schema.NullOr(ErrorBody)
}).annotate({ identifier: "ExecuteItemOut" })
export type ExecuteItemOut = typeof ExecuteItemOut.Type

/** ledger_audit (private, operator): the invariant of CONTRACT C6 as figures. */
export const LedgerAuditOut = Schema.Struct({
  sums: Schema.Array(
    Schema.Struct({
      currency: Schema.String,
      total: Schema.String.annotate({
        description: 'Sum of all buckets of all wallets, system wallets included, as a decimal string; "0" when sound'
      })
    })
  ).annotate({ description: "One entry per catalogue currency" }),
  negativeUserBuckets: Schema.Int.annotate({ description: "Buckets of user wallets below zero; 0 when sound" }),
  orphanRows: Schema.Int.annotate({
    description:
      "Postings, confirmations and orders whose transaction is missing, orders whose wallet is " +
      "missing, transactions whose currency is missing; 0 when sound"
  })
}).annotate({ identifier: "LedgerAuditOut" })
export type LedgerAuditOut = typeof LedgerAuditOut.Type
