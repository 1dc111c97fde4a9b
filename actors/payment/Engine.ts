/**
 * The payment-order state machine (CONTRACT C16 "Orders and money", "Order states", "Refunds"), pure
 * functions `(state, input) → Ok { state', postings, debits } | Reject { rule }`. Nothing here does I/O;
 * the actor wraps it with persistence, the tariff and rate look-ups (their results arrive as
 * `TerminalOffer`s and fees) and the wallet actor of the wallet named by `debits`.
 *
 * Money is bigint minor units. An order's amounts live in two currencies: `currency` (orderAmount,
 * paidAmount, refunds, a payout's fee) and `payCurrency` (payAmount, the Payment fee, crypto incomes).
 * Every Ok's postings sum to zero per currency. Rejections are named after their rule; `ruleErrors`
 * maps each to its C16 error tag (schema/PaymentErrors.ts, codes in schema/Errors.ts).
 *
 * Time: every action takes `now` (ms). An order that `isDue` answers `Expired` to every action; the
 * caller then commits `expire(state, now)` and answers 10301 (C16: "commits Expired, then answers 10301").
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

const reject = (rule: Rule): Reject => ({ _tag: "Reject", rule })
const ok = (state: OrderState, postings: ReadonlyArray<Posting> = [], debits: bigint | null = null): Ok => ({
  _tag: "Ok",
  state: { ...state, txState: txStateOf(state.stateCode) },
  postings: postings.filter((p) => p.delta !== 0n),
  debits
})
const post = (walletId: bigint, currency: string, bucket: Bucket, delta: bigint): Posting => ({
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

const destinationOf = (method: PaymentMethod): RefundDestination =>
  method === "InternalPayment" ? "Wallet" : method === "CardAcquiring" ? "Card" : "Crypto"

const isPaidLike = (s: OrderState) => s.stateCode >= 8 && s.stateCode <= 10

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

const fresh = (o: NewOrder): OrderState => ({
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

// ---- start -----------------------------------------------------------------------------------

/** Rejections every pay-side action shares: expired, due, and states that take no payment (10302). */
const gate = (s: OrderState, now: number): Reject | null => {
  if (s.stateCode === OrderStateCode.Expired || isDue(s, now)) return reject("Expired")
  if (s.stateCode > OrderStateCode.Started) return reject("NotPayable")
  return null
}

const lockOn = (s: OrderState, offer: TerminalOffer): Decision => {
  if (s.terminal !== null) return s.terminal.terminalId === offer.terminal.terminalId ? ok(s) : reject("TerminalLocked")
  if (!offer.available) return reject("TerminalNotAvailable")
  const started: OrderState =
    s.kind === "TransferOrder"
      ? { ...s, stateCode: 2, terminal: offer.terminal, payCurrency: s.currency, payAmount: s.orderAmount }
      : {
          ...s,
          stateCode: 2,
          terminal: offer.terminal,
          payCurrency: offer.payCurrency,
          payAmount: offer.payAmount,
          fee: offer.fee,
          profitWallet: offer.profitWallet
        }
  return ok(started)
}

/** order_start: Created → Started (snapshot); same terminal again: unchanged; another: 10304. */
export const start = (s: OrderState, offer: TerminalOffer, now: number): Decision => {
  if (s.stateCode === OrderStateCode.Processing) {
    if (isDue(s, now)) return reject("Expired")
    return s.terminal?.terminalId === offer.terminal.terminalId ? ok(s) : reject("TerminalLocked")
  }
  return gate(s, now) ?? lockOn(s, offer)
}

/** The implicit start of a pay action: kind, gate, lock on the offer, and the method it must have. */
const startFor = (s: OrderState, offer: TerminalOffer, now: number, kind: OrderKind, method: PaymentMethod) => {
  if (s.kind !== kind) return reject("WrongKind")
  const d = start(s, offer, now)
  if (d._tag === "Reject") return d
  if (d.state.stateCode !== OrderStateCode.Started) return reject("NotPayable")
  if (offer.terminal.method !== method) return reject("TerminalNotAvailable")
  return d
}

// ---- paying a PaymentOrder -------------------------------------------------------------------

/** The postings of a paid order: `source` gives totalToPay in payCurrency (Broker takes both legs). */
const settle = (s: OrderState, source: Posting): ReadonlyArray<Posting> => {
  const pc = s.payCurrency!,
    pay = s.payAmount!
  const legs =
    pc === s.currency
      ? []
      : [
          post(SystemWallet.Broker, pc, Bucket.free, pay),
          post(SystemWallet.Broker, s.currency, Bucket.free, -s.orderAmount)
        ]
  return [
    source,
    post(s.merchantWallet, s.currency, Bucket.free, s.orderAmount),
    post(s.profitWallet, pc, Bucket.free, s.fee),
    ...legs
  ]
}

const paid = (s: OrderState, extra: Partial<OrderState> = {}): OrderState => ({
  ...s,
  stateCode: OrderStateCode.Paid,
  paidAmount: s.orderAmount,
  ...extra
})

/** pay_internal: payer ≠ merchant (10008), free ≥ totalToPay (10002); a repeat by the payer is replayed. */
export const payInternal = (
  s: OrderState,
  input: { readonly payer: bigint; readonly payerFree: bigint; readonly offer: TerminalOffer; readonly now: number }
): Decision => {
  if (s.kind === "PaymentOrder" && isPaidLike(s) && s.payerWalletId === input.payer) return { ...ok(s), replayed: true }
  const d = startFor(s, input.offer, input.now, "PaymentOrder", "InternalPayment")
  if (d._tag === "Reject") return d
  const t = d.state
  if (input.payer === t.merchantWallet) return reject("SameAccounts")
  const total = t.payAmount! + t.fee
  if (input.payerFree < total) return reject("BalanceNotEnough")
  const postings = settle(t, post(input.payer, t.payCurrency!, Bucket.free, -total))
  return ok(paid(t, { payerWalletId: input.payer }), postings, input.payer)
}

/** pay_card: Started on a Card terminal, one Pending session (a repeat returns it). */
export const openCardSession = (s: OrderState, offer: TerminalOffer, now: number): Decision => {
  const d = startFor(s, offer, now, "PaymentOrder", "CardAcquiring")
  if (d._tag === "Reject") return d
  return ok({ ...d.state, cardSessionPending: true })
}

/** Acquirer Approved (webhook or reconciliation) of the Pending session: Paid, Treasury pays, exactly once. */
export const cardApproved = (s: OrderState): Decision => {
  if (!s.cardSessionPending || s.stateCode !== OrderStateCode.Started) return reject("NotPayable")
  const total = s.payAmount! + s.fee
  return ok(
    paid(s, { cardSessionPending: false }),
    settle(s, post(SystemWallet.Treasury, s.payCurrency!, Bucket.free, -total))
  )
}

/** Acquirer Declined, or the session expired: Started again, pay_card may open a new session. */
export const cardSessionClosed = (s: OrderState): Decision =>
  s.cardSessionPending ? ok({ ...s, cardSessionPending: false }) : reject("NoPaymentInProgress")

/** pay_crypto: Started on a crypto terminal (the deposit address is the caller's). */
export const payCrypto = (s: OrderState, offer: TerminalOffer, now: number): Decision =>
  startFor(s, offer, now, "PaymentOrder", "CryptoTransfer")

/** cancel_crypto: Started (crypto) → Created, detached; an income seen: 10309. */
export const cancelCrypto = (s: OrderState, now: number): Decision => {
  if (s.kind !== "PaymentOrder") return reject("WrongKind")
  if (s.stateCode === OrderStateCode.Processing) return isDue(s, now) ? reject("Expired") : reject("PaymentPending")
  const g = gate(s, now)
  if (g !== null) return g
  if (s.stateCode !== OrderStateCode.Started || s.terminal?.method !== "CryptoTransfer")
    return reject("NoPaymentInProgress")
  return ok({ ...s, stateCode: 1, terminal: null, payCurrency: null, payAmount: null, fee: 0n })
}

/** A crypto income to the order's address seen (not final): Treasury −A, merchant lock_in +A; Processing. */
export const cryptoIncomeSeen = (s: OrderState, amount: bigint, now: number): Decision => {
  if (s.kind !== "PaymentOrder") return reject("WrongKind")
  if (amount <= 0n) return reject("InvalidAmount")
  if (s.stateCode === OrderStateCode.Expired || isDue(s, now)) return reject("Expired")
  if (s.stateCode !== OrderStateCode.Started && s.stateCode !== OrderStateCode.Processing) return reject("NotPayable")
  if (s.terminal?.method !== "CryptoTransfer") return reject("NotPayable")
  const pc = s.payCurrency!
  return ok({ ...s, stateCode: OrderStateCode.Processing, incomeSeen: s.incomeSeen + amount }, [
    post(SystemWallet.Treasury, pc, Bucket.free, -amount),
    post(s.merchantWallet, pc, Bucket.lockIn, amount)
  ])
}

/**
 * A seen income became final. Unpaid and Σ final ≥ totalToPay: Paid — lock_in −Σ, merchant free
 * +orderAmount (+ the excess in payCurrency), fee → profit. Already paid: the late income is the
 * merchant's (lock_in → free). Otherwise it waits in lock_in.
 */
export const cryptoFinal = (s: OrderState, amount: bigint): Decision => {
  if (amount <= 0n || s.incomeSeen < amount) return reject("NotAttached")
  const pc = s.payCurrency!
  const t: OrderState = { ...s, incomeSeen: s.incomeSeen - amount, incomeFinal: s.incomeFinal + amount }
  if (isPaidLike(s))
    return ok(t, [post(s.merchantWallet, pc, Bucket.lockIn, -amount), post(s.merchantWallet, pc, Bucket.free, amount)])
  const total = s.payAmount! + s.fee
  if (t.incomeFinal < total) return ok(t)
  const postings = [
    ...settle(t, post(s.merchantWallet, pc, Bucket.lockIn, -t.incomeFinal)),
    post(s.merchantWallet, pc, Bucket.free, t.incomeFinal - total)
  ]
  return ok(paid(t), postings)
}

/** A seen income orphaned before final: reversed; with nothing else in flight the order is Started again. */
export const cryptoOrphaned = (s: OrderState, amount: bigint): Decision => {
  if (amount <= 0n || s.incomeSeen < amount) return reject("NotAttached")
  const pc = s.payCurrency!
  const incomeSeen = s.incomeSeen - amount
  const back = s.stateCode === OrderStateCode.Processing && incomeSeen === 0n && s.incomeFinal === 0n
  return ok({ ...s, incomeSeen, stateCode: back ? OrderStateCode.Started : s.stateCode }, [
    post(s.merchantWallet, pc, Bucket.lockIn, -amount),
    post(SystemWallet.Treasury, pc, Bucket.free, amount)
  ])
}

// ---- payouts ---------------------------------------------------------------------------------

const reserveOut = (s: OrderState): Posting =>
  post(s.merchantWallet, s.currency, Bucket.lockOut, -(s.orderAmount + s.fee))

/** pay_transfer, internal: recipient ≠ merchant (10008); lock_out −(amount+fee), recipient +amount, fee → profit. */
export const payTransferInternal = (
  s: OrderState,
  input: { readonly recipient: bigint; readonly offer: TerminalOffer; readonly now: number }
): Decision => {
  const d = startFor(s, input.offer, input.now, "TransferOrder", "InternalPayment")
  if (d._tag === "Reject") return d
  const t = d.state
  if (input.recipient === t.merchantWallet) return reject("SameAccounts")
  return ok(paid(t, { payerWalletId: input.recipient }), [
    reserveOut(t),
    post(input.recipient, t.currency, Bucket.free, t.orderAmount),
    post(t.profitWallet, t.currency, Bucket.free, t.fee)
  ])
}

/** pay_transfer, crypto: Processing; the reserve stays in lock_out for the C15 withdrawal. */
export const payTransferCrypto = (s: OrderState, offer: TerminalOffer, now: number): Decision => {
  const d = startFor(s, offer, now, "TransferOrder", "CryptoTransfer")
  if (d._tag === "Reject") return d
  return ok({ ...d.state, stateCode: OrderStateCode.Processing })
}

/** The C15 withdrawal of a crypto payout settled: final → Paid (lock_out → Treasury, fee); failed → Failed, reserve → free. */
export const payoutSettled = (s: OrderState, final: boolean): Decision => {
  if (s.kind !== "TransferOrder" || s.stateCode !== OrderStateCode.Processing) return reject("NotPayable")
  const reserve = s.orderAmount + s.fee
  if (!final)
    return ok({ ...s, stateCode: OrderStateCode.Failed }, [
      reserveOut(s),
      post(s.merchantWallet, s.currency, Bucket.free, reserve)
    ])
  return ok(paid(s), [
    reserveOut(s),
    post(SystemWallet.Treasury, s.currency, Bucket.free, s.orderAmount),
    post(s.profitWallet, s.currency, Bucket.free, s.fee)
  ])
}

// ---- expiry and cancel -----------------------------------------------------------------------

const release = (s: OrderState): ReadonlyArray<Posting> => {
  if (s.kind === "TransferOrder")
    return [reserveOut(s), post(s.merchantWallet, s.currency, Bucket.free, s.orderAmount + s.fee)]
  if (s.incomeFinal === 0n) return []
  // An underpaid crypto order's final incomes become the merchant's plain income (C16: income to an
  // expired order's address is a plain Income of the merchant wallet).
  const pc = s.payCurrency!
  return [
    post(s.merchantWallet, pc, Bucket.lockIn, -s.incomeFinal),
    post(s.merchantWallet, pc, Bucket.free, s.incomeFinal)
  ]
}

/** now > expiresAt with nothing in flight: Expired; a payout's reserve back to free. */
export const expire = (s: OrderState, now: number): Decision =>
  isDue(s, now)
    ? ok({ ...s, stateCode: OrderStateCode.Expired, cardSessionPending: false }, release(s))
    : reject("NotDue")

/** cancel_payment_order: Created/Started (else 10302), no Pending session or income (else 10309). */
export const cancel = (s: OrderState, now: number): Decision => {
  if (s.stateCode === OrderStateCode.Expired || isDue(s, now)) return reject("Expired")
  if (s.stateCode > OrderStateCode.Started) return reject("NotPayable")
  if (s.cardSessionPending || s.incomeSeen > 0n) return reject("PaymentPending")
  return ok({ ...s, stateCode: OrderStateCode.Canceled }, release(s))
}

// ---- refunds ---------------------------------------------------------------------------------

const refundedState = (s: OrderState, refunded: bigint): OrderStateCode =>
  refunded === 0n
    ? OrderStateCode.Paid
    : refunded >= s.paidAmount
      ? OrderStateCode.Refunded
      : OrderStateCode.PartiallyRefunded

/** Where `amount` (order currency) ends in payCurrency: `target` +payoutAmount, the Broker takes both legs. */
const payOut = (s: OrderState, amount: bigint, payoutAmount: bigint, target: Posting): ReadonlyArray<Posting> => {
  const pc = s.payCurrency!
  const legs =
    pc === s.currency
      ? []
      : [
          post(SystemWallet.Broker, s.currency, Bucket.free, amount),
          post(SystemWallet.Broker, pc, Bucket.free, -payoutAmount)
        ]
  return [target, ...legs]
}

/**
 * refund_payment. Paid/PartiallyRefunded PaymentOrders only (10320), ≤ 100 per order (10324), a crypto
 * refund needs an address (10323), Σ pending + finished + amount ≤ paidAmount (10321), merchant free ≥
 * amount + fee (10002). `amount` null: all still refundable. The merchant pays amount + fee (Refund
 * tariff, order currency, fee → `feeProfitWallet`). Wallet: payer free +payoutAmount; Card: Treasury
 * +payoutAmount; both Finished at once. Crypto: amount + fee free → lock_out, Pending (`refundSettled`).
 */
export const refund = (
  s: OrderState,
  input: {
    readonly amount: bigint | null
    readonly fee: bigint
    readonly feeProfitWallet: bigint
    readonly merchantFree: bigint
    readonly hasRefundAddress: boolean
  }
): Decision => {
  if (s.kind !== "PaymentOrder" || !isPaidLike(s) || s.terminal === null) return reject("NotRefundable")
  if (s.refundCount >= maxRefundsPerOrder) return reject("TooManyRefunds")
  const destination = destinationOf(s.terminal.method)
  if (destination === "Crypto" && !input.hasRefundAddress) return reject("RefundAddressRequired")
  const left = s.paidAmount - s.refundedAmount - s.pendingRefunds
  const amount = input.amount ?? left
  if (input.amount !== null && amount <= 0n) return reject("InvalidAmount")
  if (amount <= 0n || amount > left) return reject("RefundExceedsPaid")
  if (input.merchantFree < amount + input.fee) return reject("BalanceNotEnough")
  const m = s.merchantWallet,
    c = s.currency,
    pc = s.payCurrency!
  const payoutAmount = refundPayoutAmount(s, amount)
  const figures = { amount, fee: input.fee, destination, payoutAmount, payoutCurrency: pc }
  const counted = { ...s, refundCount: s.refundCount + 1 }
  if (destination === "Crypto")
    return {
      ...ok(
        { ...counted, pendingRefunds: s.pendingRefunds + amount },
        [post(m, c, Bucket.free, -(amount + input.fee)), post(m, c, Bucket.lockOut, amount + input.fee)],
        m
      ),
      refund: { ...figures, finished: false }
    }
  const target = destination === "Wallet" ? s.payerWalletId! : SystemWallet.Treasury
  const refunded = s.refundedAmount + amount
  return {
    ...ok(
      { ...counted, refundedAmount: refunded, stateCode: refundedState(s, refunded) },
      [
        post(m, c, Bucket.free, -(amount + input.fee)),
        post(input.feeProfitWallet, c, Bucket.free, input.fee),
        ...payOut(s, amount, payoutAmount, post(target, pc, Bucket.free, payoutAmount))
      ],
      m
    ),
    refund: { ...figures, finished: true }
  }
}

/**
 * A pending crypto refund settled by its C15 Refund. Final: lock_out −(amount+fee), fee → profit,
 * Treasury +payoutAmount (Broker legs), refunded += amount. Failed: the reserve back to free.
 */
export const refundSettled = (
  s: OrderState,
  input: { readonly amount: bigint; readonly fee: bigint; readonly feeProfitWallet: bigint; readonly final: boolean }
): Decision => {
  if (input.amount <= 0n || s.pendingRefunds < input.amount) return reject("NotAttached")
  const m = s.merchantWallet,
    c = s.currency,
    held = input.amount + input.fee
  const pendingRefunds = s.pendingRefunds - input.amount
  if (!input.final)
    return ok({ ...s, pendingRefunds }, [post(m, c, Bucket.lockOut, -held), post(m, c, Bucket.free, held)])
  const refunded = s.refundedAmount + input.amount
  const payoutAmount = refundPayoutAmount(s, input.amount)
  return ok({ ...s, pendingRefunds, refundedAmount: refunded, stateCode: refundedState(s, refunded) }, [
    post(m, c, Bucket.lockOut, -held),
    post(input.feeProfitWallet, c, Bucket.free, input.fee),
    ...payOut(s, input.amount, payoutAmount, post(SystemWallet.Treasury, s.payCurrency!, Bucket.free, payoutAmount))
  ])
}
