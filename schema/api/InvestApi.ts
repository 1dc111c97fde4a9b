/** Investments (session) `/core/v1/invest/`. The read side; creation and lifecycle arrive with the investments issue. */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { Envelope } from "../Envelope.ts"
import { FieldRuleViolated, NotFound } from "../Errors.ts"
import { Int64, Int64String, WalletIdOut } from "../Ids.ts"
import { SessionAuth } from "../Security.ts"

export const InvestmentOut = Schema.Struct({
  timetick: Int64String,
  walletId: WalletIdOut,
  currencyId: Schema.String,
  investmentType: Schema.Int,
  state: Schema.Int,
  flags: Schema.Int,
  amount: Schema.Number,
  profit: Schema.Number,
  ratePct: Schema.String,
  dateEnd: Schema.String,
  tag: Schema.NullOr(Schema.String)
}).annotate({ identifier: "InvestmentOut" })
export type InvestmentOut = typeof InvestmentOut.Type

const DateText = Schema.String.check(Schema.isPattern(/^[0-9]{4}-[0-9]{2}-[0-9]{2}$/)).annotate({
  description: "UTC date YYYY-MM-DD"
})

export class InvestApi extends HttpApiGroup.make("invest")
  .add(
    HttpApiEndpoint.get("get_investments", "/get_investments", {
      query: {
        start: Schema.optional(DateText),
        end: Schema.optional(DateText),
        investment_types: Schema.optional(Schema.Array(Schema.Literals(["None", "interest_on_balance"])))
      },
      success: Envelope(Schema.Array(InvestmentOut)),
      error: FieldRuleViolated
    }),
    HttpApiEndpoint.get("get_investment_info", "/get_investment_info", {
      query: { investment_id: Int64 },
      success: Envelope(InvestmentOut),
      error: NotFound
    })
  )
  .middleware(SessionAuth)
  .prefix("/core/v1/invest")
  .annotateMerge(OpenApi.annotations({ title: "Investments", description: "Session: the wallet's investments" })) {}
