/** Private `/private/v1/` (service bearer keys): reference data, wallet lifecycle, bootstrap (CONTRACT C3). */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { PairQuery, SwapInfoOut } from "../Exchange.ts"
import { Envelope } from "../Envelope.ts"
import {
  BaseTerminalExists,
  CurrencyNotEnabled,
  FieldRuleViolated,
  InvalidRequest,
  RateNotFound,
  TerminalNotFound,
  TerminalReadOnly,
  TooManyItems,
  UnknownCurrency,
  WalletNotFound
} from "../Errors.ts"
import { AppNotFound } from "../PaymentErrors.ts"
import { AppId, AppIdOut, WalletId } from "../Ids.ts"
import { ExecuteItemOut, ExecuteTransactionsIn, LedgerAuditOut } from "../Ledger.ts"
import {
  CurrencyCode,
  CurrencyOut,
  RateOut,
  SetRatesIn,
  SetTariffsIn,
  TariffRule,
  TerminalAdminOut,
  TerminalCreateIn,
  TerminalUpdateIn,
  WalletTerminalOut
} from "../Reference.ts"
import { ServiceAuth } from "../Security.ts"
import { CreateWalletIn, GetWalletsQuery, WalletInfo, WalletInfoIn } from "../Wallet.ts"

export const CreateSessionIn = Schema.Struct({
  walletId: WalletId,
  ttlSeconds: Schema.optional(Schema.Int.check(Schema.isBetween({ minimum: 60, maximum: 30 * 86400 })))
})
export const SessionOut = Schema.Struct({ sid: Schema.String, expiresAt: Schema.String })
export const EndSessionIn = Schema.Struct({ sid: Schema.String.check(Schema.isMaxLength(200)) })
export const CreateAppIn = Schema.Struct({
  walletId: WalletId,
  name: Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(100))
})
export const AppOut = Schema.Struct({
  appId: AppIdOut,
  pkey: Schema.String,
  webhookSecret: Schema.String.annotate({ description: "Signs this app's webhooks (C16); shown once" })
})

export class PrivateApi extends HttpApiGroup.make("private")
  .add(
    HttpApiEndpoint.get("currencys", "/currencys", { success: Envelope(Schema.Array(CurrencyOut)) }),
    HttpApiEndpoint.get("tokens_networks", "/tokens_networks", { success: Envelope(Schema.Array(WalletTerminalOut)) }),
    HttpApiEndpoint.get("get_wallets", "/get_wallets", {
      query: GetWalletsQuery,
      success: Envelope(Schema.Array(WalletInfo))
    }),
    HttpApiEndpoint.get("wallet_info_get", "/wallet_info_get", {
      query: { wallet_id: WalletId },
      success: Envelope(WalletInfo),
      error: WalletNotFound
    }),
    HttpApiEndpoint.get("get_rate", "/get_rate", {
      query: { from: CurrencyCode, to: CurrencyCode },
      success: Envelope(RateOut),
      error: [UnknownCurrency, RateNotFound]
    }),
    HttpApiEndpoint.get("get_rates", "/get_rates", { success: Envelope(Schema.Array(RateOut)) }),
    HttpApiEndpoint.get("swap_info", "/swap_info", {
      query: PairQuery,
      success: Envelope(SwapInfoOut),
      error: [UnknownCurrency, CurrencyNotEnabled, InvalidRequest, RateNotFound]
    }),
    HttpApiEndpoint.post("create_wallet", "/create_wallet", {
      payload: CreateWalletIn,
      success: Envelope(WalletInfo),
      error: FieldRuleViolated
    }),
    HttpApiEndpoint.post("update_wallet", "/update_wallet", {
      payload: WalletInfoIn,
      success: Envelope(WalletInfo),
      error: WalletNotFound
    }),
    HttpApiEndpoint.post("create_session", "/create_session", {
      payload: CreateSessionIn,
      success: Envelope(SessionOut),
      error: [WalletNotFound, FieldRuleViolated]
    }),
    HttpApiEndpoint.post("end_session", "/end_session", {
      payload: EndSessionIn,
      success: Envelope(Schema.Struct({ ended: Schema.Boolean }))
    }),
    HttpApiEndpoint.post("create_app", "/create_app", {
      payload: CreateAppIn,
      success: Envelope(AppOut),
      error: WalletNotFound
    }),
    HttpApiEndpoint.post("rotate_app_key", "/rotate_app_key", {
      payload: Schema.Struct({ appId: AppId }),
      success: Envelope(Schema.Struct({ appId: AppIdOut, pkey: Schema.String })),
      error: AppNotFound
    }).annotateMerge(
      OpenApi.annotations({
        description: "C19 §5: a new pkey for the app, shown once; the old one is refused from this commit on."
      })
    ),
    HttpApiEndpoint.post("set_app_enabled", "/set_app_enabled", {
      payload: Schema.Struct({ appId: AppId, enabled: Schema.Boolean }),
      success: Envelope(Schema.Struct({ appId: AppIdOut, enabled: Schema.Boolean })),
      error: AppNotFound
    }).annotateMerge(
      OpenApi.annotations({
        description:
          "C19 §5: a disabled app's pkey answers 403 10411; the gate answers 400 10411 to order_start and every pay_* of its orders (reads still work)."
      })
    ),
    HttpApiEndpoint.post("set_rates", "/set_rates", {
      payload: SetRatesIn,
      success: Envelope(Schema.Struct({ updated: Schema.Int })),
      error: [UnknownCurrency, FieldRuleViolated]
    }),
    HttpApiEndpoint.post("set_tariffs", "/set_tariffs", {
      payload: SetTariffsIn,
      success: Envelope(Schema.Struct({ rules: Schema.Int })),
      error: [UnknownCurrency, WalletNotFound]
    }),
    HttpApiEndpoint.get("get_tariffs", "/get_tariffs", { success: Envelope(Schema.Array(TariffRule)) }),
    HttpApiEndpoint.post("execute_transactions", "/execute_transactions", {
      payload: ExecuteTransactionsIn,
      success: Envelope(Schema.Array(ExecuteItemOut)),
      error: [InvalidRequest, TooManyItems]
    }),
    HttpApiEndpoint.get("ledger_audit", "/ledger_audit", { success: Envelope(LedgerAuditOut) }).annotate(
      OpenApi.Description,
      'Operator audit of the invariant (CONTRACT C6): per currency the sum of every bucket of every wallet, system wallets included ("0" when sound), and the count of user-wallet buckets below zero (0 when sound)'
    ),
    HttpApiEndpoint.post("add_network", "/add_network", {
      payload: TerminalCreateIn,
      success: Envelope(TerminalAdminOut),
      error: [UnknownCurrency, BaseTerminalExists, FieldRuleViolated, WalletNotFound]
    }),
    HttpApiEndpoint.post("update_network", "/update_network", {
      payload: TerminalUpdateIn,
      success: Envelope(TerminalAdminOut),
      error: [TerminalNotFound, TerminalReadOnly, WalletNotFound]
    }),
    HttpApiEndpoint.get("monitoring_stats", "/monitoring_stats", { success: Envelope(Schema.Unknown) })
  )
  .middleware(ServiceAuth)
  .prefix("/private/v1")
  .annotateMerge(
    OpenApi.annotations({ title: "Private", description: "Service credentials: `Authorization: Bearer <key>`" })
  ) {}
