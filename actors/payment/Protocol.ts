/** The payment order actor's typed mailbox: one actor per order, keyed by the order's transaction id. */
import { Schema } from "effect"
import { Rpc } from "effect/rpc"
import { actorEntity } from "../../src/platform/ActorEntity.ts"
import {
  BalanceNotEnough,
  InvalidRequest,
  NonceExists,
  RateLimited,
  SameAccounts,
  WalletBlocked
} from "../../schema/Errors.ts"
import { RefundBelowNetworkFee } from "../../schema/CryptoErrors.ts"
import {
  NoPaymentInProgress,
  PaymentOrderExpired,
  PaymentOrderNotFound,
  PaymentOrderNotPayable,
  PaymentPending,
  RefundAddressRequired,
  RefundExceedsPaid,
  RefundNotAllowed,
  TerminalLocked,
  TerminalNotAvailable,
  TooManyRefunds,
  WebhookMismatch,
  WrongOrderKind
} from "../../schema/PaymentErrors.ts"

export const OrderErrors = Schema.Union([
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
  RateLimited,
  WalletBlocked
])

export type OrderError = typeof OrderErrors.Type

/** A terminal as the service quoted it for this order (actors/payment/Order.ts TerminalOffer). */
export const OfferSchema = Schema.Struct({
  terminalId: Schema.BigIntFromString,
  method: Schema.Literals(["InternalPayment", "CardAcquiring", "CryptoTransfer"]),
  rate: Schema.String,
  spreadPct: Schema.String,
  payCurrency: Schema.String,
  payAmount: Schema.BigIntFromString,
  fee: Schema.BigIntFromString,
  profitWallet: Schema.BigIntFromString,
  available: Schema.Boolean
})
export type OfferData = typeof OfferSchema.Type

/** The engine's price rule, for the service that quotes offers (services reach actors through Protocol only). */
export { quotePayAmount, stateName, txStateOf } from "./Order.ts"

/** The merchant's preselection at creation (put_payment_order `terminalId?`, `payAmount?`). */
export const PresetSchema = Schema.Struct({
  terminalId: Schema.BigIntFromString,
  payCurrency: Schema.String,
  payAmount: Schema.NullOr(Schema.BigIntFromString)
})

const Answer = Schema.Struct({ stateCode: Schema.Int, replayed: Schema.Boolean })

/**
 * Create the order (the entity id is its transaction id): the transaction (typeTx 20, app_id set) and
 * its payment_orders row in one commit. The (app, externalId) unique index refuses a second order of the
 * same external id: NonceExists, and the service reads the first one.
 */
export const Create = Rpc.make("Create", {
  payload: {
    appId: Schema.BigIntFromString,
    externalId: Schema.String,
    requestHash: Schema.String,
    merchantWallet: Schema.BigIntFromString,
    codeHash: Schema.Uint8ArrayFromHex,
    code: Schema.NullOr(Schema.String),
    currency: Schema.String,
    orderAmount: Schema.BigIntFromString,
    expiresAt: Schema.DateFromString,
    description: Schema.NullOr(Schema.String),
    returnUrlSuccess: Schema.NullOr(Schema.String),
    returnUrlFail: Schema.NullOr(Schema.String),
    webhookUrl: Schema.NullOr(Schema.String),
    preset: Schema.optional(Schema.NullOr(PresetSchema))
  },
  success: Schema.Void,
  error: NonceExists
})

/** order_start: lock the offered terminal (Created → Started; same terminal again: unchanged). */
export const Start = Rpc.make("Start", { payload: { offer: OfferSchema }, success: Answer, error: OrderErrors })

/** pay_internal: the payer's free balance pays totalToPay through the payer's wallet actor. */
export const PayInternal = Rpc.make("PayInternal", {
  payload: { payer: Schema.BigIntFromString, offer: OfferSchema },
  success: Answer,
  error: OrderErrors
})

/** cancel_payment_order by the merchant. */
export const Cancel = Rpc.make("Cancel", { payload: {}, success: Answer, error: OrderErrors })

/** Commit Expired if the order is due (a read or a sweeper); otherwise nothing. */
export const Expire = Rpc.make("Expire", { payload: {}, success: Answer, error: OrderErrors })

/** A crypto payout's (or a crypto refund's) C15 withdrawal: its transaction id, terminal and the (validated) address. */
export const PayoutWithdrawalSchema = Schema.Struct({
  txId: Schema.BigIntFromString,
  terminalId: Schema.BigIntFromString,
  address: Schema.String,
  memo: Schema.NullOr(Schema.String)
})

/**
 * refund_payment (C16 "Refunds"): the refund's transaction (typeTx 19, id `refundTxId`), its
 * payment_refunds row, the order's update and the postings in one commit through the merchant wallet's
 * actor (it debits free). `amount` null: all still refundable; `fee` is the Refund tariff on the amount
 * the service resolved. A refund already stored for (app, externalId) answers NonceExists (the service
 * replays it or answers 10060). A crypto refund carries its C15 withdrawal (queued in the same commit).
 */
export const Refund = Rpc.make("Refund", {
  payload: {
    refundTxId: Schema.BigIntFromString,
    appId: Schema.BigIntFromString,
    externalId: Schema.String,
    requestHash: Schema.String,
    amount: Schema.BigIntFromString,
    fee: Schema.BigIntFromString,
    profitWallet: Schema.BigIntFromString,
    reason: Schema.NullOr(Schema.String),
    refundAddress: Schema.NullOr(Schema.String),
    /** A crypto refund's C15 Refund to refundAddress (the service validated it); null otherwise. */
    withdrawal: Schema.optionalKey(Schema.NullOr(PayoutWithdrawalSchema)),
    /** The order terminal's networkFee (payCurrency minor units), charged once per crypto refund (C15). */
    networkFee: Schema.optionalKey(Schema.BigIntFromString)
  },
  success: Schema.Void,
  error: Schema.Union([
    RefundBelowNetworkFee,
    PaymentOrderNotFound,
    PaymentOrderNotPayable,
    RefundNotAllowed,
    RefundExceedsPaid,
    RefundAddressRequired,
    TooManyRefunds,
    InvalidRequest,
    BalanceNotEnough,
    NonceExists,
    RateLimited,
    WalletBlocked
  ])
})

/**
 * put_transfer_order (docs/PAYMENTS.md "Payout orders"): the TransferOrder's transaction (typeTx 21),
 * its row (code only hashed) and the reserve free → lock_out in one commit, through the merchant
 * wallet's actor (it alone debits free): BalanceNotEnough when free < orderAmount + fee.
 */
export const CreateTransfer = Rpc.make("CreateTransfer", {
  payload: {
    appId: Schema.BigIntFromString,
    externalId: Schema.String,
    requestHash: Schema.String,
    merchantWallet: Schema.BigIntFromString,
    codeHash: Schema.Uint8ArrayFromHex,
    currency: Schema.String,
    orderAmount: Schema.BigIntFromString,
    fee: Schema.BigIntFromString,
    profitWallet: Schema.BigIntFromString,
    expiresAt: Schema.DateFromString,
    description: Schema.NullOr(Schema.String),
    webhookUrl: Schema.NullOr(Schema.String)
  },
  success: Schema.Void,
  error: Schema.Union([NonceExists, BalanceNotEnough, RateLimited, WalletBlocked])
})

/**
 * pay_transfer: to an internal wallet (`recipientWallet`, resolved by the service) → Paid; or, with
 * `withdrawal`, a crypto payout → Processing with the withdrawal Queued in the same commit.
 * `recipient` and `meta` as sent.
 */
export const PayTransfer = Rpc.make("PayTransfer", {
  payload: {
    recipientWallet: Schema.NullOr(Schema.BigIntFromString),
    withdrawal: Schema.NullOr(PayoutWithdrawalSchema),
    recipient: Schema.String,
    meta: Schema.NullOr(Schema.String),
    offer: OfferSchema
  },
  success: Answer,
  error: OrderErrors
})

/** pay_crypto: the implicit start on a crypto terminal (the deposit address is the service's). */
export const PayCrypto = Rpc.make("PayCrypto", { payload: { offer: OfferSchema }, success: Answer, error: OrderErrors })

/** cancel_crypto: Started (crypto) → Created, terminal and snapshot dropped, addresses detached. */
export const CancelCrypto = Rpc.make("CancelCrypto", { payload: {}, success: Answer, error: OrderErrors })

/**
 * pay_card (C16): the implicit start on a Card terminal and one Pending acquiring session, in one commit
 * (actors/payment/CardHandler.ts). `acquiringId` is the id a new session takes; while one is Pending a
 * repeat returns that one (`opened: false`) and adds nothing.
 */
export const PayCard = Rpc.make("PayCard", {
  payload: { offer: OfferSchema, acquiringId: Schema.String },
  success: Schema.Struct({ stateCode: Schema.Int, acquiringId: Schema.String, opened: Schema.Boolean }),
  error: OrderErrors
})

/**
 * The one conditional transition of a card session (docs/CARDS.md): the acquirer's webhook,
 * reconciliation and the session TTL all send it. Pending → Approved (order Paid, Treasury pays) |
 * Declined | Expired (order Started again), exactly once. `amount` (minor units) and `currency`, when the
 * provider sent them, must match the session (10314). Already decided the same way: `duplicate: true`;
 * another way: 10314.
 */
export const CardOutcome = Rpc.make("CardOutcome", {
  payload: {
    acquiringId: Schema.String,
    status: Schema.Literals(["Approved", "Declined", "Expired"]),
    eventId: Schema.NullOr(Schema.String),
    amount: Schema.NullOr(Schema.BigIntFromString),
    currency: Schema.NullOr(Schema.String)
  },
  success: Schema.Struct({ duplicate: Schema.Boolean, stateCode: Schema.Int }),
  error: Schema.Union([WebhookMismatch, PaymentOrderNotFound, PaymentOrderNotPayable])
})

export const PaymentOrderEntity = actorEntity("PaymentOrder", [
  Create,
  Start,
  PayInternal,
  Cancel,
  Expire,
  Refund,
  CreateTransfer,
  PayTransfer,
  PayCrypto,
  CancelCrypto,
  PayCard,
  CardOutcome
])

/** The chain actor applies crypto incomes to orders inside its push commit (C16 crypto). */
export { applyCryptoIncomes, type CryptoExpiryFacts, type CryptoIncomeEvent } from "./CryptoIncomes.ts"
export { type DepositFee, plainIncomeOperations } from "./PlainIncomes.ts"
