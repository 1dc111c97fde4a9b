/**
 * The payment gateway's rejections (CONTRACT C16 "Errors", codes 10300-10349, the names C16 gives);
 * their codes are in the one table of schema/Errors.ts. C16 reuses 10001, 10002, 10008, 10014, 10020,
 * 10021, 10030, 10040, 10060, 10204, 10401 and 10403 with their existing tags.
 */
import { Schema } from "effect"

const fields = { message: Schema.String }

/** 10300: no order with this code or id for this app (or another app's). */
export class PaymentOrderNotFound extends Schema.TaggedError<PaymentOrderNotFound>()("PaymentOrderNotFound", fields, {
  httpApiStatus: 404
}) {}
/** 10301: expiresAt passed with nothing paid: the order is Expired. */
export class PaymentOrderExpired extends Schema.TaggedError<PaymentOrderExpired>()("PaymentOrderExpired", fields, {
  httpApiStatus: 400
}) {}
/** 10302: the order's state does not take this action (Paid, Processing, Canceled, ...). */
export class PaymentOrderNotPayable extends Schema.TaggedError<PaymentOrderNotPayable>()(
  "PaymentOrderNotPayable",
  fields,
  { httpApiStatus: 400 }
) {}
/** 10303: the terminal is not offered for this order or not `available` now. */
export class TerminalNotAvailable extends Schema.TaggedError<TerminalNotAvailable>()("TerminalNotAvailable", fields, {
  httpApiStatus: 400
}) {}
/** 10304: the order is Started or Processing on another terminal. */
export class TerminalLocked extends Schema.TaggedError<TerminalLocked>()("TerminalLocked", fields, {
  httpApiStatus: 400
}) {}
/** 10305: payAmount was given without terminalId. */
export class PayAmountNeedsTerminal extends Schema.TaggedError<PayAmountNeedsTerminal>()(
  "PayAmountNeedsTerminal",
  fields,
  { httpApiStatus: 400 }
) {}
/** 10306: no crypto payment was started on this order. */
export class NoPaymentInProgress extends Schema.TaggedError<NoPaymentInProgress>()("NoPaymentInProgress", fields, {
  httpApiStatus: 400
}) {}
/** 10307: pay_transfer on a PaymentOrder, or another pay_* action on a TransferOrder. */
export class WrongOrderKind extends Schema.TaggedError<WrongOrderKind>()("WrongOrderKind", fields, {
  httpApiStatus: 400
}) {}
/** 10308: no merchant app with this id. */
export class AppNotFound extends Schema.TaggedError<AppNotFound>()("AppNotFound", fields, { httpApiStatus: 404 }) {}
/** 10309: a Pending card session or a seen crypto income holds the order. */
export class PaymentPending extends Schema.TaggedError<PaymentPending>()("PaymentPending", fields, {
  httpApiStatus: 400
}) {}
/** 10310: no acquiring session with this id. */
export class AcquiringSessionNotFound extends Schema.TaggedError<AcquiringSessionNotFound>()(
  "AcquiringSessionNotFound",
  fields,
  { httpApiStatus: 404 }
) {}
/** 10311: the acquiring session is already decided or expired. */
export class AcquiringSessionClosed extends Schema.TaggedError<AcquiringSessionClosed>()(
  "AcquiringSessionClosed",
  fields,
  { httpApiStatus: 400 }
) {}
/** 10313: the acquirer webhook's signature is missing or bad, or its timestamp is off. */
export class WebhookSignatureInvalid extends Schema.TaggedError<WebhookSignatureInvalid>()(
  "WebhookSignatureInvalid",
  fields,
  { httpApiStatus: 401 }
) {}
/** 10314: unknown session, another amount or currency, or a status contradicting the recorded one. */
export class WebhookMismatch extends Schema.TaggedError<WebhookMismatch>()("WebhookMismatch", fields, {
  httpApiStatus: 400
}) {}
/** 10320: only Paid or PartiallyRefunded PaymentOrders are refunded. */
export class RefundNotAllowed extends Schema.TaggedError<RefundNotAllowed>()("RefundNotAllowed", fields, {
  httpApiStatus: 400
}) {}
/** 10321: pending + finished refunds + this amount would exceed paidAmount. */
export class RefundExceedsPaid extends Schema.TaggedError<RefundExceedsPaid>()("RefundExceedsPaid", fields, {
  httpApiStatus: 400
}) {}
/** 10322: no refund with this refundId or externalId. */
export class RefundNotFound extends Schema.TaggedError<RefundNotFound>()("RefundNotFound", fields, {
  httpApiStatus: 404
}) {}
/** 10323: a crypto order's refund needs `refundAddress`. */
export class RefundAddressRequired extends Schema.TaggedError<RefundAddressRequired>()(
  "RefundAddressRequired",
  fields,
  { httpApiStatus: 400 }
) {}
/** 10324: the order already has 100 refunds. */
export class TooManyRefunds extends Schema.TaggedError<TooManyRefunds>()("TooManyRefunds", fields, {
  httpApiStatus: 400
}) {}
/** 10330: from > to, or a range over 366 days. */
export class StatsRangeInvalid extends Schema.TaggedError<StatsRangeInvalid>()("StatsRangeInvalid", fields, {
  httpApiStatus: 400
}) {}
/** 10340: the webhook URL is not http(s), too long, has userinfo, or names a private host. */
export class WebhookUrlRejected extends Schema.TaggedError<WebhookUrlRejected>()("WebhookUrlRejected", fields, {
  httpApiStatus: 400
}) {}
/** 10341: no webhook event with this id. */
export class WebhookDeliveryNotFound extends Schema.TaggedError<WebhookDeliveryNotFound>()(
  "WebhookDeliveryNotFound",
  fields,
  { httpApiStatus: 404 }
) {}

/** Every C16 error, in code order. */
export const PaymentErrors = [
  PaymentOrderNotFound,
  PaymentOrderExpired,
  PaymentOrderNotPayable,
  TerminalNotAvailable,
  TerminalLocked,
  PayAmountNeedsTerminal,
  NoPaymentInProgress,
  WrongOrderKind,
  AppNotFound,
  PaymentPending,
  AcquiringSessionNotFound,
  AcquiringSessionClosed,
  WebhookSignatureInvalid,
  WebhookMismatch,
  RefundNotAllowed,
  RefundExceedsPaid,
  RefundNotFound,
  RefundAddressRequired,
  TooManyRefunds,
  StatsRangeInvalid,
  WebhookUrlRejected,
  WebhookDeliveryNotFound
] as const
