/** Card acquiring shapes (CONTRACT C16 "Built-in card acquiring", pay_card, private create_acquiring_order). */
import { Schema } from "effect"
import { DecimalText, ForeignText, IsoDateTime } from "./Foreign.ts"
import { TerminalId } from "./Ids.ts"
import { CreatePaymentOrderIn, OrderInfoOut, PaymentOrderOut } from "./Payments.ts"

/** pay_card's answer. */
export const PayCardOut = Schema.Struct({
  order: OrderInfoOut,
  acquiringId: Schema.String,
  checkoutUrl: Schema.String
}).annotate({ identifier: "PayCardOut" })
export type PayCardOut = typeof PayCardOut.Type

/** create_acquiring_order: create_payment_order's body with the Card terminal (else 10303). */
export const CreateAcquiringOrderIn = Schema.Struct({
  ...CreatePaymentOrderIn.fields,
  terminalId: TerminalId
}).annotate({ identifier: "CreateAcquiringOrderIn" })
export type CreateAcquiringOrderIn = typeof CreateAcquiringOrderIn.Type

export const AcquiringOrderOut = Schema.Struct({
  order: PaymentOrderOut,
  acquiringId: Schema.String,
  checkoutUrl: Schema.String
}).annotate({ identifier: "AcquiringOrderOut" })
export type AcquiringOrderOut = typeof AcquiringOrderOut.Type

/** The acquirer webhook's answer. */
export const AcquiringWebhookOut = Schema.Struct({
  accepted: Schema.Literal(true),
  duplicate: Schema.Boolean
}).annotate({ identifier: "AcquiringWebhookOut" })

/**
 * The acquirer webhook's body (C16 "Built-in card acquiring"), decoded before anything is read or moved;
 * a body that does not decode is 400 10001 naming its field.
 */
export const AcquirerWebhookIn = Schema.Struct({
  eventId: ForeignText(200),
  acquiringId: ForeignText(200),
  status: Schema.Literals(["Approved", "Declined"]),
  amount: DecimalText,
  currency: ForeignText(20),
  occurredAt: IsoDateTime
}).annotate({ identifier: "AcquirerWebhookIn" })
export type AcquirerWebhookIn = typeof AcquirerWebhookIn.Type
