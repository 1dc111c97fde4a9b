/** Market (session) `/core/v1/market/`. */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { Envelope } from "../Envelope.ts"
import { UnknownCurrency } from "../Errors.ts"
import { CurrencyCode, RateOut } from "../Reference.ts"
import { SessionAuth } from "../Security.ts"

export class MarketApi extends HttpApiGroup.make("market")
  .add(
    HttpApiEndpoint.get("get_rates", "/get_rates", {
      query: {
        to: Schema.optional(CurrencyCode).annotate({ description: "Target currency, default EUR" }),
        from: Schema.optional(Schema.Array(CurrencyCode).check(Schema.isMaxLength(100))).annotate({
          description: "Repeated source currencies; omitted means all available"
        })
      },
      success: Envelope(Schema.Array(RateOut)),
      error: UnknownCurrency
    })
  )
  .middleware(SessionAuth)
  .prefix("/core/v1/market")
  .annotateMerge(OpenApi.annotations({ title: "Market", description: "Session: rates (the exchange arrives with its issue)" }))
{}
