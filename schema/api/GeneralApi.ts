/** General (session) `/core/v1/`: reference data for wallet front-ends. */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { Envelope } from "../Envelope.ts"
import { InvalidRequest, RateNotFound, TooManyDecimals, UnknownCurrency, WalletNotFound } from "../Errors.ts"
import { CurrencyOut, EstimateFeeOut, EstimateFeeQuery, WalletTerminalOut } from "../Reference.ts"
import { SessionAuth } from "../Security.ts"

export class GeneralApi extends HttpApiGroup.make("general")
  .add(
    HttpApiEndpoint.get("tokens_networks", "/tokens_networks", { success: Envelope(Schema.Array(WalletTerminalOut)) }),
    HttpApiEndpoint.get("assets", "/assets", { success: Envelope(Schema.Array(CurrencyOut)) }),
    HttpApiEndpoint.get("estimate_fee", "/estimate_fee", {
      query: EstimateFeeQuery,
      success: Envelope(EstimateFeeOut),
      error: [InvalidRequest, UnknownCurrency, TooManyDecimals, RateNotFound, WalletNotFound]
    })
  )
  .middleware(SessionAuth)
  .prefix("/core/v1")
  .annotateMerge(OpenApi.annotations({ title: "General", description: "Session: assets, terminals, fees" }))
{}
