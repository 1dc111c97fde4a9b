/**
 * The payment order's record and vocabulary (CONTRACT C16): state codes, the order record, the
 * decision type, rules and their C16 errors, the pure money helpers, and order creation. The
 * transitions are in Engine.ts (paying, payouts, expiry, cancel) and Refunds.ts; Engine.ts re-exports
 * all three, so callers import the engine from one place. `reject`, `ok` and `post` are the engine's
 * own builders (module-internal by convention).
 */
import { BigNumber } from "bignumber.js"
import type { ErrorTag } from "../../schema/Errors.ts"
import { Bucket, type Posting, SystemWallet } from "../../sql/Ledger.ts"

export const OrderStateCode = {
  Created: 1,
  Started: 2,
  Processing: 3,
  Paid: 8,
  PartiallyRefunded: 9,
  Refunded: 10,
  Expired: 16,
  Canceled: 17,
  Failed: 18
} as const
export type OrderStateCode = (typeof OrderStateCode)[keyof typeof OrderStateCode]

const names = new Map<number, string>(Object.entries(OrderStateCode).map(([name, code]) => [code, name]))
export const stateName = (stateCode: number): string => names.get(stateCode) ?? "Unknown"
/** The raw transaction state (C11 marks) of an order state: active 1, finished 8, canceled 16. */
export const txStateOf = (stateCode: number): 1 | 8 | 16 => (stateCode <= 3 ? 1 : stateCode <= 10 ? 8 : 16)

export type OrderKind = "PaymentOrder" | "TransferOrder"
export type PaymentMethod = "InternalPayment" | "CardAcquiring" | "CryptoTransfer"
export type RefundDestination = "Wallet" | "Card" | "Crypto"

export interface TerminalSnapshot {
  readonly terminalId: bigint
  readonly method: PaymentMethod
  /** currency → payCurrency as a canonical decimal string ("1" same currency). */
  readonly rate: string
  readonly spreadPct: string
}

/** What the caller quoted for a terminal (C16 get_terminals' `quote` and `available`). */
export interface TerminalOffer {
  readonly terminal: TerminalSnapshot
  readonly payCurrency: string
  readonly payAmount: bigint
  /** Payment tariff of payCurrency on payAmount, and its profit wallet (ignored for a TransferOrder). */
  readonly fee: bigint
  readonly profitWallet: bigint
  readonly available: boolean
}

export interface OrderState {
  readonly kind: OrderKind
  readonly stateCode: OrderStateCode
  readonly txState: 1 | 8 | 16
  readonly currency: string
  readonly orderAmount: bigint
  readonly payCurrency: string | null
  readonly payAmount: bigint | null
  readonly fee: bigint
  readonly profitWallet: bigint
  readonly merchantWallet: bigint
  readonly terminal: TerminalSnapshot | null
  readonly expiresAt: number
  readonly paidAmount: bigint
  readonly refundedAmount: bigint
  /** Σ of accepted crypto refunds not yet final (order currency). */
  readonly pendingRefunds: bigint
  readonly refundCount: number
  /** PaymentOrder: the paying wallet (internal payments). TransferOrder: the internal recipient. */
  readonly payerWalletId: bigint | null
  readonly cardSessionPending: boolean
  /** Σ crypto incomes seen and not final (payCurrency, held in the merchant's lock_in). */
  readonly incomeSeen: bigint
  /** Σ final crypto incomes (payCurrency). */
  readonly incomeFinal: bigint
}

export type Rule =
  | "Expired" // 10301
  | "NotPayable" // 10302: the state does not take this action
  | "TerminalNotAvailable" // 10303
  | "TerminalLocked" // 10304
  | "NoPaymentInProgress" // 10306
  | "WrongKind" // 10307
  | "SameAccounts" // 10008
  | "BalanceNotEnough" // 10002
  | "PaymentPending" // 10309: a Pending card session or a seen income
  | "NotRefundable" // 10320
  | "RefundExceedsPaid" // 10321
  | "RefundAddressRequired" // 10323
  | "TooManyRefunds" // 10324
  | "InvalidAmount" // 10001: a non-positive amount
  | "NotDue" // internal: expire() on an order that may not expire now (the sweeper skips it)
  | "NotAttached" // internal: a crypto income event for an income this order does not hold

export const ruleErrors: Record<Rule, ErrorTag | null> = {
  Expired: "PaymentOrderExpired",
  NotPayable: "PaymentOrderNotPayable",
  TerminalNotAvailable: "TerminalNotAvailable",
  TerminalLocked: "TerminalLocked",
  NoPaymentInProgress: "NoPaymentInProgress",
  WrongKind: "WrongOrderKind",
  SameAccounts: "SameAccounts",
  BalanceNotEnough: "BalanceNotEnough",
  PaymentPending: "PaymentPending",
  NotRefundable: "RefundNotAllowed",
  RefundExceedsPaid: "RefundExceedsPaid",
  RefundAddressRequired: "RefundAddressRequired",
  TooManyRefunds: "TooManyRefunds",
  InvalidAmount: "InvalidRequest",
  NotDue: null,
  NotAttached: null
}

export interface RefundFigures {
  readonly amount: bigint
  readonly fee: bigint
  readonly destination: RefundDestination
  readonly payoutAmount: bigint
  readonly payoutCurrency: string
  /** Wallet and Card refunds are Finished at once; Crypto ones Pending until final. */
  readonly finished: boolean
}

export interface Ok {
  readonly _tag: "Ok"
  readonly state: OrderState
  readonly postings: ReadonlyArray<Posting>
  /** The wallet whose free balance this takes (the caller routes the commit through its actor). */
  readonly debits: bigint | null
  /** pay_internal repeated by the wallet that paid: nothing moves, answer `replayed: true`. */
  readonly replayed?: boolean
  readonly refund?: RefundFigures
}
export interface Reject {
  readonly _tag: "Reject"
  readonly rule: Rule
}
export type Decision = Ok | Reject

export const maxRefundsPerOrder = 100

export const reject = (rule: Rule): Reject => ({ _tag: "Reject", rule })
export const ok = (state: OrderState, postings: ReadonlyArray<Posting> = [], debits: bigint | null = null): Ok => ({
  _tag: "Ok",
  state: { ...state, txState: txStateOf(state.stateCode) },
  postings: postings.filter((p) => p.delta !== 0n),
  debits
})
export const post = (walletId: bigint, currency: string, bucket: Bucket, delta: bigint): Posting => ({
  walletId,
  currency,
  bucket,
  delta
})

// ---- pure helpers ----------------------------------------------------------------------------

/**
 * payAmount = orderAmount × rate × (1 + spreadPct/100), rounded up to payCurrency's decimals (C16).
 * `orderDecimals` is needed because orderAmount is in minor units of the order currency.
 */
export const quotePayAmount = (
  orderAmount: bigint,
  orderDecimals: number,
  rate: string,
  spreadPct: string,
  payDecimals: number
): bigint => {
  const major = new BigNumber(orderAmount.toString()).shiftedBy(-orderDecimals)
  const factor = new BigNumber(100).plus(spreadPct).shiftedBy(-2)
  const pay = major.times(rate).times(factor).shiftedBy(payDecimals).integerValue(BigNumber.ROUND_CEIL)
  return BigInt(pay.toFixed(0))
}

/** What the payer pays: payAmount + fee (payCurrency); null before a terminal is locked. */
export const totalToPay = (s: OrderState): bigint | null => (s.payAmount === null ? null : s.payAmount + s.fee)

/** A refund's amount in payCurrency: amount × payAmount / orderAmount, rounded down (C16). */
export const refundPayoutAmount = (s: OrderState, amount: bigint): bigint =>
  s.payAmount === null ? amount : (amount * s.payAmount) / s.orderAmount

export const destinationOf = (method: PaymentMethod): RefundDestination =>
  method === "InternalPayment" ? "Wallet" : method === "CardAcquiring" ? "Card" : "Crypto"

export const isPaidLike = (s: OrderState) => s.stateCode >= 8 && s.stateCode <= 10

/** Expiry may happen now: C16's condition (nothing paid, no Pending session, no income in flight). */
export const isDue = (s: OrderState, now: number): boolean => {
  if (now <= s.expiresAt || s.cardSessionPending || s.incomeSeen > 0n) return false
  if (s.stateCode === OrderStateCode.Created || s.stateCode === OrderStateCode.Started) return true
  // An underpaid crypto order whose incomes are all final (decision, docs/PAYMENTS.md).
  return s.kind === "PaymentOrder" && s.stateCode === OrderStateCode.Processing && s.incomeFinal > 0n
}

// ---- creation --------------------------------------------------------------------------------

export interface NewOrder {
  readonly kind: OrderKind
  readonly currency: string
  readonly orderAmount: bigint
  readonly merchantWallet: bigint
  readonly expiresAt: number
  /** TransferOrder: the Payout fee (order currency) and its profit wallet, fixed at creation. */
  readonly fee?: bigint
  readonly profitWallet?: bigint
}

/** A new order's state: Created, nothing paid (also the facts its creation commit stores, OrderRow.ts). */
export const fresh = (o: NewOrder): OrderState => ({
  kind: o.kind,
  stateCode: OrderStateCode.Created,
  txState: 1,
  currency: o.currency,
  orderAmount: o.orderAmount,
  payCurrency: null,
  payAmount: null,
  fee: o.kind === "TransferOrder" ? (o.fee ?? 0n) : 0n,
  profitWallet: o.profitWallet ?? SystemWallet.Fees,
  merchantWallet: o.merchantWallet,
  terminal: null,
  expiresAt: o.expiresAt,
  paidAmount: 0n,
  refundedAmount: 0n,
  pendingRefunds: 0n,
  refundCount: 0,
  payerWalletId: null,
  cardSessionPending: false,
  incomeSeen: 0n,
  incomeFinal: 0n
})

/** put_payment_order / create_payment_order: Created, nothing moves. */
export const createPaymentOrder = (o: Omit<NewOrder, "kind">): Ok => ok(fresh({ ...o, kind: "PaymentOrder" }))

/** put_transfer_order: merchant free ≥ orderAmount + fee (10002); the reserve free → lock_out. */
export const createTransferOrder = (o: Omit<NewOrder, "kind">, merchantFree: bigint): Decision => {
  const s = fresh({ ...o, kind: "TransferOrder" })
  const reserve = s.orderAmount + s.fee
  if (merchantFree < reserve) return reject("BalanceNotEnough")
  return ok(
    s,
    [
      post(s.merchantWallet, s.currency, Bucket.free, -reserve),
      post(s.merchantWallet, s.currency, Bucket.lockOut, reserve)
    ],
    s.merchantWallet
  )
}
