/** Investments (session) `/core/v1/invest/` and `/core/v1/invest_tx_info` (CONTRACT C17 "Session"). */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { Envelope } from "../Envelope.ts"
import { FieldRuleViolated, InvalidRequest, NotFound, TooManyItems } from "../Errors.ts"
import { EarlyCloseNotAllowed, InvestmentNotFound, InvestmentStateConflict } from "../InvestErrors.ts"
import { Int64, Int64String, WalletIdOut } from "../Ids.ts"
import { SessionAuth } from "../Security.ts"

export const TransitionOut = Schema.Struct({ state: Schema.Int, stateName: Schema.String, at: Schema.String })

/** C17 "InvestmentOut": served fields kept, new ones added; times ISO 8601 UTC with milliseconds. */
export const InvestmentOut = Schema.Struct({
  timetick: Int64String,
  walletId: WalletIdOut,
  currencyId: Schema.String,
  investmentType: Schema.Int,
  investmentTypeName: Schema.String,
  state: Schema.Int,
  stateName: Schema.String,
  flags: Schema.Int,
  amount: Schema.Number,
  amountMinor: Schema.String,
  profit: Schema.Number,
  profitMinor: Schema.String,
  ratePct: Schema.String,
  dateEnd: Schema.String,
  tag: Schema.NullOr(Schema.String),
  createdAt: Schema.String,
  activatedAt: Schema.NullOr(Schema.String),
  closedAt: Schema.NullOr(Schema.String),
  penaltyMinor: Schema.String,
  transitions: Schema.optional(Schema.Array(TransitionOut)),
  ownerId: Schema.optional(Schema.NullOr(Schema.String))
}).annotate({ identifier: "InvestmentOut" })
export type InvestmentOut = typeof InvestmentOut.Type

export const InvestTxOut = Schema.Struct({
  txId: Int64String,
  typeTx: Schema.Int,
  txState: Schema.Int,
  investmentId: Int64String,
  currency: Schema.String,
  amount: Schema.Number,
  amountMinor: Schema.String,
  fee: Schema.Number,
  feeMinor: Schema.String,
  dateTxUTC: Schema.String,
  investment: InvestmentOut
}).annotate({ identifier: "InvestTxOut" })
export type InvestTxOut = typeof InvestTxOut.Type

const DateText = Schema.String.check(Schema.isPattern(/^[0-9]{4}-[0-9]{2}-[0-9]{2}$/)).annotate({
  description: "UTC date YYYY-MM-DD"
})

export class InvestApi extends HttpApiGroup.make("invest")
  .add(
    HttpApiEndpoint.get("get_investments", "/invest/get_investments", {
      query: {
        start: Schema.optional(DateText),
        end: Schema.optional(DateText),
        investment_types: Schema.optional(Schema.Array(Schema.Literals(["None", "interest_on_balance"])))
      },
      success: Envelope(Schema.Array(InvestmentOut)),
      error: FieldRuleViolated
    }),
    HttpApiEndpoint.get("get_investment_info", "/invest/get_investment_info", {
      query: { investment_id: Int64 },
      success: Envelope(InvestmentOut),
      error: [NotFound, InvestmentNotFound]
    }),
    HttpApiEndpoint.post("return_investment", "/invest/return_investment", {
      query: { investment: Int64 },
      success: Envelope(InvestmentOut),
      error: [InvestmentNotFound, InvestmentStateConflict, EarlyCloseNotAllowed]
    }),
    HttpApiEndpoint.post("invest_tx_info", "/invest_tx_info", {
      payload: Schema.Array(Schema.String),
      success: Envelope(Schema.Array(InvestTxOut)),
      error: [InvalidRequest, TooManyItems]
    })
  )
  .middleware(SessionAuth)
  .prefix("/core/v1")
  .annotateMerge(OpenApi.annotations({ title: "Investments", description: "Session: the wallet's investments" })) {}
