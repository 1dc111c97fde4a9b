/**
 * Ledger transaction shapes (CONTRACT C10, C11): transaction types and states, history and journal
 * rows, the two-step CreateTransactOut, internal_transfer, feeds and events.
 */
import { Schema } from "effect"
import {
  ConfirmationExpired,
  ConfirmationFailed,
  ExternalIdConflict,
  InvalidRequest,
  TransactionNotPending
} from "./Errors.ts"
import { Cursor, Int64, Int64String, PositiveId, TxId, TxIdOut, WalletId, WalletIdOut } from "./Ids.ts"
import { PositiveAmount } from "./Money.ts"
import { BooleanQuery, CurrencyCode, NetworkType } from "./Reference.ts"

export const TxType = {
  Income: 1,
  Outcome: 2,
  CreateInvest: 7,
  CloseInvest: 8,
  EarlyCloseInvest: 9,
  PaymentInvest: 10,
  InternalTx: 11,
  InternalTxConfirm: 12,
  InvoiceTx: 13,
  InvoiceTxConfirm: 14,
  SelfWalletTransfer: 15,
  ExchangeToBroker: 16,
  ExchangeFromBroker: 17,
  DebtCharge: 18,
  Refund: 19,
  PaymentOrder: 20,
  TransferOrder: 21,
  Adjustment: 22,
  FederationCredit: 26,
  FederationTransfer: 27
} as const

/** Bit marks; Created|Confirmed is 3. */
export const TxState = { Created: 1, Confirmed: 2, Predicted: 4, Finished: 8, Canceled: 16 } as const

export const txStateName = (state: number): string => {
  if (state === 3) return "Created|Confirmed"
  for (const [name, value] of Object.entries(TxState)) if (value === state) return name
  return "Unknown"
}

/** Finished and Canceled are final; anything else is active and shows the history label Processing. */
export const isActiveState = (state: number): boolean => (state & (TxState.Finished | TxState.Canceled)) === 0

export const TxRow = Schema.Struct({
  id: Int64String,
  idUpdate: Int64String,
  typeTx: Schema.Int,
  txState: Schema.Int,
  state: Schema.String.annotate({ description: "Name of txState; active rows show Processing" }),
  walletFrom: Int64String,
  walletTo: Int64String,
  currency: Schema.String,
  amount: Schema.Number,
  fee: Schema.Number,
  tag: Schema.NullOr(Schema.String),
  dateTxUTC: Schema.String,
  currencyTo: Schema.optional(Schema.String).annotate({
    description: "Exchange transactions (typeTx 16/17): the currency received; `fee` is then in it"
  }),
  amountTo: Schema.optional(Schema.Number).annotate({
    description: "Exchange transactions: received so far, net of fee"
  }),
  tokenNetwork: Schema.optional(Int64String).annotate({
    description: "Transactions on a crypto terminal (Incomes, Outcomes, deposit refunds; C15): the terminal id"
  })
}).annotate({ identifier: "TxRow" })
export type TxRow = typeof TxRow.Type

/** get_tx_info: the row, and for a transfer code its TxCodesOut fields (`state` then names the code state, C10). */
export const TxInfo = Schema.Struct({
  ...TxRow.fields,
  stateCode: Schema.optional(Schema.Int),
  timetick: Schema.optional(Int64String),
  code: Schema.optional(Schema.NullOr(Schema.String)),
  isOwner: Schema.optional(Schema.Boolean)
}).annotate({ identifier: "TxInfo" })
export type TxInfo = typeof TxInfo.Type

export const CreateTransactOut = Schema.Struct({
  txId: TxIdOut,
  fee: Schema.Number,
  confirmationStatusCode: Schema.Literals(["NeedCodeConfirm", "NeedSign", "Confirmed", "Pending"]).annotate({
    description: "Pending: a partner transfer (C18) whose outcome on the partner is not known yet"
  }),
  confirmationCode: Schema.optional(Schema.String).annotate({
    description: "The one-time code, inline only without Require2FA"
  })
}).annotate({ identifier: "CreateTransactOut" })
export type CreateTransactOut = typeof CreateTransactOut.Type

export const InternalTransferIn = Schema.Struct({
  recipient: Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(100)),
  currency: CurrencyCode,
  amount: PositiveAmount,
  tag: Schema.optional(Schema.NullOr(Schema.String.check(Schema.isMaxLength(100)))),
  clientNonce: Schema.optional(Schema.NullOr(Int64)).annotate({
    description: "Optional; unique per wallet (10130 on reuse)"
  })
}).annotate({ identifier: "InternalTransferIn" })
export type InternalTransferIn = typeof InternalTransferIn.Type

/** The 2FA headers of two-step actions (internal_transfer, create_swap). */
export const TwoFactorHeaders = {
  "x-keytype": Schema.optional(Schema.Literals(["Fido2Key", "PassKey", "UserKey"])).annotate({
    description: "Login method: selects the confirmation channel under Require2FA"
  }),
  "x-signresult": Schema.optional(Schema.String.check(Schema.isMaxLength(200))).annotate({
    description: "base64 Ed25519 signature of the txId's decimal string (NeedSign step two)"
  })
}

/**
 * Step one of an action Require2FA makes two-step without reserving anything (C19 §4: set_security
 * off, create_tx_code 11/12, apply_code paying, pay_internal): nothing changed; the code went out as a
 * `ConfirmationCode` event whose txId is `confirmationTimetick`. Step two repeats the action with the
 * same parameters plus `confirmationTimetick` and `confirmationCode` (or X-SignResult).
 */
export const SecondFactorNeeded = Schema.Struct({
  confirmationStatusCode: Schema.Literals(["NeedCodeConfirm", "NeedSign"]),
  confirmationTimetick: TxIdOut
}).annotate({ identifier: "SecondFactorNeeded" })
export type SecondFactorNeeded = typeof SecondFactorNeeded.Type

/** What the second step of a C19 §4 action may answer besides the action's own errors. */
export const SecondFactorErrors = [
  InvalidRequest,
  ConfirmationFailed,
  ConfirmationExpired,
  TransactionNotPending,
  ExternalIdConflict
] as const

export const ConfirmQuery = {
  confirmationTimetick: Schema.optional(TxId),
  confirmationCode: Schema.optional(Schema.String.check(Schema.isMaxLength(64)))
}

export const historyLimitMax = 1000
const Limit = (max: number) =>
  Schema.NumberFromString.check(Schema.isInt(), Schema.isBetween({ minimum: 1, maximum: max }))

export const HistoryQuery = {
  limit: Schema.optional(Limit(historyLimitMax)),
  orderByUpdate: Schema.optional(BooleanQuery),
  oldestFirst: Schema.optional(BooleanQuery),
  startTick: Schema.optional(Cursor).annotate({
    description: "Inclusive lower bound (idUpdate when orderByUpdate, else id)"
  }),
  endTick: Schema.optional(Cursor).annotate({ description: "Exclusive upper bound" }),
  currency: Schema.optional(CurrencyCode),
  typeTx: Schema.optional(
    Schema.NumberFromString.check(Schema.isInt(), Schema.isBetween({ minimum: 0, maximum: 255 }))
  ),
  activeOnly: Schema.optional(BooleanQuery)
}

export const TxIdQuery = {
  id: Schema.optional(TxId),
  code: Schema.optional(Schema.String.check(Schema.isMaxLength(200)))
}

export const TxListIn = Schema.Array(TxId).check(Schema.isMaxLength(100))

/**
 * Feed filter bounds. Network types are SPEC's enum (Internal = 240 is the highest); a value past
 * them would otherwise reach SQL's `integer` and fail there (a 500, not the client's 400).
 */
export const networkTypeMax = NetworkType.Internal
export const journalNetworksMax = 64
export const journalTokenNetworksMax = 256

export const JournalQueryIn = Schema.Struct({
  since: Schema.optional(Cursor).annotate({ description: "Exclusive journal cursor; default 0" }),
  // SPEC: "Clamped into 1..1000", so an integer out of that range is clamped, not refused.
  limit: Schema.optional(Schema.Int).annotate({ description: "Clamped into 1..1000" }),
  scope: Schema.optional(Schema.Literals([0, 1, 2])).annotate({
    description:
      "0 Both, 1 Client (rows without a crypto terminal), 2 Address (rows of transactions on a crypto " +
      "terminal, unattributed included)"
  }),
  networks: Schema.optional(
    Schema.Array(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: networkTypeMax }))).check(
      Schema.isMaxLength(journalNetworksMax)
    )
  ).annotate({
    description:
      `Network types (1..${networkTypeMax}), expanded to their terminals; with tokenNetworks, either ` + `list matches`
  }),
  tokenNetworks: Schema.optional(Schema.Array(PositiveId).check(Schema.isMaxLength(journalTokenNetworksMax))).annotate({
    description: "Terminal ids"
  }),
  intern: Schema.optional(Schema.NullOr(PositiveId)).annotate({
    description: "Filters the money side by app/merchant id"
  })
}).annotate({ identifier: "JournalQuery" })

export const WaitQuery = {
  cursor: Schema.optional(Cursor),
  timeout: Schema.optional(
    Schema.NumberFromString.check(Schema.isInt(), Schema.isBetween({ minimum: 0, maximum: 3600 }))
  ).annotate({
    description: "Idle wait in seconds, default 30, capped at 45"
  })
}

export const EventsQuery = {
  cursor: Schema.optional(Cursor),
  limit: Schema.optional(Limit(1000))
}

export const EventOut = Schema.Struct({
  id: Int64String,
  kind: Schema.String,
  walletId: WalletIdOut,
  payload: Schema.Unknown,
  dateUTC: Schema.String
}).annotate({ identifier: "EventOut" })

export const RegisterKeyIn = Schema.Struct({
  walletId: WalletId,
  publicKey: Schema.String.check(Schema.isPattern(/^[A-Za-z0-9+/]{43}=$/)).annotate({
    description: "base64 of the raw 32-byte Ed25519 public key"
  })
})

export const DebtChargeIn = Schema.Struct({
  externalId: Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(100)),
  walletId: WalletId,
  currency: CurrencyCode,
  amount: PositiveAmount,
  tag: Schema.optional(Schema.NullOr(Schema.String.check(Schema.isMaxLength(100))))
}).annotate({ identifier: "DebtChargeIn" })

export const DebtChargeOut = Schema.Struct({
  txId: Schema.NullOr(TxIdOut),
  charged: Schema.Number.annotate({
    description: "What was taken: at most the free balance, never driving it negative"
  }),
  outstanding: Schema.Number.annotate({ description: "What could not be taken now" }),
  replayed: Schema.Boolean
}).annotate({ identifier: "DebtChargeOut" })
