/** Transfer codes (SPEC "Transfer code records"): create_tx_code, apply_code, TxCodesOut, ApplyCodeOut. */
import { Schema } from "effect"
import { Int64, Int64String } from "./Ids.ts"
import { PositiveAmount, PositiveAmountParam } from "./Money.ts"
import { CurrencyCode } from "./Reference.ts"
import {
  BalanceNotEnough,
  InvalidAmount,
  InvalidRequest,
  NonceExists,
  RateLimited,
  SameAccounts,
  TooManyDecimals,
  TransactionNotFound,
  TransactionNotPending,
  UnknownCurrency,
  WalletBlocked,
  WalletNotFound,
  WrongSide
} from "./Errors.ts"

/** Every rejection a code action may answer. */
export const CodeErrors = [
  InvalidRequest,
  SameAccounts,
  InvalidAmount,
  WrongSide,
  TransactionNotPending,
  TransactionNotFound,
  BalanceNotEnough,
  NonceExists,
  UnknownCurrency,
  TooManyDecimals,
  WalletBlocked,
  WalletNotFound,
  RateLimited
]

export const partnerInfoLengthMax = 100

export const CreateTxCodeIn = Schema.Struct({
  amount: PositiveAmount,
  currency: CurrencyCode,
  typeTx: Schema.Literals([11, 12, 13, 14]),
  timeLimit: Schema.optional(Schema.Boolean).annotate({
    description: "Embed the creation time in the code and let it expire"
  }),
  partnerInfo: Schema.optional(Schema.NullOr(Schema.String.check(Schema.isMaxLength(partnerInfoLengthMax)))),
  tag: Schema.optional(Schema.NullOr(Schema.String.check(Schema.isMaxLength(partnerInfoLengthMax))))
}).annotate({ identifier: "CreateTxCodeIn" })
export type CreateTxCodeIn = typeof CreateTxCodeIn.Type

export const TxCodesOut = Schema.Struct({
  timetick: Int64String,
  code: Schema.NullOr(Schema.String).annotate({
    description: "The bearer code; shown to the creator and to a caller who presented it"
  }),
  currency: Schema.String,
  amount: Schema.Number,
  typeTx: Schema.Int,
  stateCode: Schema.Int,
  state: Schema.String,
  isOwner: Schema.Boolean,
  dateTxUTC: Schema.String
}).annotate({ identifier: "TxCodesOut" })
export type TxCodesOut = typeof TxCodesOut.Type

export const CodeQuery = {
  code: Schema.optional(Schema.String.check(Schema.isMaxLength(200))),
  id: Schema.optional(Int64)
}

export const ApplyCodeQuery = {
  ...CodeQuery,
  amount: Schema.optional(PositiveAmountParam),
  client_nonce: Int64.annotate({ description: "Fresh per request; unique per wallet (10130 on reuse)" })
}

export const ApplyCodeOut = Schema.Struct({
  confirmationStatusCode: Schema.Literals(["Confirmed", "NeedCodeConfirm"]),
  txId: Int64String,
  result: Schema.String.annotate({ description: "Status text; for room-join codes the room key" })
}).annotate({ identifier: "ApplyCodeOut" })
export type ApplyCodeOut = typeof ApplyCodeOut.Type

/** Code enumerations (SPEC CodeStateEnum, CONTRACT C13): the wire face of a code's state. */
export const CodeType = { InternalTx: 11, InternalTxConfirm: 12, InvoiceTx: 13, InvoiceTxConfirm: 14 } as const
export type CodeType = (typeof CodeType)[keyof typeof CodeType]

export const CodeTxState = { Created: 1, Joined: 3, Predicted: 4, Finished: 8, Canceled: 16 } as const

/** CodeStateEnum (SPEC): the code's face derived from its type and transaction state. */
export const CodeStateCode = {
  Unknown: 0,
  FundsHolded: 1,
  InvoiceCreated: 2,
  NeedConfirm: 3,
  NeedCancel: 4,
  Finished: 7,
  Cancelled: 8
} as const

export const stateCodeOf = (state: { readonly typeTx: number; readonly txState: number }): number => {
  switch (state.txState) {
    case CodeTxState.Finished:
      return CodeStateCode.Finished
    case CodeTxState.Canceled:
      return CodeStateCode.Cancelled
    case CodeTxState.Joined:
      return CodeStateCode.NeedConfirm
    case CodeTxState.Created:
    case CodeTxState.Predicted:
      return state.typeTx <= CodeType.InternalTxConfirm ? CodeStateCode.FundsHolded : CodeStateCode.InvoiceCreated
    default:
      return CodeStateCode.Unknown
  }
}

export const stateNameOf = (code: number): string =>
  Object.entries(CodeStateCode).find(([, value]) => value === code)?.[0] ?? "Unknown"
