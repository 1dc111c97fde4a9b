/** Private `/private/v1/` investment actions (service keys, CONTRACT C17 "Private"); writes name their operator in X-Owner-Id. */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { Envelope } from "../Envelope.ts"
import {
  BalanceNotEnough,
  ExternalIdConflict,
  InvalidRequest,
  RateLimited,
  TooManyItems,
  UnknownCurrency,
  WalletBlocked,
  WalletNotFound
} from "../Errors.ts"
import {
  EarlyCloseNotAllowed,
  InvestmentAmountZero,
  InvestmentFlagsUnknown,
  InvestmentNotFound,
  InvestmentRateInvalid,
  InvestmentStateConflict,
  InvestmentStateNotAllowed,
  InvestmentTermInvalid,
  InvestmentTypeUnknown,
  ManagedProfitMode,
  TooManyOpenInvestments
} from "../InvestErrors.ts"
import { Int64, WalletId } from "../Ids.ts"
import { ServiceAuth } from "../Security.ts"
import { InvestmentOut } from "./InvestApi.ts"

/** Minor units: a JSON integer or a string of digits (checked by the service: 10001 naming the field). */
const MinorIn = Schema.Union([Schema.String, Schema.Number])

export const CreateInvestmentIn = Schema.Struct({
  walletId: WalletId,
  currencyId: Schema.String,
  investmentType: Schema.Int,
  state: Schema.Int,
  flags: Schema.Int,
  amount: MinorIn,
  profit: Schema.optional(MinorIn),
  ratePct: Schema.Union([Schema.String, Schema.Number]),
  dateEnd: Schema.String,
  tag: Schema.optional(Schema.NullOr(Schema.String.check(Schema.isMaxLength(100)))),
  externalId: Schema.optional(Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(100)))
}).annotate({ identifier: "CreateInvestmentIn" })
export type CreateInvestmentIn = typeof CreateInvestmentIn.Type

export const ProfitItemIn = Schema.Struct({ timetick: Int64, profit: MinorIn })
export type ProfitItemIn = typeof ProfitItemIn.Type

export const ProfitItemOut = Schema.Struct({
  timetick: Schema.String,
  profitMinor: Schema.NullOr(Schema.String),
  creditedMinor: Schema.String,
  txId: Schema.NullOr(Schema.String),
  error: Schema.NullOr(Schema.Struct({ code: Schema.Int, message: Schema.String }))
}).annotate({ identifier: "ProfitItemOut" })
export type ProfitItemOut = typeof ProfitItemOut.Type

/** X-Owner-Id: the acting operator (checked by the service: 1–64 printable ASCII, else 10001). */
const OwnerHeader = { "x-owner-id": Schema.optional(Schema.String) }

export class PrivateInvestApi extends HttpApiGroup.make("privateInvest")
  .add(
    HttpApiEndpoint.post("create_investment", "/create_investment", {
      headers: OwnerHeader,
      payload: CreateInvestmentIn,
      success: Envelope(Schema.String),
      error: [
        InvalidRequest,
        WalletNotFound,
        WalletBlocked,
        UnknownCurrency,
        InvestmentTypeUnknown,
        InvestmentStateNotAllowed,
        InvestmentFlagsUnknown,
        InvestmentAmountZero,
        InvestmentRateInvalid,
        InvestmentTermInvalid,
        TooManyOpenInvestments,
        BalanceNotEnough,
        ExternalIdConflict,
        RateLimited
      ]
    }),
    HttpApiEndpoint.post("activate_investment", "/activate_investment", {
      headers: OwnerHeader,
      payload: Schema.Struct({ timetick: Int64 }),
      success: Envelope(InvestmentOut),
      error: [InvalidRequest, InvestmentNotFound, InvestmentStateConflict, EarlyCloseNotAllowed]
    }),
    HttpApiEndpoint.post("set_profits_for_investments", "/set_profits_for_investments", {
      headers: OwnerHeader,
      payload: Schema.Array(ProfitItemIn),
      success: Envelope(Schema.Array(ProfitItemOut)),
      error: [InvalidRequest, TooManyItems, ManagedProfitMode]
    }),
    HttpApiEndpoint.get("get_investment", "/get_investment", {
      query: { timetick: Int64 },
      success: Envelope(InvestmentOut),
      error: InvestmentNotFound
    })
  )
  .middleware(ServiceAuth)
  .prefix("/private/v1")
  .annotateMerge(
    OpenApi.annotations({
      title: "Private investments",
      description: "Service credentials: `Authorization: Bearer <key>`"
    })
  ) {}
