/**
 * A deposit refund's end through the ledger writer on a real database (src/services/crypto/CryptoTxOps.ts,
 * docs/CRYPTO.md): the Refund's cancel moves the Income's A lock_out → lock_in and puts the Income
 * back to AwaitingPartnerInfo with no refund linked, in one commit; a hand-off and a cancel of the
 * same Queued item sent together end in exactly one outcome (the crypto_tx_update conditions). The
 * Income and Refund are written here as init_refund will write them (it is not on this branch).
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { TxType } from "../../schema/Transfer.ts"
import { Bucket, type LedgerOperation, rowsOf, SystemWallet } from "../../sql/Ledger.ts"
import { type CryptoTxInsert, CryptoTxInserts, CryptoTxUpdates, Stage } from "../../sql/rows/CryptoRows.ts"
import { LedgerWriter } from "../../src/platform/LedgerWriter.ts"
import { endUnsent, handOff, type QueuedTx } from "../../src/services/crypto/CryptoTxOps.ts"
import { ActorPlatform, auditLedger, newTxId, newWallet } from "../support/Actors.ts"

const A = 10_000_000n
const networkFee = 1_000_000n

const record = (
  txId: bigint,
  terminalId: bigint,
  typeTx: number,
  stage: Stage,
  more: Partial<CryptoTxInsert> = {}
): CryptoTxInsert => ({
  txId,
  terminalId,
  typeTx,
  stage,
  networkFee,
  txHash: null,
  index: null,
  fromAddress: null,
  toAddress: null,
  memo: null,
  blockHeight: null,
  blockHash: null,
  sourceAddress: null,
  sourceIndex: null,
  incomeTxId: null,
  queued: false,
  ...more
})

/** A final Income held for partner info (txState 3) with a Queued Refund of it (init_refund's commit). */
const incomeWithRefund = Effect.fnUntraced(function* () {
  const sql = yield* SqlClient.SqlClient
  const ledger = yield* LedgerWriter
  const [terminal] = yield* sql<{ id: string }>`SELECT id FROM terminals ORDER BY id LIMIT 1`.pipe(Effect.orDie)
  const terminalId = BigInt(terminal.id)
  const wallet = yield* newWallet()
  const incomeId = newTxId()
  const refundId = newTxId()
  const base = { currency: "USDT", tag: null, appId: null, externalId: null, requestHash: null }
  yield* ledger.commit({
    tx: {
      ...base,
      id: incomeId,
      typeTx: TxType.Income,
      txState: 3,
      walletFrom: SystemWallet.Treasury,
      walletTo: wallet,
      amount: A,
      fee: 0n
    },
    postings: [
      { walletId: SystemWallet.Treasury, currency: "USDT", bucket: Bucket.free, delta: -A },
      { walletId: wallet, currency: "USDT", bucket: Bucket.lockIn, delta: A }
    ],
    rows: [
      rowsOf(CryptoTxInserts, [
        record(incomeId, terminalId, TxType.Income, Stage.AwaitingPartnerInfo, { fromAddress: "x" })
      ])
    ]
  })
  yield* ledger.commit({
    tx: {
      ...base,
      id: refundId,
      typeTx: TxType.Refund,
      txState: 3,
      walletFrom: wallet,
      walletTo: SystemWallet.Treasury,
      amount: A - networkFee,
      fee: networkFee
    },
    postings: [
      { walletId: wallet, currency: "USDT", bucket: Bucket.lockIn, delta: -A },
      { walletId: wallet, currency: "USDT", bucket: Bucket.lockOut, delta: A }
    ],
    rows: [
      rowsOf(CryptoTxInserts, [
        record(refundId, terminalId, TxType.Refund, Stage.Queued, {
          toAddress: "x",
          incomeTxId: incomeId,
          queued: true
        })
      ])
    ],
    extra: [
      {
        transition: { id: incomeId, from: 3, to: 3 },
        postings: [],
        rows: [
          rowsOf(CryptoTxUpdates, [
            {
              txId: incomeId,
              fromStages: [Stage.AwaitingPartnerInfo],
              stage: Stage.Refunding,
              patch: { refundTxId: String(refundId) }
            }
          ])
        ]
      }
    ]
  })
  const refund: QueuedTx = {
    txId: refundId,
    typeTx: TxType.Refund,
    txState: 3,
    walletFrom: wallet,
    currency: "USDT",
    amount: A - networkFee,
    fee: networkFee,
    incomeTxId: incomeId
  }
  return { wallet, incomeId, refundId, refund }
})

const stateOf = Effect.fnUntraced(function* (wallet: bigint, incomeId: bigint, refundId: bigint) {
  const sql = yield* SqlClient.SqlClient
  const [b] = yield* sql<{
    lock_in: string
    lock_out: string
  }>`SELECT lock_in::text AS lock_in, lock_out::text AS lock_out
    FROM balances WHERE wallet_id = ${String(wallet)} AND currency = 'USDT'`.pipe(Effect.orDie)
  const rows = yield* sql<{
    tx_id: string
    stage: string
    refund_tx_id: string | null
    tx_state: number
  }>`SELECT c.tx_id::text AS tx_id,
      c.stage, c.refund_tx_id::text AS refund_tx_id, t.tx_state FROM crypto_txs c JOIN transactions t ON t.id = c.tx_id
    WHERE c.tx_id IN (${String(incomeId)}, ${String(refundId)})`.pipe(Effect.orDie)
  const of = (id: bigint) => rows.find((r) => r.tx_id === String(id))!
  return { lockIn: BigInt(b.lock_in), lockOut: BigInt(b.lock_out), income: of(incomeId), refund: of(refundId) }
})

layer(ActorPlatform, { excludeTestServices: true, timeout: 120_000 })("a deposit refund's end", (it) => {
  it.effect("a cancelled Refund: lock_out → lock_in, the Income AwaitingPartnerInfo again with no refund", () =>
    Effect.gen(function* () {
      const ledger = yield* LedgerWriter
      const { wallet, incomeId, refundId, refund } = yield* incomeWithRefund()
      const before = yield* stateOf(wallet, incomeId, refundId)
      assert.deepStrictEqual([before.lockIn, before.lockOut, before.income.stage], [0n, A, Stage.Refunding])
      assert.strictEqual(before.income.refund_tx_id, String(refundId))
      yield* ledger.commit(endUnsent(refund, [Stage.Queued], Stage.Canceled))
      const after = yield* stateOf(wallet, incomeId, refundId)
      assert.deepStrictEqual([after.lockIn, after.lockOut], [A, 0n])
      assert.deepStrictEqual([after.refund.stage, after.refund.tx_state], [Stage.Canceled, 16])
      assert.deepStrictEqual(
        [after.income.stage, after.income.tx_state, after.income.refund_tx_id],
        [Stage.AwaitingPartnerInfo, 3, null]
      )
      // Ended once: a second end finds the stage moved on and changes nothing.
      const again = yield* Effect.exit(ledger.commit(endUnsent(refund, [Stage.Queued], Stage.Canceled)))
      assert.isTrue(again._tag === "Failure")
      yield* auditLedger("refund cancel")
    })
  )

  it.effect("a hand-off and a cancel sent together: exactly one commits (10 rounds)", () =>
    Effect.gen(function* () {
      const ledger = yield* LedgerWriter
      for (let round = 0; round < 10; round++) {
        const { wallet, incomeId, refundId, refund } = yield* incomeWithRefund()
        const ops: Array<LedgerOperation> =
          round % 2 === 0
            ? [handOff(refund), endUnsent(refund, [Stage.Queued], Stage.Canceled)]
            : [endUnsent(refund, [Stage.Queued], Stage.Canceled), handOff(refund)]
        const exits = yield* Effect.forEach(ops, (op) => Effect.exit(ledger.commit(op)), { concurrency: "unbounded" })
        assert.strictEqual(exits.filter((e) => e._tag === "Success").length, 1, `round ${round}`)
        const after = yield* stateOf(wallet, incomeId, refundId)
        if (after.refund.stage === Stage.HandedOff) {
          assert.deepStrictEqual([after.lockIn, after.lockOut, after.income.stage], [0n, A, Stage.Refunding])
        } else {
          assert.strictEqual(after.refund.stage, Stage.Canceled)
          assert.deepStrictEqual([after.lockIn, after.lockOut, after.income.stage], [A, 0n, Stage.AwaitingPartnerInfo])
        }
      }
      yield* auditLedger("races")
    })
  )
})
