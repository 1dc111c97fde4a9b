/** Payment gate `/payment/v1/`: no authentication, addressed by order code (SPEC). */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { Envelope } from "../Envelope.ts"
import { TerminalIdOut } from "../Ids.ts"

export const TerminalOut = Schema.Struct({
  id: TerminalIdOut,
  displayName: Schema.String,
  iconCode: Schema.NullOr(Schema.String),
  currency: Schema.String,
  typeNetwork: Schema.Int,
  feeFixed: Schema.Number,
  feePercent: Schema.Number,
  minAmount: Schema.NullOr(Schema.Number),
  maxAmount: Schema.NullOr(Schema.Number),
  available: Schema.Boolean,
  sameAsOrderCurrency: Schema.Boolean,
  requiresAuth: Schema.Boolean
}).annotate({ identifier: "TerminalOut" })
export type TerminalOut = typeof TerminalOut.Type

export class PaymentApi extends HttpApiGroup.make("payment")
  .add(
    HttpApiEndpoint.get("get_terminals", "/get_terminals", {
      query: {
        currency: Schema.optional(Schema.String.check(Schema.isMaxLength(12))).annotate({
          description: "Order currency, for sameAsOrderCurrency"
        })
      },
      success: Envelope(Schema.Array(TerminalOut))
    })
  )
  .prefix("/payment/v1")
  .annotateMerge(
    OpenApi.annotations({ title: "Payment gate", description: "Public payment gate, addressed by order code" })
  ) {}
