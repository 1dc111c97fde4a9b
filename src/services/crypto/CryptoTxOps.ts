/**
 * The ledger operations that change a queued or handed-off withdrawal or deposit refund (CONTRACT
 * C15; docs/CRYPTO.md "The one rule for changes"): each is one operation with a transition and a
 * crypto_tx_update naming the stages it may leave, so a cancel racing a hand-off, or a failure
 * report racing a binding, ends in exactly one outcome.
 */
import { Bucket, type LedgerOperation, type Posting, rowsOf } from "../../../sql/Ledger.ts"
import { type CryptoTxPatch, CryptoTxUpdates, Stage } from "../../../sql/rows/CryptoRows.ts"
import { TxState, TxType } from "../../../schema/Transfer.ts"

/** What an operation needs of the transaction it changes. */
export interface QueuedTx {
  readonly txId: bigint
  readonly typeTx: number
  readonly txState: number
  readonly walletFrom: bigint
  readonly currency: string
  readonly amount: bigint
  readonly fee: bigint
  readonly incomeTxId: bigint | null
}

const move = (walletId: bigint, currency: string, from: Bucket, to: Bucket, amount: bigint): Array<Posting> => [
  { walletId, currency, bucket: from, delta: -amount },
  { walletId, currency, bucket: to, delta: amount }
]

const stageChange = (
  txId: bigint,
  fromStages: ReadonlyArray<Stage>,
  stage: Stage,
  patch: CryptoTxPatch = {}
): LedgerOperation["rows"] => [rowsOf(CryptoTxUpdates, [{ txId, fromStages, stage, patch }])]

/** A stage change that keeps the txState (3 → 3, which moves idUpdate). */
export const restage = (
  tx: QueuedTx,
  fromStages: ReadonlyArray<Stage>,
  stage: Stage,
  patch: CryptoTxPatch = {}
): LedgerOperation => ({
  transition: { id: tx.txId, from: tx.txState, to: tx.txState },
  postings: [],
  rows: stageChange(tx.txId, fromStages, stage, patch)
})

/** The signer took a Queued item. */
export const handOff = (tx: QueuedTx): LedgerOperation => restage(tx, [Stage.Queued], Stage.HandedOff)

/**
 * The end of an Outcome or a Refund that sent nothing (cancelled, or the signer's failure): txState
 * 16. An Outcome's amount + fee returns to free; a Refund's (the Income's A) returns to lock_in and
 * its Income, in the same commit, waits for partner info again with no refund linked.
 */
export const endUnsent = (
  tx: QueuedTx,
  fromStages: ReadonlyArray<Stage>,
  stage: typeof Stage.Canceled | typeof Stage.Failed,
  patch: CryptoTxPatch = {}
): LedgerOperation => {
  const total = tx.amount + tx.fee
  const refund = tx.typeTx === TxType.Refund
  const base: LedgerOperation = {
    transition: { id: tx.txId, from: tx.txState, to: TxState.Canceled },
    postings: move(tx.walletFrom, tx.currency, Bucket.lockOut, refund ? Bucket.lockIn : Bucket.free, total),
    rows: stageChange(tx.txId, fromStages, stage, patch)
  }
  if (!refund || tx.incomeTxId === null) return base
  const incomeState = TxState.Created | TxState.Confirmed
  return {
    ...base,
    extra: [
      {
        transition: { id: tx.incomeTxId, from: incomeState, to: incomeState },
        postings: [],
        rows: stageChange(tx.incomeTxId, [Stage.Refunding], Stage.AwaitingPartnerInfo, { refundTxId: null })
      }
    ]
  }
}
