/** Merchant payment orders `/payorders/v1/` (merchant key plus app_id). */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { AppDisabledOrder, TooManyWaiters } from "../EdgeErrors.ts"
import { CursorEnvelope, Envelope } from "../Envelope.ts"
import {
  ExternalIdConflict,
  InvalidAmount,
  InvalidRequest,
  RateLimited,
  SameAccounts,
  BalanceNotEnough,
  TerminalNotFound,
  TooManyDecimals,
  UnknownCurrency,
  WalletBlocked
} from "../Errors.ts"
import { InvalidAddress, RefundBelowNetworkFee } from "../CryptoErrors.ts"
import { Cursor, Int64 } from "../Ids.ts"
import {
  NoPaymentInProgress,
  PayAmountNeedsTerminal,
  PaymentOrderExpired,
  PaymentOrderNotFound,
  PaymentOrderNotPayable,
  PaymentPending,
  RefundAddressRequired,
  RefundExceedsPaid,
  RefundNotAllowed,
  RefundNotFound,
  TerminalLocked,
  TerminalNotAvailable,
  TooManyRefunds,
  WebhookDeliveryNotFound,
  WebhookUrlRejected,
  WrongOrderKind
} from "../PaymentErrors.ts"
import { PaymentOrderOut, PutOrderOut, PutPaymentOrderIn, RefundOut, RefundPaymentIn } from "../Payments.ts"
import { MerchantAuth } from "../Security.ts"
import { WebhookDeliveryOut } from "../Webhooks.ts"
import { WaitQuery } from "../Transfer.ts"

/** What an action on one order may answer (C16 "Errors"). */
export const OrderActionErrors = [
  InvalidRequest,
  PaymentOrderNotFound,
  PaymentOrderExpired,
  PaymentOrderNotPayable,
  TerminalNotAvailable,
  TerminalLocked,
  NoPaymentInProgress,
  WrongOrderKind,
  PaymentPending,
  SameAccounts,
  BalanceNotEnough,
  TerminalNotFound,
  RateLimited,
  WalletBlocked,
  AppDisabledOrder
] as const

/** What creating an order (payment or payout) may answer whatever its kind (C16 "Errors"). */
export const OrderCreationErrors = [
  InvalidRequest,
  UnknownCurrency,
  TooManyDecimals,
  ExternalIdConflict,
  WebhookUrlRejected
] as const

/** What creating a payment order may answer, before its caller's own (auth, rate) errors. */
export const PaymentOrderCreationErrors = [
  ...OrderCreationErrors,
  PayAmountNeedsTerminal,
  TerminalNotAvailable,
  TerminalNotFound,
  InvalidAmount
] as const

/** `code` or `id`, exactly one (else 10001). */
const orderRef = {
  app_id: Int64,
  code: Schema.optional(Schema.String.check(Schema.isMaxLength(200))),
  id: Schema.optional(Schema.String.check(Schema.isMaxLength(20)))
}

export const appPaymentsPageMax = 100

const feedQuery = {
  app_id: Int64,
  cursor: Schema.optional(Cursor).annotate({
    description: "Exclusive update-tick watermark; omitted means from the start"
  }),
  limit: Schema.optional(Schema.String).annotate({ description: "Ignored: a page is at most 100 rows (C16)" })
}

/** get_app_payment: the order with its refunds, oldest first (C16). */
export const AppPaymentOut = Schema.Struct({ ...PaymentOrderOut.fields, refunds: Schema.Array(RefundOut) }).annotate({
  identifier: "AppPaymentOut"
})

/** refund_payment's answer: the refund and whether it was a replay. */
export const RefundPaymentOut = Schema.Struct({ ...RefundOut.fields, replayed: Schema.Boolean }).annotate({
  identifier: "RefundPaymentOut"
})

export class PayordersApi extends HttpApiGroup.make("payorders")
  .add(
    HttpApiEndpoint.get("get_app_payments", "/get_app_payments", {
      query: feedQuery,
      success: CursorEnvelope(Schema.Array(PaymentOrderOut))
    }).annotateMerge(
      OpenApi.annotations({
        description:
          "This app's orders changed after `cursor`, oldest change first, each once at its latest state, at most 100. `cursor` in the answer: the last row's idUpdate, or with no rows the committed watermark."
      })
    )
  )
  .add(
    HttpApiEndpoint.get("wait_app_payment", "/wait_app_payment", {
      query: { ...feedQuery, timeout: WaitQuery.timeout },
      success: [
        CursorEnvelope(Schema.Array(PaymentOrderOut)),
        CursorEnvelope(Schema.Array(PaymentOrderOut))
          .annotate({ identifier: "WaitAppPaymentIdle" })
          .pipe(HttpApiSchema.status(202))
      ],
      error: [RateLimited, TooManyWaiters]
    }).annotateMerge(
      OpenApi.annotations({
        description:
          "get_app_payments as a long-poll (C8): 200 with rows as soon as any exist after `cursor`, else 202 with `result: []` after the idle wait (`timeout` seconds, default 30, at most 45). Both carry `cursor`."
      })
    )
  )
  .add(
    HttpApiEndpoint.post("put_payment_order", "/put_payment_order", {
      query: { app_id: Int64 },
      payload: PutPaymentOrderIn,
      success: Envelope(PutOrderOut),
      error: [...PaymentOrderCreationErrors, RateLimited]
    })
  )
  .add(
    HttpApiEndpoint.get("get_app_payment", "/get_app_payment", {
      query: orderRef,
      success: Envelope(AppPaymentOut),
      error: [...OrderActionErrors]
    })
  )
  .add(
    HttpApiEndpoint.post("cancel_payment_order", "/cancel_payment_order", {
      query: orderRef,
      success: Envelope(PaymentOrderOut),
      error: [...OrderActionErrors]
    })
  )
  .add(
    HttpApiEndpoint.post("refund_payment", "/refund_payment", {
      query: { app_id: Int64 },
      payload: RefundPaymentIn,
      success: Envelope(RefundPaymentOut),
      error: [
        InvalidRequest,
        TooManyDecimals,
        ExternalIdConflict,
        PaymentOrderNotFound,
        PaymentOrderNotPayable,
        RefundNotAllowed,
        RefundExceedsPaid,
        RefundAddressRequired,
        InvalidAddress,
        RefundBelowNetworkFee,
        TooManyRefunds,
        BalanceNotEnough,
        RateLimited,
        WalletBlocked
      ]
    })
  )
  .add(
    HttpApiEndpoint.get("get_refund_status", "/get_refund_status", {
      query: {
        app_id: Int64,
        refundId: Schema.optional(Schema.String.check(Schema.isMaxLength(20))),
        externalId: Schema.optional(Schema.String.check(Schema.isMaxLength(100)))
      },
      success: Envelope(RefundOut),
      error: [InvalidRequest, RefundNotFound]
    })
  )
  .add(
    HttpApiEndpoint.get("get_webhook_deliveries", "/get_webhook_deliveries", {
      query: orderRef,
      success: Envelope(Schema.Array(WebhookDeliveryOut)),
      error: [...OrderActionErrors]
    }).annotateMerge(
      OpenApi.annotations({
        description: "The webhook deliveries of the order and of its refunds, newest first (C16)."
      })
    )
  )
  .add(
    HttpApiEndpoint.post("redeliver_webhook", "/redeliver_webhook", {
      query: { app_id: Int64, eventId: Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(200)) },
      success: Envelope(WebhookDeliveryOut),
      error: [InvalidRequest, WebhookDeliveryNotFound]
    }).annotateMerge(
      OpenApi.annotations({
        description: "The delivery of `eventId`, Pending again with a fresh attempt budget (C16; unknown: 404 10341)."
      })
    )
  )
  .middleware(MerchantAuth)
  .prefix("/payorders/v1")
  .annotateMerge(
    OpenApi.annotations({ title: "Merchant", description: "Merchant key (`pkey` header) plus `app_id` query" })
  ) {}
