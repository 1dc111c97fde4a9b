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
import { Bucket, type Posting, SystemWallet } from "../../sql/Ledger.ts"
import {
  type Decision,
  isDue,
  isPaidLike,
  ok,
  type OrderKind,
  type OrderState,
  OrderStateCode,
  type PaymentMethod,
  post,
  type Reject,
  reject,
  type TerminalOffer
} from "./Order.ts"

export * from "./Order.ts"
export { refund, refundSettled } from "./Refunds.ts"

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

/**
 * An expired crypto order's final incomes, each as a plain C15 Income of the merchant wallet (C16:
 * "income to an expired order's address is a plain C15 Income of the merchant wallet"): its amount and
 * the Deposit fee C15 charges it (the merchant group's Deposit tariff, capped at the amount).
 */
export interface PlainIncome {
  readonly amount: bigint
  readonly fee: bigint
  readonly profitWallet: bigint
}

const release = (s: OrderState, plain: ReadonlyArray<PlainIncome>): ReadonlyArray<Posting> | null => {
  if (s.kind === "TransferOrder")
    return [reserveOut(s), post(s.merchantWallet, s.currency, Bucket.free, s.orderAmount + s.fee)]
  if (s.incomeFinal === 0n) return []
  // An underpaid crypto order's final incomes: lock_in → free less the C15 Deposit fee of each.
  if (plain.reduce((sum, i) => sum + i.amount, 0n) !== s.incomeFinal) return null
  const pc = s.payCurrency!
  return [
    post(s.merchantWallet, pc, Bucket.lockIn, -s.incomeFinal),
    ...plain.flatMap((i) => [
      post(s.merchantWallet, pc, Bucket.free, i.amount - i.fee),
      ...(i.fee === 0n ? [] : [post(i.profitWallet, pc, Bucket.free, i.fee)])
    ])
  ]
}

/**
 * now > expiresAt with nothing in flight: Expired; a payout's reserve back to free; an underpaid crypto
 * order's final incomes (`plain`, Σ = incomeFinal, else NotAttached) become plain C15 Incomes.
 */
export const expire = (s: OrderState, now: number, plain: ReadonlyArray<PlainIncome> = []): Decision => {
  if (!isDue(s, now)) return reject("NotDue")
  const postings = release(s, plain)
  if (postings === null) return reject("NotAttached")
  return ok({ ...s, stateCode: OrderStateCode.Expired, cardSessionPending: false }, postings)
}

/** cancel_payment_order: Created/Started (else 10302), no Pending session or income (else 10309). */
export const cancel = (s: OrderState, now: number): Decision => {
  if (s.stateCode === OrderStateCode.Expired || isDue(s, now)) return reject("Expired")
  if (s.stateCode > OrderStateCode.Started) return reject("NotPayable")
  if (s.cardSessionPending || s.incomeSeen > 0n) return reject("PaymentPending")
  // Nothing seen: a PaymentOrder has no income to release, a payout its reserve.
  return ok({ ...s, stateCode: OrderStateCode.Canceled }, release(s, []) ?? [])
}
