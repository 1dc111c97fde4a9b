/**
 * An independent model of C16's payment-order table for test/unit/payment-engine-model.test.ts,
 * written from the contract's tables, not from actors/payment/Engine.ts: an order is a mutable record
 * with its state as a name, each action is a row of data — the states it applies in and its guards as
 * (rule, predicate) pairs tried in order — and money moves as transfers between (wallet, currency,
 * bucket) accounts of one ledger, so the model is double-entry by construction.
 */

export type StateName =
  "Created" | "Started" | "Processing" | "Paid" | "PartiallyRefunded" | "Refunded" | "Expired" | "Canceled" | "Failed"

export type Method = "InternalPayment" | "CardAcquiring" | "CryptoTransfer"
export const TREASURY = -1n
export const FEES = -2n
export const BROKER = -3n

export interface ModelOffer {
  readonly id: bigint
  readonly method: Method
  readonly payCur: string
  readonly payAmt: bigint
  readonly fee: bigint
  readonly profit: bigint
  readonly available: boolean
}

export interface ModelOrder {
  kind: "PaymentOrder" | "TransferOrder"
  st: StateName
  cur: string
  amt: bigint
  payCur: string | null
  payAmt: bigint | null
  fee: bigint
  profit: bigint
  merchant: bigint
  term: { id: bigint; method: Method } | null
  exp: number
  paid: bigint
  refunded: bigint
  pending: bigint
  count: number
  payer: bigint | null
  card: boolean
  seen: bigint
  fin: bigint
}

import { type BucketName, Ledger } from "./PaymentLedger.ts"

export { Ledger }

export type ModelResult =
  { readonly ok: true; readonly replayed?: boolean } | { readonly ok: false; readonly rule: string }

type Guard = readonly [rule: string, refuses: () => boolean]

const ACTIVE: ReadonlyArray<StateName> = ["Created", "Started"]
const PAID: ReadonlyArray<StateName> = ["Paid", "PartiallyRefunded", "Refunded"]

export class PaymentModel {
  constructor(readonly ledger: Ledger) {}

  newPayment(cur: string, amt: bigint, merchant: bigint, exp: number): ModelOrder {
    return this.blank("PaymentOrder", cur, amt, merchant, exp, 0n, FEES)
  }

  newTransfer(cur: string, amt: bigint, merchant: bigint, exp: number, fee: bigint, profit: bigint) {
    if (this.ledger.get(merchant, cur) < amt + fee) return { ok: false as const, rule: "BalanceNotEnough" }
    this.ledger.move([merchant, cur, "free"], [merchant, cur, "lockOut"], amt + fee)
    return { ok: true as const, order: this.blank("TransferOrder", cur, amt, merchant, exp, fee, profit) }
  }

  private blank(
    kind: ModelOrder["kind"],
    cur: string,
    amt: bigint,
    merchant: bigint,
    exp: number,
    fee: bigint,
    profit: bigint
  ) {
    const o: ModelOrder = {
      kind,
      st: "Created",
      cur,
      amt,
      payCur: null,
      payAmt: null,
      fee,
      profit,
      merchant,
      term: null,
      exp,
      paid: 0n,
      refunded: 0n,
      pending: 0n,
      count: 0,
      payer: null,
      card: false,
      seen: 0n,
      fin: 0n
    }
    return o
  }

  /** C16: "now > expiresAt, no Pending session, no income" (+ an underpaid crypto order whose incomes are all final). */
  due(o: ModelOrder, now: number): boolean {
    if (!(now > o.exp) || o.card || o.seen !== 0n) return false
    return ACTIVE.includes(o.st) || (o.kind === "PaymentOrder" && o.st === "Processing" && o.fin > 0n)
  }

  private run(guards: ReadonlyArray<Guard>, effect: () => ModelResult | void): ModelResult {
    for (const [rule, refuses] of guards) if (refuses()) return { ok: false, rule }
    return effect() ?? { ok: true }
  }

  private expiredGuards(o: ModelOrder, now: number): ReadonlyArray<Guard> {
    return [["Expired", () => o.st === "Expired" || this.due(o, now)]]
  }

  /** Rows "Created → Started", "Started same terminal", "Started/Processing other terminal: 10304". */
  start(o: ModelOrder, offer: ModelOffer, now: number): ModelResult {
    return this.run(
      [
        ...this.expiredGuards(o, now),
        ["TerminalLocked", () => (o.st === "Started" || o.st === "Processing") && o.term!.id !== offer.id],
        ["NotPayable", () => !["Created", "Started", "Processing"].includes(o.st)],
        ["TerminalNotAvailable", () => o.st === "Created" && !offer.available]
      ],
      () => {
        if (o.st !== "Created") return
        o.st = "Started"
        o.term = { id: offer.id, method: offer.method }
        if (o.kind === "TransferOrder") {
          o.payCur = o.cur
          o.payAmt = o.amt
        } else {
          o.payCur = offer.payCur
          o.payAmt = offer.payAmt
          o.fee = offer.fee
          o.profit = offer.profit
        }
      }
    )
  }

  /** An implicit start followed by the pay action's own rule: it needs a Started order on a terminal of `method`. */
  private implicit(o: ModelOrder, offer: ModelOffer, now: number, kind: ModelOrder["kind"], method: Method) {
    if (o.kind !== kind) return { ok: false as const, rule: "WrongKind" }
    const snapshot = { ...o }
    const r = this.start(o, offer, now)
    if (!r.ok) return r
    const refuse = o.st !== "Started" ? "NotPayable" : offer.method !== method ? "TerminalNotAvailable" : null
    if (refuse !== null) {
      Object.assign(o, snapshot)
      return { ok: false as const, rule: refuse }
    }
    return { ok: true as const, undo: () => Object.assign(o, snapshot) }
  }

  /** The money of a paid order: `from` gives totalToPay; merchant +orderAmount; fee → profit; Broker legs. */
  private settle(o: ModelOrder, from: [bigint, string, BucketName]) {
    const pc = o.payCur!
    this.ledger.move(from, [o.profit, pc, "free"], o.fee)
    if (pc === o.cur) this.ledger.move(from, [o.merchant, o.cur, "free"], o.amt)
    else {
      this.ledger.move(from, [BROKER, pc, "free"], o.payAmt!)
      this.ledger.move([BROKER, o.cur, "free"], [o.merchant, o.cur, "free"], o.amt)
    }
    o.st = "Paid"
    o.paid = o.amt
  }

  payInternal(o: ModelOrder, payer: bigint, offer: ModelOffer, now: number): ModelResult {
    if (o.kind === "PaymentOrder" && PAID.includes(o.st) && o.payer === payer) return { ok: true, replayed: true }
    const r = this.implicit(o, offer, now, "PaymentOrder", "InternalPayment")
    if (!r.ok) return r
    const total = o.payAmt! + o.fee
    const refusal: ModelResult | null =
      payer === o.merchant
        ? { ok: false, rule: "SameAccounts" }
        : this.ledger.get(payer, o.payCur!) < total
          ? { ok: false, rule: "BalanceNotEnough" }
          : null
    if (refusal !== null) {
      r.undo()
      return refusal
    }
    this.settle(o, [payer, o.payCur!, "free"])
    o.payer = payer
    return { ok: true }
  }

  openCard(o: ModelOrder, offer: ModelOffer, now: number): ModelResult {
    const r = this.implicit(o, offer, now, "PaymentOrder", "CardAcquiring")
    if (!r.ok) return r
    o.card = true
    return { ok: true }
  }

  cardApproved(o: ModelOrder): ModelResult {
    return this.run([["NotPayable", () => !o.card || o.st !== "Started"]], () => {
      o.card = false
      this.settle(o, [TREASURY, o.payCur!, "free"])
    })
  }

  cardClosed(o: ModelOrder): ModelResult {
    return this.run([["NoPaymentInProgress", () => !o.card]], () => {
      o.card = false
    })
  }

  payCrypto(o: ModelOrder, offer: ModelOffer, now: number): ModelResult {
    const r = this.implicit(o, offer, now, "PaymentOrder", "CryptoTransfer")
    return r.ok ? { ok: true } : r
  }

  cancelCrypto(o: ModelOrder, now: number): ModelResult {
    return this.run(
      [
        ["WrongKind", () => o.kind !== "PaymentOrder"],
        ...this.expiredGuards(o, now),
        ["PaymentPending", () => o.st === "Processing"],
        ["NotPayable", () => !ACTIVE.includes(o.st)],
        ["NoPaymentInProgress", () => o.st !== "Started" || o.term?.method !== "CryptoTransfer"]
      ],
      () => {
        Object.assign(o, { st: "Created", term: null, payCur: null, payAmt: null, fee: 0n })
      }
    )
  }

  incomeSeen(o: ModelOrder, a: bigint, now: number): ModelResult {
    return this.run(
      [
        ["WrongKind", () => o.kind !== "PaymentOrder"],
        ["InvalidAmount", () => a <= 0n],
        ...this.expiredGuards(o, now),
        ["NotPayable", () => !(o.st === "Started" || o.st === "Processing") || o.term?.method !== "CryptoTransfer"]
      ],
      () => {
        this.ledger.move([TREASURY, o.payCur!, "free"], [o.merchant, o.payCur!, "lockIn"], a)
        o.seen += a
        o.st = "Processing"
      }
    )
  }

  incomeFinal(o: ModelOrder, a: bigint): ModelResult {
    return this.run([["NotAttached", () => a <= 0n || a > o.seen]], () => {
      o.seen -= a
      o.fin += a
      const pc = o.payCur!
      if (PAID.includes(o.st)) {
        this.ledger.move([o.merchant, pc, "lockIn"], [o.merchant, pc, "free"], a)
        return
      }
      const total = o.payAmt! + o.fee
      if (o.fin < total) return
      this.ledger.move([o.merchant, pc, "lockIn"], [o.merchant, pc, "free"], o.fin - total)
      this.settle(o, [o.merchant, pc, "lockIn"])
    })
  }

  incomeOrphaned(o: ModelOrder, a: bigint): ModelResult {
    return this.run([["NotAttached", () => a <= 0n || a > o.seen]], () => {
      this.ledger.move([o.merchant, o.payCur!, "lockIn"], [TREASURY, o.payCur!, "free"], a)
      o.seen -= a
      if (o.st === "Processing" && o.seen === 0n && o.fin === 0n) o.st = "Started"
    })
  }

  payTransferInternal(o: ModelOrder, recipient: bigint, offer: ModelOffer, now: number): ModelResult {
    const r = this.implicit(o, offer, now, "TransferOrder", "InternalPayment")
    if (!r.ok) return r
    if (recipient === o.merchant) {
      r.undo()
      return { ok: false, rule: "SameAccounts" }
    }
    this.ledger.move([o.merchant, o.cur, "lockOut"], [recipient, o.cur, "free"], o.amt)
    this.ledger.move([o.merchant, o.cur, "lockOut"], [o.profit, o.cur, "free"], o.fee)
    o.st = "Paid"
    o.paid = o.amt
    o.payer = recipient
    return { ok: true }
  }

  payTransferCrypto(o: ModelOrder, offer: ModelOffer, now: number): ModelResult {
    const r = this.implicit(o, offer, now, "TransferOrder", "CryptoTransfer")
    if (!r.ok) return r
    o.st = "Processing"
    return { ok: true }
  }

  payoutSettled(o: ModelOrder, final: boolean): ModelResult {
    return this.run([["NotPayable", () => o.kind !== "TransferOrder" || o.st !== "Processing"]], () => {
      if (final) {
        this.ledger.move([o.merchant, o.cur, "lockOut"], [TREASURY, o.cur, "free"], o.amt)
        this.ledger.move([o.merchant, o.cur, "lockOut"], [o.profit, o.cur, "free"], o.fee)
        o.st = "Paid"
        o.paid = o.amt
      } else {
        this.ledger.move([o.merchant, o.cur, "lockOut"], [o.merchant, o.cur, "free"], o.amt + o.fee)
        o.st = "Failed"
      }
    })
  }

  private releaseHeld(o: ModelOrder) {
    if (o.kind === "TransferOrder")
      this.ledger.move([o.merchant, o.cur, "lockOut"], [o.merchant, o.cur, "free"], o.amt + o.fee)
    else if (o.fin > 0n) this.ledger.move([o.merchant, o.payCur!, "lockIn"], [o.merchant, o.payCur!, "free"], o.fin)
  }

  expire(o: ModelOrder, now: number): ModelResult {
    return this.run([["NotDue", () => !this.due(o, now)]], () => {
      this.releaseHeld(o)
      o.st = "Expired"
    })
  }

  cancel(o: ModelOrder, now: number): ModelResult {
    return this.run(
      [
        ...this.expiredGuards(o, now),
        ["NotPayable", () => !ACTIVE.includes(o.st)],
        ["PaymentPending", () => o.card || o.seen > 0n]
      ],
      () => {
        this.releaseHeld(o)
        o.st = "Canceled"
      }
    )
  }

  private afterRefund(o: ModelOrder) {
    o.st = o.refunded === 0n ? "Paid" : o.refunded === o.paid ? "Refunded" : "PartiallyRefunded"
  }

  /** C16 "Refunds"; the payout in payCurrency goes through the Broker when the currencies differ. */
  private payout(o: ModelOrder, from: [bigint, string, BucketName], amount: bigint, to: bigint) {
    const out = (amount * o.payAmt!) / o.amt
    if (o.payCur === o.cur) this.ledger.move(from, [to, o.cur, "free"], amount)
    else {
      this.ledger.move(from, [BROKER, o.cur, "free"], amount)
      this.ledger.move([BROKER, o.payCur!, "free"], [to, o.payCur!, "free"], out)
    }
  }

  refund(o: ModelOrder, amount: bigint | null, fee: bigint, feeProfit: bigint, hasAddress: boolean): ModelResult {
    const left = () => o.paid - o.refunded - o.pending
    const a = amount ?? left()
    return this.run(
      [
        ["NotRefundable", () => o.kind !== "PaymentOrder" || !["Paid", "PartiallyRefunded"].includes(o.st)],
        ["TooManyRefunds", () => o.count >= 100],
        ["RefundAddressRequired", () => o.term!.method === "CryptoTransfer" && !hasAddress],
        ["InvalidAmount", () => amount !== null && amount <= 0n],
        ["RefundExceedsPaid", () => a <= 0n || a > left()],
        ["BalanceNotEnough", () => this.ledger.get(o.merchant, o.cur) < a + fee]
      ],
      () => {
        o.count += 1
        const m: [bigint, string, BucketName] = [o.merchant, o.cur, "free"]
        if (o.term!.method === "CryptoTransfer") {
          this.ledger.move(m, [o.merchant, o.cur, "lockOut"], a + fee)
          o.pending += a
          return
        }
        this.ledger.move(m, [feeProfit, o.cur, "free"], fee)
        this.payout(o, m, a, o.term!.method === "InternalPayment" ? o.payer! : TREASURY)
        o.refunded += a
        this.afterRefund(o)
      }
    )
  }

  refundSettled(o: ModelOrder, amount: bigint, fee: bigint, feeProfit: bigint, final: boolean): ModelResult {
    return this.run([["NotAttached", () => amount <= 0n || amount > o.pending]], () => {
      const held: [bigint, string, BucketName] = [o.merchant, o.cur, "lockOut"]
      o.pending -= amount
      if (!final) {
        this.ledger.move(held, [o.merchant, o.cur, "free"], amount + fee)
        return
      }
      this.ledger.move(held, [feeProfit, o.cur, "free"], fee)
      this.payout(o, held, amount, TREASURY)
      o.refunded += amount
      this.afterRefund(o)
    })
  }
}
