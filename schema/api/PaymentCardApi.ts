/**
 * Card payments (CONTRACT C16 "Built-in card acquiring"): the gate's pay_card, and the private
 * create_acquiring_order and pending_acquiring_txs. The acquirer's webhook (POST
 * /payment/v1/acquiring_webhook) needs the raw body for its signature and is a plain route
 * (src/http/payments/acquirer/AcquiringWebhookRoute.ts), as are the sandbox's checkout pages.
 */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { AcquiringOrderOut, CreateAcquiringOrderIn, PayCardOut } from "../Acquiring.ts"
import { Envelope } from "../Envelope.ts"
import { InvalidRequest, RateLimited } from "../Errors.ts"
import { TerminalId } from "../Ids.ts"
import { AppNotFound } from "../PaymentErrors.ts"
import { AcquiringSessionOut } from "../Payments.ts"
import { SandboxOff } from "../RailErrors.ts"
import { ServiceAuth } from "../Security.ts"
import { OrderActionErrors, PaymentOrderCreationErrors } from "./PayordersApi.ts"

const gateQuery = { code: Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(200)) }

export class PaymentCardApi extends HttpApiGroup.make("paymentCard")
  .add(
    HttpApiEndpoint.post("pay_card", "/pay_card", {
      query: gateQuery,
      payload: Schema.Struct({ tokenNetworkId: TerminalId }),
      success: Envelope(PayCardOut),
      error: [...OrderActionErrors, SandboxOff]
    })
  )
  .prefix("/payment/v1")
  .annotateMerge(
    OpenApi.annotations({
      title: "Payment gate (card)",
      description: "Open (or reuse) the order's card acquiring session; the payer goes to checkoutUrl"
    })
  ) {}

export class PrivateAcquiringApi extends HttpApiGroup.make("privateAcquiring")
  .add(
    HttpApiEndpoint.post("create_acquiring_order", "/create_acquiring_order", {
      payload: CreateAcquiringOrderIn,
      success: Envelope(AcquiringOrderOut),
      error: [...PaymentOrderCreationErrors, ...OrderActionErrors, AppNotFound, RateLimited, SandboxOff]
    }),
    HttpApiEndpoint.get("pending_acquiring_txs", "/pending_acquiring_txs", {
      query: { limit: Schema.optional(Schema.String.check(Schema.isMaxLength(20))) },
      success: Envelope(Schema.Array(AcquiringSessionOut)),
      error: [InvalidRequest]
    })
  )
  .middleware(ServiceAuth)
  .prefix("/private/v1")
  .annotateMerge(
    OpenApi.annotations({
      title: "Private card acquiring",
      description: "Service credentials: `Authorization: Bearer <key>`"
    })
  ) {}
