/** General (session) `/core/v1/`: reference data for wallet front-ends. */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { Envelope } from "../Envelope.ts"
import { ApplyCodeOut, ApplyCodeQuery, CodeErrors, CodeQuery, CreateTxCodeIn, TxCodesOut } from "../Code.ts"
import {
  BalanceNotEnough,
  CurrencyNotEnabled,
  InvalidAmount,
  RoomNotFound,
  TooManyItems,
  InvalidRequest,
  NonceExists,
  RateLimited,
  RateNotFound,
  SameAccounts,
  TooManyDecimals,
  TransactionNotFound,
  TransactionNotPending,
  UnknownCurrency,
  WalletBlocked,
  WalletNotFound,
  WrongSide
} from "../Errors.ts"
import { CandleOut, CandlesQuery, OrderTxInfoOut } from "../Exchange.ts"
import { Int64String } from "../Ids.ts"
import { CurrencyOut, EstimateFeeOut, EstimateFeeQuery, WalletTerminalOut } from "../Reference.ts"
import { SessionAuth } from "../Security.ts"
import { ConfirmQuery, SecondFactorErrors, SecondFactorNeeded, TwoFactorHeaders } from "../Transfer.ts"

export class GeneralApi extends HttpApiGroup.make("general")
  .add(
    HttpApiEndpoint.get("tokens_networks", "/tokens_networks", { success: Envelope(Schema.Array(WalletTerminalOut)) }),
    HttpApiEndpoint.get("assets", "/assets", { success: Envelope(Schema.Array(CurrencyOut)) }),
    HttpApiEndpoint.post("order_tx_info", "/order_tx_info", {
      payload: Schema.Array(Int64String).check(Schema.isMaxLength(100)),
      success: Envelope(Schema.Array(OrderTxInfoOut)),
      error: TooManyItems
    }).annotateMerge(
      OpenApi.annotations({
        description: "Orders of this wallet among the ids (unknown or foreign ids are left out), with their fills"
      })
    ),
    HttpApiEndpoint.get("get_candles", "/get_candles", {
      query: CandlesQuery,
      success: Envelope(Schema.Array(CandleOut)),
      error: [UnknownCurrency, CurrencyNotEnabled, InvalidRequest, RoomNotFound]
    }).annotateMerge(
      OpenApi.annotations({
        description:
          "OHLC + volume from trades, oldest first; default range the last 100 intervals; at most 1000 candles"
      })
    ),
    HttpApiEndpoint.post("create_tx_code", "/create_tx_code", {
      query: ConfirmQuery,
      headers: TwoFactorHeaders,
      payload: CreateTxCodeIn,
      success: Envelope(Schema.Union([TxCodesOut, SecondFactorNeeded])),
      error: [...CodeErrors, ...SecondFactorErrors]
    }).annotateMerge(
      OpenApi.annotations({
        description:
          "Types 11 (code) and 12 (escrow) hold the amount (free → lock_out, 10002 when short); 13 and 14 (invoices) move nothing. The code is shown once, here. Under Require2FA, 11 and 12 take two steps (C19 §4): step one answers SecondFactorNeeded, step two repeats the call with confirmationTimetick and confirmationCode (or X-SignResult)."
      })
    ),
    HttpApiEndpoint.post("apply_code", "/apply_code", {
      query: { ...ApplyCodeQuery, ...ConfirmQuery },
      headers: TwoFactorHeaders,
      success: Envelope(Schema.Union([ApplyCodeOut, SecondFactorNeeded])),
      error: [...CodeErrors, ...SecondFactorErrors]
    }).annotateMerge(
      OpenApi.annotations({
        description:
          "Exactly one of `code` and `id`; `client_nonce` required; `amount` required for invoices (must equal theirs), optional otherwise (must equal the code's amount when given). Paying an invoice (13, 14) under Require2FA takes two steps (C19 §4); step one does not use up `client_nonce`."
      })
    ),
    HttpApiEndpoint.post("cancel_code", "/cancel_code", {
      query: CodeQuery,
      success: Envelope(Schema.Struct({ txId: Schema.String, idUpdate: Schema.String })),
      error: CodeErrors
    }).annotateMerge(
      OpenApi.annotations({ description: "Obsolete alias of wallet/cancel_tx for transfer codes.", deprecated: true })
    ),
    HttpApiEndpoint.get("estimate_fee", "/estimate_fee", {
      query: EstimateFeeQuery,
      success: Envelope(EstimateFeeOut),
      error: [InvalidRequest, UnknownCurrency, TooManyDecimals, RateNotFound, WalletNotFound]
    })
  )
  .middleware(SessionAuth)
  .prefix("/core/v1")
  .annotateMerge(OpenApi.annotations({ title: "General", description: "Session: assets, terminals, fees" })) {}
