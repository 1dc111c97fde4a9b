/**
 * The payment gateway's wire shapes (CONTRACT C16): merchant order and refund requests, PaymentOrderOut,
 * RefundOut, the payment gate's OrderInfoOut (with its address and acquiring parts) and TerminalOut
 * (SPEC's gate terminal plus C16's `quote`). Amounts,
 * `rate` and `spreadPct` are canonical decimal strings; TerminalOut's fee and bound fields stay JSON
 * numbers. PaymentOrderOut, PutOrderOut, OrderInfoOut, TerminalOut and PaymentOrderDetailOut are served
 * (docs/PAYMENTS.md); the rest wait for issue #14.
 */
import { Schema } from "effect"
import { AppId, AppIdOut, Int64String, TerminalId, TerminalIdOut, TxIdOut, WalletIdOut } from "./Ids.ts"
import { PositiveAmount } from "./Money.ts"
import { CurrencyCode } from "./Reference.ts"

export const orderExpiresInSecondsMax = 2_592_000
export const externalIdLengthMax = 100
export const descriptionLengthMax = 500
export const returnUrlLengthMax = 2048

export const OrderKind = Schema.Literals(["PaymentOrder", "TransferOrder"])
export const PaymentMethod = Schema.Literals(["InternalPayment", "CardAcquiring", "CryptoTransfer"])
export const OrderStateName = Schema.Literals([
  "Created",
  "Started",
  "Processing",
  "Paid",
  "PartiallyRefunded",
  "Refunded",
  "Expired",
  "Canceled",
  "Failed"
])
export const RefundStateName = Schema.Literals(["Pending", "Finished", "Failed"])
export const RefundDestination = Schema.Literals(["Wallet", "Card", "Crypto"])

const Text = (min: number, max: number) => Schema.String.check(Schema.isMinLength(min), Schema.isMaxLength(max))
/** Decimal text in an answer ("93.84", "100"). */
const Decimal = Schema.String.annotate({ description: "Canonical decimal string" })
const Url = Text(1, returnUrlLengthMax).annotate({ description: "http(s) URL, at most 2048 characters" })
const OrderCode = Schema.String.annotate({ description: "Bearer code: `P…` (PaymentOrder) or `T…` (TransferOrder)" })

// Requests ------------------------------------------------------------------------------------

const orderFields = {
  currency: CurrencyCode,
  orderAmount: PositiveAmount,
  externalId: Text(1, externalIdLengthMax),
  description: Schema.optional(Schema.NullOr(Schema.String.check(Schema.isMaxLength(descriptionLengthMax)))),
  expiresInSeconds: Schema.optional(
    Schema.Int.check(Schema.isGreaterThanOrEqualTo(1), Schema.isLessThanOrEqualTo(orderExpiresInSecondsMax))
  ).annotate({ description: "1–2592000, default PAYMENT_ORDER_TTL_SECONDS" }),
  // Its own rules (length, userinfo, private hosts) answer 10340 (src/platform/WebhookUrls.ts); the
  // schema only bounds what is read.
  webhookUrl: Schema.optional(Schema.NullOr(Text(1, 8192)))
}

/** put_payment_order (create_payment_order adds `appId`, CreatePaymentOrderIn). */
export const PutPaymentOrderIn = Schema.Struct({
  ...orderFields,
  terminalId: Schema.optional(Schema.NullOr(TerminalId)),
  payAmount: Schema.optional(Schema.NullOr(PositiveAmount)).annotate({
    description: "Fixes the price on `terminalId` (required with it, 10305)"
  }),
  returnUrlSuccess: Schema.optional(Schema.NullOr(Url)),
  returnUrlFail: Schema.optional(Schema.NullOr(Url))
}).annotate({ identifier: "PutPaymentOrderIn" })
export type PutPaymentOrderIn = typeof PutPaymentOrderIn.Type

/** Private create_payment_order: put_payment_order's body for the app named by `appId` (404 10308). */
export const CreatePaymentOrderIn = Schema.Struct({ ...PutPaymentOrderIn.fields, appId: AppId }).annotate({
  identifier: "CreatePaymentOrderIn"
})

/** put_transfer_order: a payout reserved from the merchant wallet at creation. */
export const PutTransferOrderIn = Schema.Struct(orderFields).annotate({ identifier: "PutTransferOrderIn" })
export type PutTransferOrderIn = typeof PutTransferOrderIn.Type

/** refund_payment: exactly one of `code` or `id` (else 10001). */
export const RefundPaymentIn = Schema.Struct({
  code: Schema.optional(Schema.NullOr(Schema.String)),
  id: Schema.optional(Schema.NullOr(Int64String)),
  amount: Schema.optional(Schema.NullOr(PositiveAmount)).annotate({ description: "Default: all still refundable" }),
  externalId: Text(1, externalIdLengthMax),
  reason: Schema.optional(Schema.NullOr(Schema.String.check(Schema.isMaxLength(descriptionLengthMax)))),
  refundAddress: Schema.optional(Schema.NullOr(Text(1, 200))).annotate({
    description: "Required for crypto orders (10323)"
  })
}).annotate({ identifier: "RefundPaymentIn" })
export type RefundPaymentIn = typeof RefundPaymentIn.Type

// Answers -------------------------------------------------------------------------------------

export const PaymentOrderOut = Schema.Struct({
  id: TxIdOut,
  idUpdate: Int64String,
  code: Schema.NullOr(OrderCode).annotate({ description: "null for a TransferOrder outside put_transfer_order" }),
  payUrl: Schema.NullOr(Schema.String),
  kind: OrderKind,
  typeTx: Schema.Int,
  appId: AppIdOut,
  externalId: Schema.String,
  stateCode: Schema.Int,
  state: OrderStateName,
  txState: Schema.Int,
  currency: Schema.String,
  orderAmount: Decimal,
  description: Schema.NullOr(Schema.String),
  createdAt: Schema.String,
  expiresAt: Schema.String,
  paidAt: Schema.NullOr(Schema.String),
  terminalId: Schema.NullOr(TerminalIdOut),
  typeNetwork: Schema.NullOr(Schema.Int),
  paymentMethod: Schema.NullOr(PaymentMethod),
  payCurrency: Schema.NullOr(Schema.String),
  payAmount: Schema.NullOr(Decimal),
  fee: Schema.NullOr(Decimal),
  totalToPay: Schema.NullOr(Decimal),
  rate: Schema.NullOr(Decimal),
  spreadPct: Schema.NullOr(Decimal),
  paidAmount: Decimal,
  refundedAmount: Decimal,
  payerWalletId: Schema.NullOr(WalletIdOut),
  recipient: Schema.NullOr(Schema.String),
  meta: Schema.NullOr(Schema.Unknown),
  returnUrlSuccess: Schema.NullOr(Schema.String),
  returnUrlFail: Schema.NullOr(Schema.String),
  webhookUrl: Schema.NullOr(Schema.String)
}).annotate({ identifier: "PaymentOrderOut" })
export type PaymentOrderOut = typeof PaymentOrderOut.Type

/** put_payment_order / put_transfer_order answer: the order and whether it was a replay. */
export const PutOrderOut = Schema.Struct({ ...PaymentOrderOut.fields, replayed: Schema.Boolean }).annotate({
  identifier: "PutOrderOut"
})

export const RefundOut = Schema.Struct({
  refundId: TxIdOut,
  externalId: Schema.String,
  code: Schema.NullOr(Schema.String),
  orderId: TxIdOut,
  appId: AppIdOut,
  amount: Decimal,
  currency: Schema.String,
  fee: Decimal,
  stateCode: Schema.Int,
  state: RefundStateName,
  txState: Schema.Int,
  destination: RefundDestination,
  payoutAmount: Decimal,
  payoutCurrency: Schema.String,
  reason: Schema.NullOr(Schema.String),
  createdAt: Schema.String,
  finishedAt: Schema.NullOr(Schema.String)
}).annotate({ identifier: "RefundOut" })
export type RefundOut = typeof RefundOut.Type

/** An acquiring session as private pending_acquiring_txs lists it (C16 "Built-in card acquiring"). */
export const AcquiringSessionOut = Schema.Struct({
  acquiringId: Schema.String,
  code: Schema.NullOr(Schema.String),
  orderId: TxIdOut,
  appId: AppIdOut,
  terminalId: TerminalIdOut,
  amount: Decimal,
  currency: Schema.String,
  status: Schema.Literals(["Pending", "Approved", "Declined", "Expired"]),
  createdAt: Schema.String,
  checkedAt: Schema.NullOr(Schema.String)
}).annotate({ identifier: "AcquiringSessionOut" })
export type AcquiringSessionOut = typeof AcquiringSessionOut.Type

/** Private get_payment_order_info: the order with its refunds and acquiring sessions (any status). */
export const PaymentOrderDetailOut = Schema.Struct({
  ...PaymentOrderOut.fields,
  refunds: Schema.Array(RefundOut),
  acquiringSessions: Schema.Array(AcquiringSessionOut)
}).annotate({ identifier: "PaymentOrderDetailOut" })

/** The figures of a terminal for one order (null without `code`). */
export const TerminalQuote = Schema.Struct({
  payAmount: Decimal,
  fee: Decimal,
  totalToPay: Decimal,
  rate: Decimal
}).annotate({ identifier: "TerminalQuote" })

/**
 * SPEC's public gate terminal (get_terminals; fee and bound fields as JSON numbers, no `paymentMethod`)
 * plus C16's `quote` (null without an order code). get_order_info's `terminal` is one of these.
 */
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
  requiresAuth: Schema.Boolean,
  quote: Schema.NullOr(TerminalQuote)
}).annotate({ identifier: "TerminalOut" })
export type TerminalOut = typeof TerminalOut.Type

export const OrderAddressOut = Schema.Struct({
  address: Schema.String,
  memo: Schema.NullOr(Schema.String),
  tokenNetworkId: TerminalIdOut,
  currency: Schema.String,
  amount: Decimal.annotate({ description: "= totalToPay" }),
  txHash: Schema.NullOr(Schema.String),
  received: Decimal,
  confirmations: Schema.Int,
  confirmationsRequired: Schema.Int
}).annotate({ identifier: "OrderAddressOut" })

export const OrderAcquiringOut = Schema.Struct({
  acquiringId: Schema.String,
  status: Schema.Literals(["Pending", "Approved", "Declined", "Expired"]),
  checkoutUrl: Schema.String
}).annotate({ identifier: "OrderAcquiringOut" })

/** The payment gate's view: no externalId, webhookUrl, payerWalletId or recipient. */
export const OrderInfoOut = Schema.Struct({
  code: Schema.NullOr(OrderCode).annotate({ description: "null for a TransferOrder (its code is a claim on money)" }),
  kind: OrderKind,
  typeTx: Schema.Int,
  stateCode: Schema.Int,
  state: OrderStateName,
  txState: Schema.Int,
  currency: Schema.String,
  orderAmount: Decimal,
  description: Schema.NullOr(Schema.String),
  merchantName: Schema.String,
  createdAt: Schema.String,
  expiresAt: Schema.String,
  paidAt: Schema.NullOr(Schema.String),
  terminal: Schema.NullOr(TerminalOut),
  typeNetwork: Schema.NullOr(Schema.Int),
  payCurrency: Schema.NullOr(Schema.String),
  payAmount: Schema.NullOr(Decimal),
  fee: Schema.NullOr(Decimal),
  totalToPay: Schema.NullOr(Decimal),
  rate: Schema.NullOr(Decimal),
  spreadPct: Schema.NullOr(Decimal),
  address: Schema.NullOr(OrderAddressOut),
  acquiring: Schema.NullOr(OrderAcquiringOut),
  returnUrl: Schema.NullOr(Schema.String)
}).annotate({ identifier: "OrderInfoOut" })
export type OrderInfoOut = typeof OrderInfoOut.Type
