/** Payment gate `/payment/v1/`: no authentication, addressed by order code (SPEC). */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { Envelope } from "../Envelope.ts"
import { TerminalId } from "../Ids.ts"
import { OrderInfoOut, TerminalOut } from "../Payments.ts"
import { SessionAuth } from "../Security.ts"
import { ConfirmQuery, SecondFactorErrors, SecondFactorNeeded, TwoFactorHeaders } from "../Transfer.ts"
import { OrderActionErrors } from "./PayordersApi.ts"

export { TerminalOut }

const gateQuery = { code: Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(200)) }
const StartIn = Schema.Struct({ tokenNetworkId: TerminalId })
export const PayInternalOut = Schema.Struct({ ...OrderInfoOut.fields, replayed: Schema.Boolean }).annotate({
  identifier: "PayInternalOut"
})

export class PaymentApi extends HttpApiGroup.make("payment")
  .add(
    HttpApiEndpoint.get("get_terminals", "/get_terminals", {
      query: {
        code: Schema.optional(Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(200))).annotate({
          description: "Order code: the order's offers with quotes (C16); without it the generic list"
        }),
        currency: Schema.optional(Schema.String.check(Schema.isMaxLength(12))).annotate({
          description: "Without `code`: order currency, for sameAsOrderCurrency"
        })
      },
      success: Envelope(Schema.Array(TerminalOut)),
      error: [...OrderActionErrors]
    })
  )
  .add(
    HttpApiEndpoint.get("get_order_info", "/get_order_info", {
      query: gateQuery,
      success: Envelope(OrderInfoOut),
      error: [...OrderActionErrors]
    })
  )
  .add(
    HttpApiEndpoint.post("order_start", "/order_start", {
      query: gateQuery,
      payload: StartIn,
      success: Envelope(OrderInfoOut),
      error: [...OrderActionErrors]
    })
  )
  .add(
    HttpApiEndpoint.post("payment_order_start", "/payment_order_start", {
      query: gateQuery,
      payload: StartIn,
      success: Envelope(OrderInfoOut),
      error: [...OrderActionErrors]
    })
  )
  .prefix("/payment/v1")
  .annotateMerge(
    OpenApi.annotations({ title: "Payment gate", description: "Public payment gate, addressed by order code" })
  ) {}

/** The gate's one action that needs the payer's session (`sid`): pay from the wallet's free balance. */
export class PaymentSessionApi extends HttpApiGroup.make("paymentSession")
  .add(
    HttpApiEndpoint.post("pay_internal", "/pay_internal", {
      query: { ...gateQuery, ...ConfirmQuery },
      headers: TwoFactorHeaders,
      payload: Schema.Struct({}),
      success: Envelope(Schema.Union([PayInternalOut, SecondFactorNeeded])),
      error: [...OrderActionErrors, ...SecondFactorErrors]
    }).annotateMerge(
      OpenApi.annotations({
        description:
          "Under Require2FA two steps (C19 §4): step one answers SecondFactorNeeded, step two repeats the call with confirmationTimetick and confirmationCode (or X-SignResult)."
      })
    )
  )
  .middleware(SessionAuth)
  .prefix("/payment/v1")
  .annotateMerge(
    OpenApi.annotations({ title: "Payment gate (payer)", description: "Cookie `sid` of the paying wallet" })
  ) {}
