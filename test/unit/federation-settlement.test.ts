/**
 * The pure parts of federation (CONTRACT C18): the settlement operations (every posting set sums to zero
 * per currency, a transfer's finish and cancel empty exactly the reserved lock_out, each is a conditional
 * transition from the state the transaction waits in), the read-back verdicts, the externalId form and
 * the partner baseUrl rule. Seeded random figures, 2000 cases each.
 */
import { assert, describe, it } from "@effect/vitest"
import { Bucket, SystemWallet } from "../../sql/Ledger.ts"
import type { LinkRow } from "../../sql/FederationRepo.ts"
import { externalIdOf, txIdOfExternal } from "../../src/services/federation/FederationOrders.ts"
import { originOf } from "../../src/services/federation/Partners.ts"
import { cancelOperation, finishOperation, verdictOf } from "../../src/services/federation/Settlement.ts"

const random = (seed: number) => () => {
  seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31
  return seed / 2 ** 31
}

const linkOf = (next: () => number, kind: 1 | 2 | 3): LinkRow => ({
  txId: BigInt(Math.floor(next() * 1e15)),
  partnerId: "B",
  kind,
  remoteId: "1",
  remoteCode: null,
  payUrl: null,
  expiresAt: null,
  walletId: BigInt(1 + Math.floor(next() * 1e9)),
  currency: next() < 0.5 ? "USDT" : "BTC",
  amount: BigInt(1 + Math.floor(next() * 1e12)),
  fee: kind === 3 && next() < 0.7 ? BigInt(Math.floor(next() * 1e6)) : 0n,
  profitWallet: next() < 0.5 ? null : BigInt(1 + Math.floor(next() * 1e9)),
  tag: null,
  recipient: kind === 3 ? "W1" : null,
  createdAt: new Date(),
  txState: kind === 3 ? 3 : 1
})

const sums = (postings: ReadonlyArray<{ currency: string; delta: bigint }>) => {
  const by = new Map<string, bigint>()
  for (const p of postings) by.set(p.currency, (by.get(p.currency) ?? 0n) + p.delta)
  return [...by.values()]
}

describe("federation settlement", () => {
  it("finish and cancel: balanced, from the waiting state, money to the right buckets (2000 seeded cases)", () => {
    const next = random(17)
    for (let i = 0; i < 2000; i++) {
      const kind = ([1, 2, 3] as const)[i % 3]!
      const link = linkOf(next, kind)
      const finish = finishOperation(link)
      const cancel = cancelOperation(link)
      for (const op of [finish, cancel]) {
        for (const sum of sums(op.postings)) assert.strictEqual(sum, 0n)
        assert.strictEqual(op.transition!.id, link.txId)
        assert.strictEqual(op.transition!.from, kind === 3 ? 3 : 1)
      }
      assert.strictEqual(finish.transition!.to, 8)
      assert.strictEqual(cancel.transition!.to, 16)
      const federation = finish.postings.filter((p) => p.walletId === SystemWallet.Federation)
      assert.strictEqual(federation.length, 1)
      assert.strictEqual(federation[0]!.delta, kind === 3 ? link.amount : -link.amount)
      if (kind === 3) {
        const lockOut = finish.postings.find((p) => p.bucket === Bucket.lockOut)!
        assert.strictEqual(lockOut.delta, -(link.amount + link.fee))
        const fee = finish.postings.find((p) => p.walletId === (link.profitWallet ?? SystemWallet.Fees))
        if (link.fee > 0n) assert.strictEqual(fee!.delta, link.fee)
        assert.deepStrictEqual(
          cancel.postings.map((p) => [p.walletId, p.bucket, p.delta]),
          [
            [link.walletId, Bucket.lockOut, -(link.amount + link.fee)],
            [link.walletId, Bucket.free, link.amount + link.fee]
          ]
        )
      } else {
        assert.deepStrictEqual(cancel.postings, [])
        const credit = finish.postings.find((p) => p.walletId === link.walletId)!
        assert.strictEqual(credit.bucket, Bucket.free)
        assert.strictEqual(credit.delta, link.amount)
      }
    }
  })

  it("verdicts of the read-back, the externalId form, the baseUrl rule", () => {
    for (const state of ["Paid", "PartiallyRefunded", "Refunded"]) assert.strictEqual(verdictOf(state), "finish")
    for (const state of ["Expired", "Canceled", "Failed"]) assert.strictEqual(verdictOf(state), "cancel")
    for (const state of ["Created", "Started", "Processing", undefined, 8]) assert.strictEqual(verdictOf(state), "none")
    assert.strictEqual(txIdOfExternal(externalIdOf(123n)), 123n)
    for (const bad of ["fed-", "fed-x", "fed-1-2", "FED-1", 5, null, "fed-12345678901234567890"])
      assert.isUndefined(txIdOfExternal(bad))
    assert.strictEqual(originOf("https://b.example"), "https://b.example")
    assert.strictEqual(originOf("http://127.0.0.1:8080/"), "http://127.0.0.1:8080")
    for (const bad of [
      "https://b.example/x",
      "https://b.example?q=1",
      "https://u:p@b.example",
      "ftp://b",
      "b.example",
      "https://b.example#f"
    ])
      assert.isUndefined(originOf(bad), bad)
  })
})
