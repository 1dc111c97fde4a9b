/** Merchant payment orders `/payorders/v1/` (merchant key plus app_id). */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
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
  UnknownCurrency
} from "../Errors.ts"
import { Cursor, Int64, Int64String } from "../Ids.ts"
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
  WrongOrderKind
} from "../PaymentErrors.ts"
import { PaymentOrderOut, PutOrderOut, PutPaymentOrderIn, RefundOut, RefundPaymentIn } from "../Payments.ts"
import { MerchantAuth } from "../Security.ts"

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
  RateLimited
] as const

/** `code` or `id`, exactly one (else 10001). */
const orderRef = {
  app_id: Int64,
  code: Schema.optional(Schema.String.check(Schema.isMaxLength(200))),
  id: Schema.optional(Schema.String.check(Schema.isMaxLength(20)))
}

export const appPaymentsPageMax = 100

export const AppPaymentRow = Schema.Struct({
  id: Int64String,
  idUpdate: Int64String,
  typeTx: Schema.Int,
  txState: Schema.Int,
  state: Schema.String,
  currency: Schema.String,
  amount: Schema.Number,
  fee: Schema.Number,
  tag: Schema.NullOr(Schema.String),
  dateTxUTC: Schema.String
}).annotate({ identifier: "AppPaymentRow" })

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
      query: {
        app_id: Int64,
        cursor: Schema.optional(Cursor).annotate({
          description: "Exclusive update-tick watermark; omitted means from the start"
        })
      },
      success: CursorEnvelope(Schema.Array(AppPaymentRow))
    })
  )
  .add(
    HttpApiEndpoint.post("put_payment_order", "/put_payment_order", {
      query: { app_id: Int64 },
      payload: PutPaymentOrderIn,
      success: Envelope(PutOrderOut),
      error: [
        InvalidRequest,
        UnknownCurrency,
        TooManyDecimals,
        ExternalIdConflict,
        PayAmountNeedsTerminal,
        TerminalNotAvailable,
        TerminalNotFound,
        InvalidAmount,
        RateLimited
      ]
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
        TooManyRefunds,
        BalanceNotEnough,
        RateLimited
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
  .middleware(MerchantAuth)
  .prefix("/payorders/v1")
  .annotateMerge(
    OpenApi.annotations({ title: "Merchant", description: "Merchant key (`pkey` header) plus `app_id` query" })
  ) {}
