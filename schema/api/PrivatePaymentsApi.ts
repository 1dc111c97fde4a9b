/**
 * Private `/private/v1/` payment actions (service keys, CONTRACT C16 "Private payment actions"): create an
 * order for any app, read an order with its refunds and acquiring sessions, and an order's terminals.
 */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { Envelope } from "../Envelope.ts"
import { InvalidRequest, RateLimited } from "../Errors.ts"
import { AppNotFound, WebhookUrlRejected } from "../PaymentErrors.ts"
import { SetAppWebhookIn, SetAppWebhookOut } from "../Webhooks.ts"
import { CreatePaymentOrderIn, PaymentOrderDetailOut, PutOrderOut, TerminalOut } from "../Payments.ts"
import { ServiceAuth } from "../Security.ts"
import { OrderActionErrors, PaymentOrderCreationErrors } from "./PayordersApi.ts"

/** `code` or `id`, exactly one (else 10001). */
const orderRef = {
  code: Schema.optional(Schema.String.check(Schema.isMaxLength(200))),
  id: Schema.optional(Schema.String.check(Schema.isMaxLength(20)))
}

export class PrivatePaymentsApi extends HttpApiGroup.make("privatePayments")
  .add(
    HttpApiEndpoint.post("create_payment_order", "/create_payment_order", {
      payload: CreatePaymentOrderIn,
      success: Envelope(PutOrderOut),
      error: [...PaymentOrderCreationErrors, AppNotFound, RateLimited]
    }),
    HttpApiEndpoint.get("get_payment_order_info", "/get_payment_order_info", {
      query: orderRef,
      success: Envelope(PaymentOrderDetailOut),
      error: [...OrderActionErrors]
    }),
    HttpApiEndpoint.get("get_payment_terminals", "/get_payment_terminals", {
      query: { code: Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(200)) },
      success: Envelope(Schema.Array(TerminalOut)),
      error: [...OrderActionErrors]
    }),
    HttpApiEndpoint.post("set_app_webhook", "/set_app_webhook", {
      payload: SetAppWebhookIn,
      success: Envelope(SetAppWebhookOut),
      error: [InvalidRequest, AppNotFound, WebhookUrlRejected]
    }).annotateMerge(
      OpenApi.annotations({
        description:
          "An app's webhook URL (null: none) and, with rotateSecret, a new signing secret (answered once; the old one stops signing at once). C16, docs/WEBHOOKS.md."
      })
    )
  )
  .middleware(ServiceAuth)
  .prefix("/private/v1")
  .annotateMerge(
    OpenApi.annotations({
      title: "Private payments",
      description: "Service credentials: `Authorization: Bearer <key>`"
    })
  ) {}
