/**
 * Σ = 0 in SQL too (issue #22 item 17, migration 0032): `ledger_commit` refuses a batch whose postings do
 * not sum to zero per transaction and currency — defence in depth beside the LedgerWriter's own check —
 * with SQLSTATE LC422, writing nothing of the batch (no transaction row, no posting, no balance, no
 * tick); the writer classifies LC422 as a typed refusal (LedgerRefused "Unbalanced"), never a defect or a
 * retry. The balanced path is unchanged. Called here as the writer calls it (commitOperations: one
 * `SELECT ledger_commit(...)`), on the database the integration tests use (server or PGlite).
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { SqlClient } from "effect/sql"
import { TxType } from "../../schema/Transfer.ts"
import { Bucket, type LedgerOperation, SystemWallet } from "../../sql/Ledger.ts"
import { commitOperations } from "../../sql/LedgerCommit.ts"
import { sqlState } from "../../sql/SqlState.ts"
import { classify } from "../../src/platform/LedgerWriter.ts"
import { ActorPlatform, auditLedger, ledgerOf, newTxId, newWallet } from "../support/Actors.ts"

/** A Finished credit from the Treasury: Treasury −debit, wallet free +credit (balanced when equal). */
const credit = (wallet: bigint, debit: bigint, credited: bigint, currency = "USDT"): LedgerOperation => ({
  tx: {
    id: newTxId(),
    typeTx: TxType.InternalTx,
    txState: 8,
    walletFrom: SystemWallet.Treasury,
    walletTo: wallet,
    currency,
    amount: credited,
    fee: 0n,
    tag: null,
    appId: null,
    externalId: null,
    requestHash: null
  },
  postings: [
    { walletId: SystemWallet.Treasury, currency, bucket: Bucket.free, delta: -debit },
    { walletId: wallet, currency, bucket: Bucket.free, delta: credited }
  ]
})

const snapshot = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const [row] = yield* sql<{ tick: string; txs: string; postings: string }>`
    SELECT (SELECT tick::text FROM journal_clock) AS tick, (SELECT count(*)::text FROM transactions) AS txs,
      (SELECT count(*)::text FROM postings) AS postings`.pipe(Effect.orDie)
  return row
})

layer(ActorPlatform, { excludeTestServices: true, timeout: 60_000 })(
  "ledger_commit: Σ = 0 per transaction and currency",
  (it) => {
    it.effect("an unbalanced batch raises LC422 and writes nothing; the writer names it LedgerRefused", () =>
      Effect.gen(function* () {
        const wallet = yield* newWallet()
        const treasury0 = (yield* ledgerOf(SystemWallet.Treasury, "USDT")).free
        const before = yield* snapshot
        // A balanced operation beside an unbalanced one in the same batch: the whole batch is refused.
        const balanced = credit(wallet, 5n, 5n)
        const unbalanced = credit(wallet, 5n, 7n)
        const exit = yield* Effect.exit(commitOperations([balanced, unbalanced], 0n))
        assert.isTrue(Exit.isFailure(exit), "an unbalanced batch must not commit")
        const error = Exit.isFailure(exit) ? exit.cause.reasons.find((r) => r._tag === "Fail") : undefined
        const failure = (error as any)?.error
        assert.strictEqual(sqlState(failure), "LC422", JSON.stringify(exit))
        const refused = classify(failure)
        assert.strictEqual(refused?._tag, "LedgerRefused")
        assert.strictEqual(refused?._tag === "LedgerRefused" ? refused.reason : undefined, "Unbalanced")
        assert.deepStrictEqual(yield* snapshot, before, "no tick, no transaction, no posting")
        assert.strictEqual((yield* ledgerOf(wallet, "USDT")).free, 0n)
        assert.strictEqual((yield* ledgerOf(SystemWallet.Treasury, "USDT")).free, treasury0)
        // Unbalanced in one currency while another sums to zero (an exchange-like transaction): refused too.
        const mixed: LedgerOperation = {
          ...credit(wallet, 3n, 3n),
          postings: [...credit(wallet, 3n, 3n).postings, ...credit(wallet, 0n, 1n, "BTC").postings.slice(1)]
        }
        const exit2 = yield* Effect.exit(commitOperations([mixed], 0n))
        assert.isTrue(Exit.isFailure(exit2))
        assert.include(JSON.stringify(exit2), "LC422")
        assert.deepStrictEqual(yield* snapshot, before)
        yield* auditLedger("after the refused batches")
      })
    )

    it.effect("the balanced path is unchanged: a batch of several currencies commits", () =>
      Effect.gen(function* () {
        const wallet = yield* newWallet()
        yield* commitOperations([credit(wallet, 5n, 5n), credit(wallet, 2n, 2n, "BTC")], 0n)
        assert.strictEqual((yield* ledgerOf(wallet, "USDT")).free, 5n)
        assert.strictEqual((yield* ledgerOf(wallet, "BTC")).free, 2n)
        yield* auditLedger("after the balanced batch")
      })
    )
  }
)
