/** Wallet (session) `/core/v1/wallet/`. */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { CancelPartnerTransferOut, PartnerNotFound, PartnerUnavailable } from "../Federation.ts"
import { CursorEnvelope, Envelope } from "../Envelope.ts"
import {
  BalanceNotEnough,
  ConfirmationExpired,
  ConfirmationFailed,
  FieldRuleViolated,
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
} from "../Errors.ts"

import { WithdrawalHandedOff } from "../CryptoErrors.ts"
import { SessionAuth } from "../Security.ts"
import {
  ConfirmQuery,
  CreateTransactOut,
  HistoryQuery,
  InternalTransferIn,
  SecondFactorErrors,
  SecondFactorNeeded,
  TxIdQuery,
  TxInfo,
  TxListIn,
  TxRow
} from "../Transfer.ts"
import { TxId } from "../Ids.ts"
import { CodeErrors } from "../Code.ts"
import { TwoFactorHeaders } from "../Transfer.ts"
import { GetBalanceOut, SetSecurityIn, UpdateSettingsIn, WalletInfo, WalletInfoOut } from "../Wallet.ts"

const TransferErrors = [
  InvalidRequest,
  BalanceNotEnough,
  NonceExists,
  SameAccounts,
  WalletBlocked,
  WalletNotFound,
  UnknownCurrency,
  TooManyDecimals,
  TransactionNotPending,
  ConfirmationFailed,
  ConfirmationExpired,
  RateLimited
]

export class WalletApi extends HttpApiGroup.make("wallet")
  .add(
    HttpApiEndpoint.get("get_info", "/get_info", { success: Envelope(WalletInfoOut), error: WalletNotFound }),
    HttpApiEndpoint.post("update_settings", "/update_settings", {
      payload: UpdateSettingsIn,
      success: Envelope(WalletInfo),
      error: [WalletNotFound, FieldRuleViolated]
    }),
    HttpApiEndpoint.get("get_balance", "/get_balance", { success: Envelope(Schema.Array(GetBalanceOut)) }),
    HttpApiEndpoint.post("set_security", "/set_security", {
      query: ConfirmQuery,
      headers: TwoFactorHeaders,
      payload: SetSecurityIn,
      success: Envelope(Schema.Union([WalletInfo, SecondFactorNeeded])),
      error: [WalletNotFound, ...SecondFactorErrors]
    }).annotateMerge(
      OpenApi.annotations({
        description:
          "Turning Require2FA on is one call. Turning it off while it is on takes two steps (C19 §4): step one answers SecondFactorNeeded, step two repeats the call with confirmationTimetick and confirmationCode (or X-SignResult)."
      })
    ),
    HttpApiEndpoint.post("internal_transfer", "/internal_transfer", {
      query: ConfirmQuery,
      headers: TwoFactorHeaders,
      payload: InternalTransferIn,
      success: Envelope(CreateTransactOut),
      error: TransferErrors
    }).annotateMerge(
      OpenApi.annotations({
        description:
          "Two-step. Step one (no query) reserves amount + fee and answers CreateTransactOut; step two repeats the call with confirmationTimetick and confirmationCode (or X-SignResult) and settles."
      })
    ),
    HttpApiEndpoint.post("cancel_tx", "/cancel_tx", {
      query: TxIdQuery,
      // A partner transfer answers its TxRow (C18: as cancel_partner_transfer); every other kind { txId, idUpdate }.
      success: Envelope(
        Schema.Union([CancelPartnerTransferOut, Schema.Struct({ txId: Schema.String, idUpdate: Schema.String })])
      ),
      error: [...CodeErrors, WithdrawalHandedOff, PartnerNotFound, PartnerUnavailable]
    }),
    HttpApiEndpoint.post("cancel_withdraw", "/cancel_withdraw", {
      query: { id: TxId },
      success: Envelope(Schema.Struct({ txId: Schema.String, idUpdate: Schema.String })),
      error: [TransactionNotFound, TransactionNotPending, WithdrawalHandedOff, RateLimited]
    }).annotateMerge(
      OpenApi.annotations({
        description: "Obsolete alias of cancel_tx for Outcome (withdrawal) transactions only.",
        deprecated: true
      })
    ),
    HttpApiEndpoint.get("get_tx_info", "/get_tx_info", {
      query: TxIdQuery,
      success: Envelope(TxInfo),
      error: [InvalidRequest, TransactionNotFound]
    }),
    HttpApiEndpoint.post("get_tx_list_info", "/get_tx_list_info", {
      payload: TxListIn,
      success: Envelope(Schema.Array(TxRow))
    }),
    HttpApiEndpoint.get("get_history_transactions", "/get_history_transactions", {
      query: HistoryQuery,
      success: CursorEnvelope(Schema.Array(TxRow))
    }).annotateMerge(
      OpenApi.annotations({
        description:
          "Gapless polling: orderByUpdate=true&oldestFirst=true, startTick inclusive, endTick exclusive and fixed for the scan; the next startTick is in `cursor`."
      })
    ),
    HttpApiEndpoint.get("get_profit_transactions", "/get_profit_transactions", {
      query: { startTick: Schema.optional(HistoryQuery.startTick), limit: HistoryQuery.limit },
      success: CursorEnvelope(Schema.Array(TxRow))
    })
  )
  .middleware(SessionAuth)
  .prefix("/core/v1/wallet")
  .annotateMerge(OpenApi.annotations({ title: "Wallet", description: "Session: the active wallet" })) {}
