/**
 * The wallet's pure balance rules for trusted treasury postings (actors/wallet/Engine.ts
 * treasuryPosting, applyPostings): credits and debits post against the Treasury and sum to zero;
 * a debit the free balance cannot cover is rejected whatever the locked buckets hold. Fixed cases
 * plus a seeded random walk that must never drive the free balance below zero. No service is started.
 */
import { assert, describe, it } from "@effect/vitest"
import { applyPostings, type Buckets, emptyBuckets, treasuryPosting } from "../../actors/wallet/Engine.ts"
import { Bucket, type Posting, SystemWallet } from "../../sql/Ledger.ts"
import { seeded } from "./Random.ts"

const WALLET = 1_000_001n
const buckets = (free: bigint, rest: Partial<Buckets> = {}): Buckets => ({ ...emptyBuckets(), free, ...rest })

const sumByCurrency = (postings: ReadonlyArray<Posting>) => {
  const sums = new Map<string, bigint>()
  for (const p of postings) sums.set(p.currency, (sums.get(p.currency) ?? 0n) + p.delta)
  return sums
}

describe("treasuryPosting", () => {
  it("a credit adds to the wallet's free balance against the Treasury; the postings sum to zero", () => {
    const decision = treasuryPosting(WALLET, emptyBuckets(), "USDT", 100n, "credit")
    assert.strictEqual(decision._tag, "Post")
    if (decision._tag !== "Post") return
    assert.deepStrictEqual(decision.postings, [
      { walletId: WALLET, currency: "USDT", bucket: Bucket.free, delta: 100n },
      { walletId: SystemWallet.Treasury, currency: "USDT", bucket: Bucket.free, delta: -100n }
    ])
    assert.strictEqual(sumByCurrency(decision.postings).get("USDT"), 0n)
  })

  it("a debit the free balance covers (exactly, too) moves money back to the Treasury", () => {
    for (const free of [100n, 101n]) {
      const decision = treasuryPosting(WALLET, buckets(free), "EUR", 100n, "debit")
      assert.strictEqual(decision._tag, "Post")
      if (decision._tag !== "Post") return
      assert.deepStrictEqual(decision.postings, [
        { walletId: WALLET, currency: "EUR", bucket: Bucket.free, delta: -100n },
        { walletId: SystemWallet.Treasury, currency: "EUR", bucket: Bucket.free, delta: 100n }
      ])
    }
  })

  it("rejects a short debit, even when locked buckets hold enough", () => {
    assert.deepStrictEqual(treasuryPosting(WALLET, buckets(99n), "EUR", 100n, "debit"), {
      _tag: "Reject",
      rule: "BalanceNotEnough"
    })
    assert.deepStrictEqual(treasuryPosting(WALLET, emptyBuckets(), "EUR", 1n, "debit"), {
      _tag: "Reject",
      rule: "BalanceNotEnough"
    })
    const locked = buckets(0n, { lockOut: 500n, lockIn: 500n, lockOrders: 500n })
    assert.strictEqual(treasuryPosting(WALLET, locked, "EUR", 1n, "debit")._tag, "Reject")
  })

  it("refuses a non-positive amount as a broken invariant", () => {
    assert.throws(() => treasuryPosting(WALLET, buckets(10n), "EUR", 0n, "credit"))
    assert.throws(() => treasuryPosting(WALLET, buckets(10n), "EUR", -5n, "debit"))
  })

  it("property: a random walk of credits and debits never sends free below zero and always sums to zero", () => {
    const random = seeded(424242)
    const known = new Map<string, Buckets>([
      ["USDT", emptyBuckets()],
      ["BTC", emptyBuckets()]
    ])
    let treasury = 0n
    for (let i = 0; i < 5000; i++) {
      const currency = random.next() < 0.5 ? "USDT" : "BTC"
      const amount = BigInt(random.int(1, 1_000_000))
      const direction = random.next() < 0.5 ? "credit" : "debit"
      const before = known.get(currency)!.free
      const decision = treasuryPosting(WALLET, known.get(currency)!, currency, amount, direction)
      if (decision._tag === "Reject") {
        assert.strictEqual(direction, "debit")
        assert.isTrue(before < amount)
        continue
      }
      for (const sum of sumByCurrency(decision.postings).values()) assert.strictEqual(sum, 0n)
      applyPostings(WALLET, known, decision.postings)
      treasury += decision.postings
        .filter((p) => p.walletId === SystemWallet.Treasury && p.currency === "USDT")
        .reduce((s, p) => s + p.delta, 0n)
      const after = known.get(currency)!.free
      assert.isTrue(after >= 0n)
      assert.strictEqual(after, direction === "credit" ? before + amount : before - amount)
    }
    // The Treasury holds exactly the negative of what the wallet holds.
    assert.strictEqual(treasury, -known.get("USDT")!.free)
  })
})

describe("applyPostings", () => {
  it("applies only this wallet's postings, bucket by bucket, to the currencies it knows", () => {
    const known = new Map<string, Buckets>([["EUR", buckets(10n)]])
    applyPostings(WALLET, known, [
      { walletId: WALLET, currency: "EUR", bucket: Bucket.free, delta: -4n },
      { walletId: WALLET, currency: "EUR", bucket: Bucket.lockOut, delta: 4n },
      { walletId: WALLET, currency: "EUR", bucket: Bucket.lockIn, delta: 2n },
      { walletId: WALLET, currency: "EUR", bucket: Bucket.lockOrders, delta: 3n },
      { walletId: SystemWallet.Treasury, currency: "EUR", bucket: Bucket.free, delta: -5n },
      { walletId: WALLET, currency: "BTC", bucket: Bucket.free, delta: 7n }
    ])
    assert.deepStrictEqual(known.get("EUR"), { free: 6n, lockOut: 4n, lockIn: 2n, lockOrders: 3n })
    // An unknown currency is not invented: the actor loads it from SQL when it needs it.
    assert.isFalse(known.has("BTC"))
  })
})
