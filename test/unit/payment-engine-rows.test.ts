/**
 * CONTRACT C16's order-state table, one `it` per row (and the Refunds rules), against the pure engine
 * (actors/payment/Engine.ts). The random walk against the model is payment-engine-model.test.ts.
 */
import { describe, expect, it } from "vitest"
import * as E from "../../actors/payment/Engine.ts"
import { errorCodes } from "../../schema/Errors.ts"
import { Bucket, type Posting, SystemWallet } from "../../sql/Ledger.ts"

const M = 100n, // merchant wallet
  P = 200n, // payer
  R = 201n // payout recipient
const T0 = 1_000_000
const EXP = T0 + 3_600_000

const internal = (payCurrency = "EUR", payAmount = 10_000n, fee = 100n): E.TerminalOffer => ({
  terminal: { terminalId: 1n, method: "InternalPayment", rate: "1", spreadPct: "0" },
  payCurrency,
  payAmount,
  fee,
  profitWallet: SystemWallet.Fees,
  available: true
})
const card = (available = true): E.TerminalOffer => ({
  terminal: { terminalId: 2n, method: "CardAcquiring", rate: "1.0834", spreadPct: "1" },
  payCurrency: "USD",
  payAmount: E.quotePayAmount(10_000n, 2, "1.0834", "1", 2),
  fee: 50n,
  profitWallet: SystemWallet.Fees,
  available
})
const crypto = (): E.TerminalOffer => ({
  terminal: { terminalId: 4n, method: "CryptoTransfer", rate: "1", spreadPct: "0" },
  payCurrency: "EUR",
  payAmount: 10_000n,
  fee: 100n,
  profitWallet: SystemWallet.Fees,
  available: true
})

const order = () =>
  E.createPaymentOrder({ currency: "EUR", orderAmount: 10_000n, merchantWallet: M, expiresAt: EXP }).state
const payout = () => {
  const d = E.createTransferOrder(
    { currency: "EUR", orderAmount: 10_000n, merchantWallet: M, expiresAt: EXP, fee: 30n, profitWallet: 300n },
    1_000_000n
  )
  if (d._tag !== "Ok") throw new Error("payout")
  return d.state
}
const okOf = (d: E.Decision): E.Ok => {
  if (d._tag !== "Ok") throw new Error(`expected Ok, got ${d.rule}`)
  return d
}
const ruleOf = (d: E.Decision) => (d._tag === "Reject" ? d.rule : "Ok")
const p = (walletId: bigint, currency: string, bucket: number, delta: bigint): Posting => ({
  walletId,
  currency,
  bucket: bucket as Posting["bucket"],
  delta
})
const started = (offer: E.TerminalOffer, s = order()) => okOf(E.start(s, offer, T0)).state
const paidInternally = () =>
  okOf(E.payInternal(order(), { payer: P, payerFree: 1_000_000n, offer: internal(), now: T0 })).state

describe("C16 order states, row by row", () => {
  it("- → Created: put_payment_order moves nothing", () => {
    const d = E.createPaymentOrder({ currency: "EUR", orderAmount: 10_000n, merchantWallet: M, expiresAt: EXP })
    expect([d.state.stateCode, d.state.txState, d.postings]).toEqual([1, 1, []])
    expect(E.stateName(d.state.stateCode)).toBe("Created")
  })

  it("- → Created: put_transfer_order reserves orderAmount + fee free → lock_out (else 10002)", () => {
    const o = { currency: "EUR", orderAmount: 10_000n, merchantWallet: M, expiresAt: EXP, fee: 30n }
    expect(ruleOf(E.createTransferOrder(o, 10_029n))).toBe("BalanceNotEnough")
    const d = okOf(E.createTransferOrder(o, 10_030n))
    expect(d.postings).toEqual([p(M, "EUR", Bucket.free, -10_030n), p(M, "EUR", Bucket.lockOut, 10_030n)])
    expect(d.debits).toBe(M)
  })

  it("Created → Started on order_start: the snapshot is locked; not available → 10303", () => {
    expect(ruleOf(E.start(order(), card(false), T0))).toBe("TerminalNotAvailable")
    const s = started(card())
    expect(s.stateCode).toBe(2)
    expect([s.payCurrency, s.payAmount, s.fee, s.terminal?.rate]).toEqual(["USD", 10_943n, 50n, "1.0834"])
  })

  it("Started → Started on order_start with the same terminal: the same snapshot", () => {
    const s = started(card())
    const again = okOf(E.start(s, { ...card(), payAmount: 1n, fee: 9n }, T0))
    expect(again.state).toEqual(s)
  })

  it("Started, Processing → unchanged with 10304 for another terminal (order_start or a pay action)", () => {
    const s = started(card())
    expect(ruleOf(E.start(s, internal(), T0))).toBe("TerminalLocked")
    expect(ruleOf(E.payInternal(s, { payer: P, payerFree: 10n ** 9n, offer: internal(), now: T0 }))).toBe(
      "TerminalLocked"
    )
    const processing = okOf(E.cryptoIncomeSeen(started(crypto()), 5n, T0)).state
    expect(ruleOf(E.start(processing, card(), T0))).toBe("TerminalLocked")
  })

  it("Started (internal) → Paid on pay_internal: payer −total, merchant +orderAmount, fee → profit", () => {
    const s = started(internal())
    expect(ruleOf(E.payInternal(s, { payer: M, payerFree: 10n ** 9n, offer: internal(), now: T0 }))).toBe(
      "SameAccounts"
    )
    expect(ruleOf(E.payInternal(s, { payer: P, payerFree: 10_099n, offer: internal(), now: T0 }))).toBe(
      "BalanceNotEnough"
    )
    const d = okOf(E.payInternal(s, { payer: P, payerFree: 10_100n, offer: internal(), now: T0 }))
    expect(d.postings).toEqual([
      p(P, "EUR", Bucket.free, -10_100n),
      p(M, "EUR", Bucket.free, 10_000n),
      p(SystemWallet.Fees, "EUR", Bucket.free, 100n)
    ])
    expect([d.state.stateCode, d.state.paidAmount, d.state.payerWalletId, d.debits]).toEqual([8, 10_000n, P, P])
    // One payment per order: a repeat by the payer is replayed, anyone else 10302.
    expect(okOf(E.payInternal(d.state, { payer: P, payerFree: 0n, offer: internal(), now: T0 })).replayed).toBe(true)
    expect(ruleOf(E.payInternal(d.state, { payer: 202n, payerFree: 10n ** 9n, offer: internal(), now: T0 }))).toBe(
      "NotPayable"
    )
  })

  it("Started (card) → Started on pay_card: one Pending session, a repeat returns it", () => {
    const s = okOf(E.openCardSession(order(), card(), T0)).state
    expect([s.stateCode, s.cardSessionPending]).toEqual([2, true])
    expect(okOf(E.openCardSession(s, card(), T0)).state).toEqual(s)
  })

  it("Started (card) → Paid on Approved, exactly once: Treasury pays, the Broker takes both legs", () => {
    const s = okOf(E.openCardSession(order(), card(), T0)).state
    const d = okOf(E.cardApproved(s))
    expect(d.postings).toEqual([
      p(SystemWallet.Treasury, "USD", Bucket.free, -10_993n),
      p(M, "EUR", Bucket.free, 10_000n),
      p(SystemWallet.Fees, "USD", Bucket.free, 50n),
      p(SystemWallet.Broker, "USD", Bucket.free, 10_943n),
      p(SystemWallet.Broker, "EUR", Bucket.free, -10_000n)
    ])
    expect(d.debits).toBe(null)
    expect(ruleOf(E.cardApproved(d.state))).toBe("NotPayable")
  })

  it("Started (card) → Started on Declined or session expiry: pay_card may open a new session", () => {
    const s = okOf(E.openCardSession(order(), card(), T0)).state
    const closed = okOf(E.cardSessionClosed(s)).state
    expect([closed.stateCode, closed.cardSessionPending]).toEqual([2, false])
    expect(ruleOf(E.cardApproved(closed))).toBe("NotPayable")
    expect(okOf(E.openCardSession(closed, card(), T0)).state.cardSessionPending).toBe(true)
  })

  it("Started (crypto) → Started on pay_crypto", () => {
    const d = okOf(E.payCrypto(order(), crypto(), T0))
    expect([d.state.stateCode, d.state.terminal?.method, d.postings]).toEqual([2, "CryptoTransfer", []])
  })

  it("Started (crypto) → Created on cancel_crypto: detached; an income seen → 10309", () => {
    const s = started(crypto())
    const back = okOf(E.cancelCrypto(s, T0)).state
    expect([back.stateCode, back.terminal, back.payAmount, back.fee]).toEqual([1, null, null, 0n])
    expect(ruleOf(E.cancelCrypto(okOf(E.cryptoIncomeSeen(s, 1n, T0)).state, T0))).toBe("PaymentPending")
    expect(ruleOf(E.cancelCrypto(started(card()), T0))).toBe("NoPaymentInProgress")
  })

  it("Started (crypto) → Processing on an income seen: Treasury −A, merchant lock_in +A", () => {
    const d = okOf(E.cryptoIncomeSeen(started(crypto()), 4_000n, T0))
    expect(d.state.stateCode).toBe(3)
    expect(d.postings).toEqual([
      p(SystemWallet.Treasury, "EUR", Bucket.free, -4_000n),
      p(M, "EUR", Bucket.lockIn, 4_000n)
    ])
    // Orphaned before final: reversed, Started again.
    const o = okOf(E.cryptoOrphaned(d.state, 4_000n))
    expect(o.state.stateCode).toBe(2)
    expect(o.postings).toEqual([
      p(M, "EUR", Bucket.lockIn, -4_000n),
      p(SystemWallet.Treasury, "EUR", Bucket.free, 4_000n)
    ])
  })

  it("Started, Processing → Paid when Σ final ≥ totalToPay: the excess is the merchant's", () => {
    let s = okOf(E.cryptoIncomeSeen(started(crypto()), 6_000n, T0)).state
    s = okOf(E.cryptoIncomeSeen(s, 4_200n, T0)).state
    const first = okOf(E.cryptoFinal(s, 6_000n))
    expect([first.state.stateCode, first.postings]).toEqual([3, []])
    const d = okOf(E.cryptoFinal(first.state, 4_200n))
    expect(d.state.stateCode).toBe(8)
    expect(d.postings).toEqual([
      p(M, "EUR", Bucket.lockIn, -10_200n),
      p(M, "EUR", Bucket.free, 10_000n),
      p(SystemWallet.Fees, "EUR", Bucket.free, 100n),
      p(M, "EUR", Bucket.free, 100n)
    ])
  })

  it("Started (payout, internal) → Paid on pay_transfer: lock_out −(amount+fee), recipient +amount, fee → profit", () => {
    const offer = internal()
    expect(ruleOf(E.payTransferInternal(payout(), { recipient: M, offer, now: T0 }))).toBe("SameAccounts")
    expect(ruleOf(E.payInternal(payout(), { payer: P, payerFree: 10n ** 9n, offer, now: T0 }))).toBe("WrongKind")
    const d = okOf(E.payTransferInternal(payout(), { recipient: R, offer, now: T0 }))
    expect(d.postings).toEqual([
      p(M, "EUR", Bucket.lockOut, -10_030n),
      p(R, "EUR", Bucket.free, 10_000n),
      p(300n, "EUR", Bucket.free, 30n)
    ])
    expect([d.state.stateCode, d.state.fee, d.debits]).toEqual([8, 30n, null])
  })

  it("Started (payout, crypto) → Processing → Paid or Failed (the reserve back to free)", () => {
    const s = okOf(E.payTransferCrypto(payout(), crypto(), T0)).state
    expect(s.stateCode).toBe(3)
    expect(okOf(E.payoutSettled(s, true)).postings).toEqual([
      p(M, "EUR", Bucket.lockOut, -10_030n),
      p(SystemWallet.Treasury, "EUR", Bucket.free, 10_000n),
      p(300n, "EUR", Bucket.free, 30n)
    ])
    const failed = okOf(E.payoutSettled(s, false))
    expect([failed.state.stateCode, failed.state.txState]).toEqual([18, 16])
    expect(failed.postings).toEqual([p(M, "EUR", Bucket.lockOut, -10_030n), p(M, "EUR", Bucket.free, 10_030n)])
  })

  it("Created, Started → Expired once now > expiresAt, unless a Pending session or an income holds it", () => {
    expect(ruleOf(E.expire(order(), EXP))).toBe("NotDue")
    expect(okOf(E.expire(order(), EXP + 1)).state.stateCode).toBe(16)
    expect(okOf(E.expire(payout(), EXP + 1)).postings).toEqual([
      p(M, "EUR", Bucket.lockOut, -10_030n),
      p(M, "EUR", Bucket.free, 10_030n)
    ])
    const pending = okOf(E.openCardSession(order(), card(), T0)).state
    expect(ruleOf(E.expire(pending, EXP + 1))).toBe("NotDue")
    expect(okOf(E.cardApproved(pending)).state.stateCode).toBe(8) // a late approval still pays
    const seen = okOf(E.cryptoIncomeSeen(started(crypto()), 1n, T0)).state
    expect(ruleOf(E.expire(seen, EXP + 1))).toBe("NotDue")
    // Any action past expiresAt answers Expired (10301); the caller commits expire first.
    expect(ruleOf(E.payInternal(order(), { payer: P, payerFree: 10n ** 9n, offer: internal(), now: EXP + 1 }))).toBe(
      "Expired"
    )
  })

  it("Created, Started → Canceled on cancel_payment_order (10309 while pending, 10302 past Started)", () => {
    expect(okOf(E.cancel(started(internal()), T0)).state.stateCode).toBe(17)
    expect(okOf(E.cancel(payout(), T0)).postings).toEqual([
      p(M, "EUR", Bucket.lockOut, -10_030n),
      p(M, "EUR", Bucket.free, 10_030n)
    ])
    expect(ruleOf(E.cancel(okOf(E.openCardSession(order(), card(), T0)).state, T0))).toBe("PaymentPending")
    expect(ruleOf(E.cancel(paidInternally(), T0))).toBe("NotPayable")
    expect(ruleOf(E.cancel(order(), EXP + 1))).toBe("Expired")
  })

  it("Paid, PartiallyRefunded → PartiallyRefunded, Refunded on refund_payment (Wallet destination)", () => {
    const base = { fee: 5n, feeProfitWallet: SystemWallet.Fees, merchantFree: 10n ** 9n, hasRefundAddress: false }
    const d = okOf(E.refund(paidInternally(), { ...base, amount: 4_000n }))
    expect(d.postings).toEqual([
      p(M, "EUR", Bucket.free, -4_005n),
      p(SystemWallet.Fees, "EUR", Bucket.free, 5n),
      p(P, "EUR", Bucket.free, 4_000n)
    ])
    expect([d.state.stateCode, d.state.refundedAmount, d.refund?.destination, d.refund?.finished]).toEqual([
      9,
      4_000n,
      "Wallet",
      true
    ])
    expect(ruleOf(E.refund(d.state, { ...base, amount: 6_001n }))).toBe("RefundExceedsPaid")
    expect(ruleOf(E.refund(d.state, { ...base, amount: 6_000n, merchantFree: 6_004n }))).toBe("BalanceNotEnough")
    const all = okOf(E.refund(d.state, { ...base, amount: null }))
    expect([all.state.stateCode, all.state.refundedAmount, all.state.txState]).toEqual([10, 10_000n, 8])
    expect(ruleOf(E.refund(all.state, { ...base, amount: null }))).toBe("NotRefundable")
  })
})

describe("C16 refunds and helpers", () => {
  const base = { fee: 0n, feeProfitWallet: SystemWallet.Fees, merchantFree: 10n ** 9n, hasRefundAddress: true }

  it("only Paid or PartiallyRefunded PaymentOrders are refundable (10320); ≤ 100 refunds (10324)", () => {
    expect(ruleOf(E.refund(started(internal()), { ...base, amount: 1n }))).toBe("NotRefundable")
    const paidPayout = okOf(E.payTransferInternal(payout(), { recipient: R, offer: internal(), now: T0 })).state
    expect(ruleOf(E.refund(paidPayout, { ...base, amount: 1n }))).toBe("NotRefundable")
    let s = paidInternally()
    for (let i = 0; i < E.maxRefundsPerOrder; i++) s = okOf(E.refund(s, { ...base, amount: 1n })).state
    expect(ruleOf(E.refund(s, { ...base, amount: 1n }))).toBe("TooManyRefunds")
  })

  it("a card refund pays Treasury payoutAmount = amount × payAmount / orderAmount rounded down, via the Broker", () => {
    const s = okOf(E.cardApproved(okOf(E.openCardSession(order(), card(), T0)).state)).state
    const d = okOf(E.refund(s, { ...base, amount: 3_333n }))
    expect(d.refund?.payoutAmount).toBe((3_333n * 10_943n) / 10_000n)
    expect(d.postings).toEqual([
      p(M, "EUR", Bucket.free, -3_333n),
      p(SystemWallet.Treasury, "USD", Bucket.free, 3_647n),
      p(SystemWallet.Broker, "EUR", Bucket.free, 3_333n),
      p(SystemWallet.Broker, "USD", Bucket.free, -3_647n)
    ])
  })

  it("a crypto refund needs an address (10323), holds amount + fee in lock_out and counts against paidAmount while Pending", () => {
    let s = okOf(E.cryptoIncomeSeen(started(crypto()), 10_100n, T0)).state
    s = okOf(E.cryptoFinal(s, 10_100n)).state
    expect(ruleOf(E.refund(s, { ...base, amount: 1n, hasRefundAddress: false }))).toBe("RefundAddressRequired")
    const d = okOf(E.refund(s, { ...base, amount: 6_000n, fee: 7n }))
    expect([d.state.stateCode, d.state.pendingRefunds, d.refund?.finished]).toEqual([8, 6_000n, false])
    expect(d.postings).toEqual([p(M, "EUR", Bucket.free, -6_007n), p(M, "EUR", Bucket.lockOut, 6_007n)])
    expect(ruleOf(E.refund(d.state, { ...base, amount: 4_001n }))).toBe("RefundExceedsPaid")
    const failed = okOf(
      E.refundSettled(d.state, { amount: 6_000n, fee: 7n, feeProfitWallet: SystemWallet.Fees, final: false })
    )
    expect([failed.state.pendingRefunds, failed.state.refundedAmount]).toEqual([0n, 0n])
    const done = okOf(
      E.refundSettled(d.state, { amount: 6_000n, fee: 7n, feeProfitWallet: SystemWallet.Fees, final: true })
    )
    expect([done.state.stateCode, done.state.refundedAmount]).toEqual([9, 6_000n])
  })

  it("quotePayAmount rounds up to payCurrency's decimals; totalToPay = payAmount + fee", () => {
    expect(E.quotePayAmount(10_000n, 2, "1.0834", "1", 2)).toBe(10_943n) // 109.4234 → 109.43
    expect(E.quotePayAmount(1n, 2, "0.0000113", "1", 8)).toBe(12n) // 0.000000114113 BTC → 12 sat
    expect(E.quotePayAmount(10_000n, 2, "1", "0", 2)).toBe(10_000n)
    expect(E.totalToPay(order())).toBe(null)
    expect(E.totalToPay(started(card()))).toBe(10_993n)
  })

  it("state names, txState marks, and every rule's error is in the code table", () => {
    expect([1, 2, 3, 8, 9, 10, 16, 17, 18].map(E.stateName)).toEqual([
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
    expect([1, 2, 3, 8, 9, 10, 16, 17, 18].map(E.txStateOf)).toEqual([1, 1, 1, 8, 8, 8, 16, 16, 16])
    const codes = Object.values(E.ruleErrors)
      .filter((tag) => tag !== null)
      .map((tag) => errorCodes[tag][0])
    expect(codes).toEqual([
      10301, 10302, 10303, 10304, 10306, 10307, 10008, 10002, 10309, 10320, 10321, 10323, 10324, 10001
    ])
  })
})
