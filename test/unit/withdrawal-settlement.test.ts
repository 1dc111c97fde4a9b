/**
 * src/platform/WithdrawalSettlement.ts `withSettlements`: the hook's operations join the commit, and the
 * settling operations of the withdrawals it takes over lose their own postings (a crypto refund books
 * its withdrawal's money itself, in the order currency with the Broker's legs) — nothing else changes.
 */
import { Effect, Option } from "effect"
import { describe, expect, it } from "vitest"
import { Bucket, type LedgerOperation, SystemWallet } from "../../sql/Ledger.ts"
import { creditedIn, WithdrawalSettlement, withSettlements } from "../../src/platform/WithdrawalSettlement.ts"

const M = 100n,
  FEE = 300n
const settling = (id: bigint, to: number): LedgerOperation => ({
  transition: { id, from: 3, to },
  postings: [
    { walletId: M, currency: "BTC", bucket: Bucket.lockOut, delta: -5n },
    { walletId: SystemWallet.Treasury, currency: "BTC", bucket: Bucket.free, delta: 5n }
  ],
  rows: []
})
const refundOp: LedgerOperation = {
  transition: { id: 9n, from: 1, to: 8 },
  postings: [
    { walletId: M, currency: "USDT", bucket: Bucket.lockOut, delta: -41n },
    { walletId: FEE, currency: "USDT", bucket: Bucket.free, delta: 1n },
    { walletId: SystemWallet.Broker, currency: "USDT", bucket: Bucket.free, delta: 40n },
    { walletId: SystemWallet.Broker, currency: "BTC", bucket: Bucket.free, delta: -5n },
    { walletId: SystemWallet.Treasury, currency: "BTC", bucket: Bucket.free, delta: 5n }
  ],
  rows: []
}
const hook = (takenOver: ReadonlyArray<bigint>, added: ReadonlyArray<LedgerOperation>) =>
  Option.some(WithdrawalSettlement.of({ alongside: () => Effect.succeed({ added, takenOver: new Set(takenOver) }) }))

describe("withSettlements", () => {
  it("drops the postings of a taken-over withdrawal's settling operation, main or extra, and adds the hook's", () => {
    const main = settling(1n, 8)
    const out = Effect.runSync(withSettlements(hook([1n], [refundOp]), main))
    expect(out.postings).toEqual([])
    expect(out.transition).toEqual(main.transition)
    expect(out.extra).toEqual([refundOp])

    const push: LedgerOperation = { postings: [], rows: [], extra: [settling(1n, 8), settling(2n, 8)] }
    const out2 = Effect.runSync(withSettlements(hook([1n], [refundOp]), push))
    expect(out2.extra!.map((op) => op.postings.length)).toEqual([0, 2, 5])
    expect(creditedIn(out2)).toEqual([FEE])
  })

  it("leaves other operations alone: not taken over, or not a settling transition", () => {
    const restage: LedgerOperation = { ...settling(1n, 3), transition: { id: 1n, from: 3, to: 3 } }
    const op: LedgerOperation = { postings: [], rows: [], extra: [restage, settling(2n, 16)] }
    expect(Effect.runSync(withSettlements(hook([1n], []), op)).extra).toEqual(op.extra)
    expect(Effect.runSync(withSettlements(hook([], []), op))).toBe(op)
    expect(Effect.runSync(withSettlements(Option.none(), op))).toBe(op)
  })
})
