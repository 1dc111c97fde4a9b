/**
 * The investment engine (actors/invest/Engine.ts) against a model of CONTRACT C17, for seeded random
 * principals, rates (≤ 8 decimals), accrual periods, activation times and close times. Time is driven
 * by irregular "sweeps" (gaps of up to several periods, as across a restart), each decision applied as
 * the actor's commit would apply it:
 * - managed maturity: credited total = max(0, accrued(dateEnd) − baseline), each credit positive;
 * - managed early close: profit = max(baseline, accrued(last boundary ≤ closedAt));
 * - accrued(t) agrees with the formula computed independently in exact decimal arithmetic;
 * - push: a sequence of totals (repeats, lower ones, any order) credits exactly max(total) − baseline,
 *   lower ones refused (ProfitBelowCredited), repeats pay nothing;
 * - the penalty is principal × pct / 100 rounded up; a close releases exactly the principal.
 */
import { assert, describe, it } from "@effect/vitest"
import BigNumber from "bignumber.js"
import {
  accrued,
  afterCommit,
  earlyClose,
  type Investment,
  InvestState,
  onTime,
  penaltyOf,
  pushProfit,
  type Settings
} from "../../actors/invest/Engine.ts"
import { Bucket } from "../../sql/Ledger.ts"
import { seeded } from "./Random.ts"

const Big = BigNumber.clone({ DECIMAL_PLACES: 60, ROUNDING_MODE: BigNumber.ROUND_FLOOR })

/** C17's formula in exact decimals (an independent computation). */
const formula = (amount: bigint, ratePct: string, activatedAt: number, t: number): bigint =>
  BigInt(
    new Big(amount.toString())
      .times(ratePct)
      .times(Math.max(0, t - activatedAt))
      .div(new Big(100).times(31_536_000_000))
      .integerValue(BigNumber.ROUND_FLOOR)
      .toFixed(0)
  )

const randomRate = (r: ReturnType<typeof seeded>): string => {
  const whole = String(r.int(0, 999))
  const places = r.int(0, 8)
  return places === 0 ? whole : `${whole}.${r.digits(places)}`
}

const base = (r: ReturnType<typeof seeded>, state: number, now: number, term: number): Investment => ({
  timetick: 1n,
  walletId: 7n,
  currency: "USDT",
  state,
  flags: 1,
  amount: BigInt(r.int(1, 9)) * 10n ** BigInt(r.int(0, 15)) + BigInt(r.int(0, 999)),
  profit: r.next() < 0.3 ? BigInt(r.int(0, 1_000_000)) : 0n,
  ratePct: randomRate(r),
  dateEnd: now + term,
  activatedAt: state === InvestState.Activated ? now : null,
  closedAt: null,
  penalty: 0n,
  closeTx: null,
  version: 0n
})

/** Applies decisions at the sweep times until `until` (or the investment closes); sums what was credited. */
const run = (inv: Investment, settings: Settings, times: ReadonlyArray<number>) => {
  let ids = 100n
  let credited = 0n
  let released = 0n
  for (const now of times) {
    for (let guard = 0; guard < 4; guard++) {
      const d = onTime(inv, now, settings, () => ids++)
      if (d._tag !== "Commit") break
      credited += d.credited
      const ops = [d.operation, ...(d.operation.extra ?? [])]
      for (const op of ops)
        for (const p of op.postings) if (p.walletId === 7n && p.bucket === Bucket.lockOrders) released -= p.delta
      inv = afterCommit(d)
    }
    if (inv.state === InvestState.Closed) break
  }
  return { inv, credited, released }
}

describe("investment engine vs the C17 model", () => {
  it("accrued(t) equals the formula computed in exact decimals", () => {
    const r = seeded(17)
    for (let i = 0; i < 3000; i++) {
      const amount = BigInt(r.digits(r.int(1, 25)))
      const rate = randomRate(r)
      const t = r.int(0, 10 * 31_536_000) * 1000 + r.int(0, 999)
      assert.strictEqual(accrued(amount, rate, 0, t), formula(amount, rate, 0, t), `${amount} ${rate} ${t}`)
    }
  })

  it("managed: credited total at maturity = max(0, accrued(dateEnd) − baseline), whatever the sweep gaps", () => {
    const r = seeded(2026)
    for (let i = 0; i < 400; i++) {
      const period = r.int(1, 50) * 1000
      const start = 1_700_000_000_000 + r.int(0, 1_000_000)
      const term = r.int(1, 40) * period + r.int(0, period)
      const inv0 = base(r, InvestState.Activated, start, term)
      const settings: Settings = { mode: "managed", accrualMs: period, penaltyPct: "0" }
      const times: Array<number> = []
      for (let t = start; t < start + term + 5 * period; t += r.int(1, 4 * period)) times.push(t)
      times.push(start + term + 5 * period)
      const { inv, credited, released } = run(inv0, settings, times)
      assert.strictEqual(inv.state, InvestState.Closed)
      const final = formula(inv0.amount, inv0.ratePct, start, start + term)
      const expected = final > inv0.profit ? final - inv0.profit : 0n
      assert.strictEqual(credited, expected, `case ${i}`)
      assert.strictEqual(inv.profit, inv0.profit > final ? inv0.profit : final)
      assert.strictEqual(released, inv0.amount)
    }
  })

  it("managed early close: boundaries up to closedAt credited, the rest forfeit; a decimal penalty rounded up", () => {
    const r = seeded(99)
    for (let i = 0; i < 400; i++) {
      const period = r.int(1, 50) * 1000
      const start = 1_700_000_000_000
      const term = r.int(2, 40) * period
      const inv0 = base(r, InvestState.Activated, start, term)
      // A decimal percentage of up to 8 places (INVEST_EARLY_CLOSE_PENALTY_PCT takes decimals).
      const whole = r.int(0, 100)
      const pct = whole === 100 || r.int(0, 3) === 0 ? String(whole) : `${whole}.${r.digits(r.int(1, 8))}`
      const settings: Settings = { mode: "managed", accrualMs: period, penaltyPct: pct }
      const closeAt = start + r.int(0, term - 1)
      const swept = run(inv0, settings, [start + Math.floor((closeAt - start) / 2), closeAt]).inv
      let ids = 500n
      const d = earlyClose(swept, closeAt, settings, () => ids++)
      assert.strictEqual(d._tag, "Commit")
      if (d._tag !== "Commit") continue
      const half = afterCommit(d)
      assert.strictEqual(half.state, InvestState.ReceivedEarlyCloseRequest)
      const boundary = start + Math.floor((closeAt - start) / period) * period
      const owed = formula(inv0.amount, inv0.ratePct, start, boundary)
      assert.strictEqual(half.profit, inv0.profit > owed ? inv0.profit : owed, `case ${i}`)
      const penalty = BigInt(
        new Big(inv0.amount.toString()).times(pct).div(100).integerValue(BigNumber.ROUND_CEIL).toFixed(0)
      )
      assert.strictEqual(half.penalty, penalty)
      assert.strictEqual(penaltyOf(inv0.amount, pct), penalty)
      const done = onTime(half, closeAt + 1, settings, () => ids++)
      assert.strictEqual(done._tag, "Commit")
      if (done._tag !== "Commit") continue
      assert.strictEqual(done.after.state, InvestState.Closed)
      const sum = done.operation.postings.reduce((s, p) => s + p.delta, 0n)
      assert.strictEqual(sum, 0n)
      // A second close of the same state is refused: the half-closed investment is not Activated.
      assert.deepStrictEqual(
        earlyClose(half, closeAt, settings, () => ids++),
        { _tag: "Reject", rule: "StateConflict" }
      )
    }
  })

  it("push: running totals in any order credit exactly max − baseline; repeats pay nothing, lower ones refused", () => {
    const r = seeded(5)
    const settings: Settings = { mode: "push", accrualMs: 1000, penaltyPct: "0" }
    for (let i = 0; i < 400; i++) {
      let inv = base(r, InvestState.Activated, 0, 1_000_000)
      const baseline = inv.profit
      const totals = Array.from({ length: r.int(1, 30) }, () => BigInt(r.int(0, 2_000_000)))
      let credited = 0n
      let max = baseline
      for (const total of totals) {
        const d = pushProfit(inv, total, 10, settings, 1n)
        if (total < max) assert.deepStrictEqual(d, { _tag: "Reject", rule: "ProfitBelowCredited" })
        else if (total === max) assert.strictEqual(d._tag, "Nothing")
        else {
          assert.strictEqual(d._tag, "Commit")
          if (d._tag === "Commit") {
            assert.strictEqual(d.credited, total - max)
            credited += d.credited
            inv = afterCommit(d)
          }
          max = total
        }
        // Re-pushing the whole batch so far pays nothing.
        for (const again of totals.slice(0, totals.indexOf(total) + 1))
          assert.notStrictEqual(pushProfit(inv, again, 10, settings, 1n)._tag, "Commit")
      }
      assert.strictEqual(credited, max - baseline)
      assert.strictEqual(inv.profit, max)
    }
  })
})
