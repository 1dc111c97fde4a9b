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
  TerminalLocked,
  TerminalNotAvailable,
  WrongOrderKind
} from "../PaymentErrors.ts"
import { PaymentOrderOut, PutOrderOut, PutPaymentOrderIn } from "../Payments.ts"
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
      success: Envelope(PaymentOrderOut),
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
  .middleware(MerchantAuth)
  .prefix("/payorders/v1")
  .annotateMerge(
    OpenApi.annotations({ title: "Merchant", description: "Merchant key (`pkey` header) plus `app_id` query" })
  ) {}
