/**
 * What a federation partner sends us (CONTRACT C18 over C16), decoded with Schema before anything is read
 * from it: its webhook events ("Inbound webhook": a body that does not decode is 400 10001 naming the
 * field) and its answers to our calls (an answer that does not decode is a partner that did not answer
 * usably: 10177, and nothing moves).
 */
import { Schema } from "effect"
import { DecimalText, ForeignText, IdText, IsoDateTime } from "./Foreign.ts"

/** A C16 merchant webhook event `{ eventId, type, createdAt, appId, data }` as a partner posts it. */
export const FederationWebhookIn = Schema.Struct({
  eventId: ForeignText(200),
  type: ForeignText(100),
  createdAt: IsoDateTime,
  appId: Schema.Union([ForeignText(40), Schema.Int]),
  data: Schema.Record(Schema.String, Schema.Unknown)
}).annotate({ identifier: "FederationWebhookIn" })
export type FederationWebhookIn = typeof FederationWebhookIn.Type

/**
 * A `PaymentOrder.*` / `TransferOrder.*` event's data as far as it is read: which order it names (our
 * externalId; the partner's id only as a hint). Nothing else of it is trusted: the order is read back.
 */
export const PartnerOrderEventData = Schema.Struct({
  externalId: Schema.optionalKey(Schema.NullOr(Schema.String)),
  id: Schema.optionalKey(IdText)
}).annotate({ identifier: "PartnerOrderEventData" })

/** A `Chat.Message` event's data. */
export const ChatMessageData = Schema.Struct({
  from: ForeignText(100),
  text: ForeignText(4000)
}).annotate({ identifier: "ChatMessageData" })

/** A partner's error envelope (C16): its code and message, carried into our 10176. */
export const PartnerErrorEnvelope = Schema.Struct({
  error: Schema.Struct({ code: Schema.Int, message: Schema.optionalKey(Schema.String) })
}).annotate({ identifier: "PartnerErrorEnvelope" })

/** A partner's success envelope (C16); its `result` is decoded by the call's own shape. */
export const PartnerResultEnvelope = Schema.Struct({ result: Schema.Unknown }).annotate({
  identifier: "PartnerResultEnvelope"
})

/**
 * The partner's order (C16 PaymentOrderOut: put_payment_order, put_transfer_order, get_app_payment,
 * cancel_payment_order) as far as federation reads it. `state` stays text: a state name this version does
 * not know decides nothing (Settlement's verdictOf).
 */
export const PartnerOrder = Schema.Struct({
  id: IdText,
  externalId: Schema.String,
  state: ForeignText(40),
  currency: ForeignText(20),
  orderAmount: DecimalText,
  code: Schema.NullOr(Schema.String),
  payUrl: Schema.NullOr(Schema.String),
  expiresAt: Schema.NullOr(IsoDateTime)
}).annotate({ identifier: "PartnerOrder" })
export type PartnerOrder = typeof PartnerOrder.Type

/** pay_transfer's answer (C16 OrderInfoOut): only its arrival counts, the read-back decides. */
export const PartnerPayAnswer = Schema.Record(Schema.String, Schema.Unknown).annotate({
  identifier: "PartnerPayAnswer"
})
