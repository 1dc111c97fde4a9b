/**
 * Withdrawals and the signer's queue (CONTRACT C15 "Withdrawals"): create_withdraw (two-step as
 * internal_transfer), list_txs_to_send and tx_send_report.
 */
import { Schema } from "effect"
import { Cursor, Int64, TerminalId, TerminalIdOut, TxId, TxIdOut } from "./Ids.ts"
import { decimalInput } from "./Money.ts"
import { CreateTransactOut } from "./Transfer.ts"

export const memoLengthMax = 128
export const sendMessageLengthMax = 500
export const signerLimitMax = 1000
export const signerLimitDefault = 100

export const CreateWithdrawIn = Schema.Struct({
  tokenNetwork: TerminalId.annotate({ description: "The terminal's id" }),
  address: Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(200)),
  // Zero passes the decoder so that the rule "amount > 0" is checked in C15's order (10001 there).
  amount: decimalInput({ allowZero: true, fractionDigitsMax: 18, description: "Amount to send, in the asset" }),
  memo: Schema.optional(Schema.NullOr(Schema.String.check(Schema.isMaxLength(memoLengthMax)))).annotate({
    description: "Only on memo networks (Solana, Ton)"
  }),
  tag: Schema.optional(Schema.NullOr(Schema.String.check(Schema.isMaxLength(100)))),
  clientNonce: Schema.optional(Schema.NullOr(Int64)),
  requireClientAssetSource: Schema.optional(Schema.NullOr(Schema.Boolean)),
  sourceAddress: Schema.optional(Schema.NullOr(Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(200))))
}).annotate({ identifier: "CreateWithdrawIn" })
export type CreateWithdrawIn = typeof CreateWithdrawIn.Type

export const CreateWithdrawOut = Schema.Struct({
  ...CreateTransactOut.fields,
  networkFee: Schema.Number.annotate({ description: "The terminal's network fee, part of `fee`" })
}).annotate({ identifier: "CreateWithdrawOut" })
export type CreateWithdrawOut = typeof CreateWithdrawOut.Type

const Limit = Schema.NumberFromString.check(
  Schema.isInt(),
  Schema.isBetween({ minimum: 1, maximum: signerLimitMax })
).annotate({ description: `1..${signerLimitMax}, default ${signerLimitDefault}` })

export const ListTxsToSendQuery = {
  tokenNetwork: Schema.optional(TerminalId).annotate({ description: "One terminal; absent: all" }),
  cursor: Schema.optional(Cursor).annotate({ description: "Exclusive queue tick, default 0" }),
  limit: Schema.optional(Limit),
  timeout: Schema.optional(
    Schema.NumberFromString.check(Schema.isInt(), Schema.isBetween({ minimum: 0, maximum: 3600 }))
  ).annotate({ description: "Long-poll seconds (capped at 45); absent or 0: answer at once" })
}

export const TxToSend = Schema.Struct({
  txId: TxIdOut,
  kind: Schema.Literals(["Withdrawal", "Refund"]),
  tokenNetwork: TerminalIdOut,
  typeNetwork: Schema.Int,
  typeContract: Schema.Int,
  currency: Schema.String,
  addressContract: Schema.NullOr(Schema.String),
  toAddress: Schema.String,
  memo: Schema.NullOr(Schema.String),
  amount: Schema.String.annotate({ description: "Exact decimal to send, in the asset" }),
  sourceAddress: Schema.NullOr(Schema.String),
  sourceDerivationIndex: Schema.NullOr(Schema.Int),
  queueTick: Schema.String
}).annotate({ identifier: "TxToSend" })
export type TxToSend = typeof TxToSend.Type

export const TxSendReportIn = Schema.Struct({
  txId: TxId,
  result: Schema.Literals(["broadcast", "failed"]),
  txHash: Schema.optional(
    Schema.NullOr(
      Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(128), Schema.isPattern(/^[0-9A-Za-z]+$/))
    )
  ),
  message: Schema.optional(Schema.NullOr(Schema.String.check(Schema.isMaxLength(sendMessageLengthMax))))
}).annotate({ identifier: "TxSendReportIn" })
export type TxSendReportIn = typeof TxSendReportIn.Type

export const TxSendReportOut = Schema.Struct({
  txId: TxIdOut,
  stage: Schema.String,
  txState: Schema.Int,
  idUpdate: Schema.String
}).annotate({ identifier: "TxSendReportOut" })
export type TxSendReportOut = typeof TxSendReportOut.Type
