/**
 * Two conditional changes of one transaction in one ledger batch that do not chain (both Created →
 * Finished: a webhook and a reconciliation of one payment, say) — migration 0029. The batch's multi-row
 * UPDATE applies one of them; the batch must then fail as stale (LC409) instead of booking both
 * operations' money, and the ledger writer, retrying one operation at a time, lets exactly one through.
 * Checked on one commitOperations call (a batch as the writer builds it) and through the writer with
 * the two sent at once; the wallet is credited once and the ledger audit stays sound.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { TxType } from "../../schema/Transfer.ts"
import { Bucket, type LedgerOperation, SystemWallet } from "../../sql/Ledger.ts"
import { commitOperations } from "../../sql/LedgerCommit.ts"
import { LedgerWriter } from "../../src/platform/LedgerWriter.ts"
import { ActorPlatform, auditLedger, ledgerOf, newTxId, newWallet } from "../support/Actors.ts"

const A = 5_000_000n

/** A Created (1) credit of A to a new wallet: nothing booked yet. */
const pendingCredit = Effect.fnUntraced(function* () {
  const ledger = yield* LedgerWriter
  const wallet = yield* newWallet()
  const id = newTxId()
  yield* ledger.commit({
    tx: {
      id,
      typeTx: TxType.InternalTx,
      txState: 1,
      walletFrom: SystemWallet.Treasury,
      walletTo: wallet,
      currency: "USDT",
      amount: A,
      fee: 0n,
      tag: null,
      appId: null,
      externalId: null,
      requestHash: null
    },
    postings: []
  })
  return { wallet, id }
})

/** Created → Finished with the credit: Treasury −A, wallet free +A. */
const finish = (id: bigint, wallet: bigint): LedgerOperation => ({
  transition: { id, from: 1, to: 8 },
  postings: [
    { walletId: SystemWallet.Treasury, currency: "USDT", bucket: Bucket.free, delta: -A },
    { walletId: wallet, currency: "USDT", bucket: Bucket.free, delta: A }
  ]
})

const freeOf = (wallet: bigint) => Effect.map(ledgerOf(wallet, "USDT"), (l) => l.free)

layer(ActorPlatform, { excludeTestServices: true, timeout: 60_000 })("ledger batch: one row changed twice", (it) => {
  it.effect("one batch with both: stale as a whole, nothing booked", () =>
    Effect.gen(function* () {
      const { wallet, id } = yield* pendingCredit()
      const exit = yield* Effect.exit(commitOperations([finish(id, wallet), finish(id, wallet)], 0n))
      assert.isTrue(Exit.isFailure(exit), "the batch must not book both")
      const failure = Exit.isFailure(exit) ? exit.cause.reasons.find((r) => r._tag === "Fail") : undefined
      const error = failure?._tag === "Fail" ? failure.error : undefined
      assert.strictEqual(error?._tag, "StateConflict", String(exit))
      // The stale row's id, read from ledger_commit's message by the one SQLSTATE reader (sql/SqlState.ts).
      assert.deepStrictEqual(error?._tag === "StateConflict" ? error.txIds : undefined, [id])
      assert.strictEqual(yield* freeOf(wallet), 0n)
      yield* auditLedger("after the refused batch")
    })
  )

  it.effect("through the ledger writer, sent at once ten times: one credit, the others stale", () =>
    Effect.gen(function* () {
      const ledger = yield* LedgerWriter
      const { wallet, id } = yield* pendingCredit()
      const exits = yield* Effect.forEach(
        Array.from({ length: 10 }),
        () => Effect.exit(ledger.commit(finish(id, wallet))),
        { concurrency: "unbounded" }
      )
      assert.strictEqual(exits.filter(Exit.isSuccess).length, 1, "exactly one commit")
      assert.strictEqual(yield* freeOf(wallet), A, "credited once")
      yield* auditLedger("after ten racing finishes")
    })
  )
})
