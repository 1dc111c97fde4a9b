/**
 * Model-based test of the payment-order engine (actors/payment/Engine.ts, CONTRACT C16): seeded random
 * sequences over several live orders at once — starts on random terminals (some unavailable), internal
 * payments by random payers with random balances (the merchant too), card sessions approved or closed,
 * crypto incomes seen / final / orphaned (under- and overpaid), payouts internal and crypto, expiries
 * as the clock moves, cancels, refunds of random amounts (over-refunds, defaults, back-to-back pairs
 * against the same order, crypto refunds settling in any order). Each action goes to the engine and to
 * the independent model (test/support/PaymentModel.ts): same decisions and rules, same order states,
 * same balances; after every step the invariants of C6 and C16 hold.
 */
import { describe, expect, it } from "vitest"
import * as E from "../../actors/payment/Engine.ts"
import type { Posting } from "../../sql/Ledger.ts"
import { FEES, Ledger, type ModelOrder, type ModelResult, PaymentModel, TREASURY } from "../support/PaymentModel.ts"
import {
  ALT_PROFIT,
  decimals,
  merchants,
  modelView,
  offerFor,
  payers,
  terminals,
  toModelOffer,
  view
} from "../support/PaymentFixtures.ts"
import { seeded } from "./Random.ts"

interface Live {
  engine: E.OrderState
  model: ModelOrder
  incomes: Array<bigint>
  cryptoRefunds: Array<{ amount: bigint; fee: bigint; profit: bigint }>
  timesPaid: number
}

/** An underpaid order's final incomes as one plain Income with no Deposit fee (the model books lock_in → free). */
const plainOf = (s: E.OrderState): ReadonlyArray<E.PlainIncome> =>
  s.incomeFinal > 0n ? [{ amount: s.incomeFinal, fee: 0n, profitWallet: FEES }] : []

const sumsByCurrency = (postings: ReadonlyArray<Posting>) => {
  const sums = new Map<string, bigint>()
  for (const p of postings) sums.set(p.currency, (sums.get(p.currency) ?? 0n) + p.delta)
  return sums
}

const run = (seed: number, steps: number) => {
  const rnd = seeded(seed)
  const pick = <A>(xs: ReadonlyArray<A>): A => xs[rnd.int(0, xs.length - 1)]
  const big = (min: number, max: number) => BigInt(rnd.int(min, max))
  const engineLedger = new Ledger()
  const model = new PaymentModel(new Ledger())
  const live: Array<Live> = []
  let now = 1_000
  const stats = new Map<string, number>()
  const count = (key: string) => stats.set(key, (stats.get(key) ?? 0) + 1)

  const applyPostings = (postings: ReadonlyArray<Posting>) => {
    for (const p of postings) {
      const key = `${p.walletId}|${p.currency}|${p.bucket}`
      engineLedger.balances.set(key, (engineLedger.balances.get(key) ?? 0n) + p.delta)
    }
  }
  const engineFree = (wallet: bigint, cur: string) => engineLedger.get(wallet, cur)

  /** One decision on both sides: same verdict, same state, postings that balance, money only from `debits`. */
  const both = (l: Live, name: string, engine: () => E.Decision, mine: () => ModelResult): E.Decision => {
    const before = l.engine
    const d = engine()
    const m = mine()
    const verdict = d._tag === "Ok" ? (d.replayed ? "replayed" : "ok") : d.rule
    const expected = m.ok ? (m.replayed ? "replayed" : "ok") : m.rule
    expect(verdict, `${name} seed ${seed}`).toBe(expected)
    count(`${name}:${verdict}`)
    if (d._tag === "Ok") {
      for (const [cur, sum] of sumsByCurrency(d.postings)) expect(sum, `${name} Σ ${cur}`).toBe(0n)
      for (const p of d.postings)
        if (p.walletId > 0n && p.bucket === 0 && p.delta < 0n) expect(p.walletId, `${name} debits`).toBe(d.debits)
      if (before.stateCode >= 16) expect(d.postings, `${name} on a closed order`).toEqual([])
      if (before.stateCode < 8 && d.state.stateCode === 8) l.timesPaid++
      applyPostings(d.postings)
      l.engine = d.state
    }
    expect(view(l.engine)).toEqual(modelView(l.model))
    return d
  }
  /** An action answered Expired commits the expiry first (C16), on both sides. */
  const orExpire = (l: Live, d: E.Decision) => {
    if (d._tag === "Reject" && d.rule === "Expired")
      both(
        l,
        "expire",
        () => E.expire(l.engine, now, plainOf(l.engine)),
        () => model.expire(l.model, now)
      )
  }

  /** Half the steps take an action that fits the order's state, so the walk goes deep, not only wide. */
  const hint = (l: Live): number => {
    const o = l.engine
    if (o.cardSessionPending) return rnd.next() < 0.8 ? 0.28 : 0.33
    if (o.kind === "TransferOrder") return o.stateCode === 3 ? 0.65 : 0.6
    if (o.stateCode === 3) return rnd.next() < 0.3 ? 0.45 : 0.52
    if (o.stateCode >= 8 && o.stateCode <= 10) return l.cryptoRefunds.length > 0 && rnd.next() < 0.5 ? 0.96 : 0.8
    if (o.stateCode === 2 && o.terminal?.method === "CryptoTransfer") return 0.45
    return pick([0.1, 0.22, 0.36, 0.05])
  }

  for (let step = 0; step < steps; step++) {
    const r = rnd.next()
    if (r < 0.08) {
      // Money arrives from outside for a payer or a merchant.
      const wallet = pick([...payers, ...merchants])
      const cur = pick(Object.keys(decimals))
      const amount = big(1, 5_000_000)
      applyPostings([
        { walletId: TREASURY, currency: cur, bucket: 0, delta: -amount },
        { walletId: wallet, currency: cur, bucket: 0, delta: amount }
      ])
      model.ledger.move([TREASURY, cur, "free"], [wallet, cur, "free"], amount)
    } else if (r < 0.14) {
      now += rnd.int(1, 40)
    } else if (r < 0.22 || live.length === 0) {
      const cur = pick(["EUR", "USD", "USDT"])
      const amt = big(1, 200_000)
      const merchant = pick(merchants)
      const exp = now + rnd.int(20, 1500)
      if (rnd.next() < 0.7) {
        const d = E.createPaymentOrder({ currency: cur, orderAmount: amt, merchantWallet: merchant, expiresAt: exp })
        live.push({
          engine: d.state,
          model: model.newPayment(cur, amt, merchant, exp),
          incomes: [],
          cryptoRefunds: [],
          timesPaid: 0
        })
      } else {
        const fee = big(0, 500)
        const profit = rnd.next() < 0.5 ? FEES : ALT_PROFIT
        const free = engineFree(merchant, cur)
        const d = E.createTransferOrder(
          { currency: cur, orderAmount: amt, merchantWallet: merchant, expiresAt: exp, fee, profitWallet: profit },
          free
        )
        const m = model.newTransfer(cur, amt, merchant, exp, fee, profit)
        expect(d._tag === "Ok" ? "ok" : d.rule).toBe(m.ok ? "ok" : m.rule)
        if (d._tag === "Ok" && m.ok) {
          applyPostings(d.postings)
          live.push({ engine: d.state, model: m.order, incomes: [], cryptoRefunds: [], timesPaid: 0 })
        }
      }
      if (live.length > 8) live.splice(rnd.int(0, live.length - 1), 1)
    } else {
      const l = pick(live)
      const o = l.engine
      // Mostly the terminal the order is locked on (or will be), sometimes another one.
      const locked = terminals.find((x) => x.id === o.terminal?.terminalId)
      const t = locked !== undefined && rnd.next() < 0.7 ? locked : pick(terminals)
      const offer = offerFor(
        t,
        o.currency,
        o.orderAmount,
        big(0, 300),
        rnd.next() < 0.85,
        rnd.next() < 0.7 ? FEES : ALT_PROFIT
      )
      const mo = toModelOffer(offer)
      const a = rnd.next() < 0.5 ? rnd.next() : hint(l)
      if (a < 0.08)
        orExpire(
          l,
          both(
            l,
            "start",
            () => E.start(l.engine, offer, now),
            () => model.start(l.model, mo, now)
          )
        )
      else if (a < 0.2) {
        const payer = rnd.next() < 0.1 ? o.merchantWallet : pick(payers)
        const internal = offerFor(terminals[0], o.currency, o.orderAmount, big(0, 300), rnd.next() < 0.95)
        const d = both(
          l,
          "payInternal",
          () =>
            E.payInternal(l.engine, {
              payer,
              payerFree: engineFree(payer, internal.payCurrency),
              offer: internal,
              now
            }),
          () => model.payInternal(l.model, payer, toModelOffer(internal), now)
        )
        orExpire(l, d)
      } else if (a < 0.27)
        orExpire(
          l,
          both(
            l,
            "openCard",
            () => E.openCardSession(l.engine, offer, now),
            () => model.openCard(l.model, mo, now)
          )
        )
      else if (a < 0.32)
        both(
          l,
          "cardApproved",
          () => E.cardApproved(l.engine),
          () => model.cardApproved(l.model)
        )
      else if (a < 0.35)
        both(
          l,
          "cardClosed",
          () => E.cardSessionClosed(l.engine),
          () => model.cardClosed(l.model)
        )
      else if (a < 0.41)
        orExpire(
          l,
          both(
            l,
            "payCrypto",
            () => E.payCrypto(l.engine, offer, now),
            () => model.payCrypto(l.model, mo, now)
          )
        )
      else if (a < 0.43)
        orExpire(
          l,
          both(
            l,
            "cancelCrypto",
            () => E.cancelCrypto(l.engine, now),
            () => model.cancelCrypto(l.model, now)
          )
        )
      else if (a < 0.5) {
        const total = E.totalToPay(o) ?? 1000n
        const amount = pick([total, total / 2n + 1n, total + big(0, 50), big(0, 1000)])
        const d = both(
          l,
          "incomeSeen",
          () => E.cryptoIncomeSeen(l.engine, amount, now),
          () => model.incomeSeen(l.model, amount, now)
        )
        if (d._tag === "Ok") l.incomes.push(amount)
        orExpire(l, d)
      } else if (a < 0.58) {
        const orphan = rnd.next() < 0.3
        const i = l.incomes.length > 0 && rnd.next() < 0.9 ? rnd.int(0, l.incomes.length - 1) : -1
        const amount = i >= 0 ? l.incomes[i] : big(1, 100)
        const d = orphan
          ? both(
              l,
              "orphaned",
              () => E.cryptoOrphaned(l.engine, amount),
              () => model.incomeOrphaned(l.model, amount)
            )
          : both(
              l,
              "final",
              () => E.cryptoFinal(l.engine, amount),
              () => model.incomeFinal(l.model, amount)
            )
        if (d._tag === "Ok" && i >= 0) l.incomes.splice(i, 1)
      } else if (a < 0.64) {
        const recipient = rnd.next() < 0.1 ? o.merchantWallet : pick(payers)
        const internal = offerFor(terminals[0], o.currency, o.orderAmount, 0n, rnd.next() < 0.95)
        if (rnd.next() < 0.6)
          orExpire(
            l,
            both(
              l,
              "payTransfer",
              () => E.payTransferInternal(l.engine, { recipient, offer: internal, now }),
              () => model.payTransferInternal(l.model, recipient, toModelOffer(internal), now)
            )
          )
        else
          orExpire(
            l,
            both(
              l,
              "payTransferCrypto",
              () => E.payTransferCrypto(l.engine, offer, now),
              () => model.payTransferCrypto(l.model, mo, now)
            )
          )
      } else if (a < 0.67) {
        const final = rnd.next() < 0.7
        both(
          l,
          "payoutSettled",
          () => E.payoutSettled(l.engine, final),
          () => model.payoutSettled(l.model, final)
        )
      } else if (a < 0.73)
        both(
          l,
          "expire",
          () => E.expire(l.engine, now, plainOf(l.engine)),
          () => model.expire(l.model, now)
        )
      else if (a < 0.77)
        orExpire(
          l,
          both(
            l,
            "cancel",
            () => E.cancel(l.engine, now),
            () => model.cancel(l.model, now)
          )
        )
      else if (a < 0.95) {
        // One refund, or two back to back computed from the same (stale) view of the order.
        const left = o.paidAmount - o.refundedAmount - o.pendingRefunds
        const times = rnd.next() < 0.3 ? 2 : 1
        for (let k = 0; k < times; k++) {
          const amount = pick<bigint | null>([null, left, left + 1n, big(1, 50), left / 2n, 0n, o.paidAmount])
          const fee = big(0, 30)
          const profit = rnd.next() < 0.5 ? FEES : ALT_PROFIT
          const hasAddress = rnd.next() < 0.9
          const d = both(
            l,
            "refund",
            () =>
              E.refund(l.engine, {
                amount,
                fee,
                feeProfitWallet: profit,
                merchantFree: engineFree(l.engine.merchantWallet, l.engine.currency),
                hasRefundAddress: hasAddress
              }),
            () => model.refund(l.model, amount, fee, profit, hasAddress)
          )
          if (d._tag === "Ok" && !d.refund!.finished) l.cryptoRefunds.push({ amount: d.refund!.amount, fee, profit })
        }
      } else if (l.cryptoRefunds.length > 0) {
        const i = rnd.int(0, l.cryptoRefunds.length - 1)
        const { amount, fee, profit } = l.cryptoRefunds[i]
        const final = rnd.next() < 0.7
        const d = both(
          l,
          "refundSettled",
          () => E.refundSettled(l.engine, { amount, fee, feeProfitWallet: profit, final }),
          () => model.refundSettled(l.model, amount, fee, profit, final)
        )
        if (d._tag === "Ok") l.cryptoRefunds.splice(i, 1)
      }
    }
    // Invariants after every step.
    expect(engineLedger.snapshot()).toEqual(model.ledger.snapshot())
    for (const [key, value] of engineLedger.balances)
      if (!key.startsWith("-")) expect(value, key).toBeGreaterThanOrEqual(0n)
    const totals = new Map<string, bigint>()
    for (const [key, value] of engineLedger.balances) {
      const cur = key.split("|")[1]
      totals.set(cur, (totals.get(cur) ?? 0n) + value)
    }
    for (const [cur, total] of totals) expect(total, `Σ ${cur}`).toBe(0n)
    for (const l of live) {
      expect(l.engine.refundedAmount + l.engine.pendingRefunds).toBeLessThanOrEqual(l.engine.paidAmount)
      expect(l.timesPaid).toBeLessThanOrEqual(1)
      if (l.engine.stateCode >= 16) expect(l.engine.paidAmount).toBe(0n)
    }
  }
  return stats
}

describe("payment engine against the model (C16)", () => {
  for (const seed of [1, 7, 42, 1234, 99991, 31337]) {
    it(`seed ${seed}: 2000 steps agree with the model, and the invariants hold`, () => {
      const stats = run(seed, 2000)
      if (process.env.PAYMENT_MODEL_STATS) console.log(seed, Object.fromEntries([...stats].sort()))
      // The walk reaches the interesting rows, not only rejections.
      for (const key of [
        "payInternal:ok",
        "cardApproved:ok",
        "final:ok",
        "refund:ok",
        "refund:RefundExceedsPaid",
        "expire:ok",
        "cancel:ok",
        "payTransfer:ok"
      ])
        expect(stats.get(key) ?? 0, key).toBeGreaterThan(0)
    })
  }
})
