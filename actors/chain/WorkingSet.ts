/**
 * The crypto transactions one decision of the chain actor touches, as snapshots it changes in
 * memory, then emits as ledger operations: one per transaction, each a transition from the state
 * it was loaded in plus a `crypto_tx_update` conditional on the stage it was loaded in (docs/CRYPTO.md
 * "The one rule"), or a new transaction with its `crypto_tx_insert`. Pure: no I/O.
 */
import type { CryptoTx } from "../../sql/ChainRepo.ts"
import { Bucket, type EventInsert, type LedgerOperation, type Posting, rowsOf, SystemWallet } from "../../sql/Ledger.ts"
import { CryptoTxInserts, type CryptoTxPatch, CryptoTxUpdates } from "../../sql/rows/CryptoRows.ts"

interface Entry {
  readonly before: CryptoTx | null
  now: CryptoTx
  readonly postings: Array<Posting>
  readonly events: Array<EventInsert>
  changed: boolean
}

const post = (walletId: bigint, currency: string, bucket: Bucket, delta: bigint): Array<Posting> =>
  delta === 0n ? [] : [{ walletId, currency, bucket, delta }]

/** The chain fields a change may set, compared between the loaded and the changed snapshot. */
const patchOf = (before: CryptoTx, now: CryptoTx): CryptoTxPatch => {
  const patch: Record<string, unknown> = {}
  const text = (v: bigint | null) => (v === null ? null : String(v))
  if (now.txHash !== before.txHash) patch.txHash = now.txHash
  if (now.idx !== before.idx) patch.index = text(now.idx)
  if (now.fromAddress !== before.fromAddress) patch.fromAddress = now.fromAddress
  if (now.blockHeight !== before.blockHeight) patch.blockHeight = text(now.blockHeight)
  if (now.blockHash !== before.blockHash) patch.blockHash = now.blockHash
  if (now.orphaned !== before.orphaned) patch.orphaned = now.orphaned
  if (now.partnerInfo !== before.partnerInfo) patch.partnerInfo = now.partnerInfo
  if (now.description !== before.description) patch.description = now.description
  if (now.refundTxId !== before.refundTxId) patch.refundTxId = text(now.refundTxId)
  if (now.profitWallet !== before.profitWallet) patch.profitWallet = text(now.profitWallet)
  return patch as CryptoTxPatch
}

export const makeWorkingSet = (loaded: Iterable<CryptoTx>) => {
  const entries = new Map<bigint, Entry>()
  for (const tx of loaded) entries.set(tx.txId, { before: tx, now: tx, postings: [], events: [], changed: false })

  const entry = (txId: bigint): Entry => {
    const found = entries.get(txId)
    if (found === undefined) throw new Error(`invariant: crypto transaction ${txId} was not loaded`)
    return found
  }

  return {
    get: (txId: bigint): CryptoTx | undefined => entries.get(txId)?.now,
    all: (): ReadonlyArray<CryptoTx> => [...entries.values()].map((e) => e.now),
    /** A new transaction (an Income first seen, a refund). */
    create: (tx: CryptoTx, postings: ReadonlyArray<Posting>) => {
      entries.set(tx.txId, { before: null, now: tx, postings: [...postings], events: [], changed: true })
    },
    /** Changes a snapshot; postings accumulate. */
    change: (txId: bigint, next: Partial<CryptoTx>, postings: ReadonlyArray<Posting> = []) => {
      const e = entry(txId)
      e.now = { ...e.now, ...next }
      e.postings.push(...postings)
      e.changed = true
    },
    event: (txId: bigint, event: EventInsert) => entry(txId).events.push(event),
    /** The changed snapshots in the order first touched: as loaded (null: created here) and now. */
    changes: (): ReadonlyArray<{ readonly before: CryptoTx | null; readonly now: CryptoTx }> =>
      [...entries.values()].filter((e) => e.changed).map((e) => ({ before: e.before, now: e.now })),
    /** Drops a transaction's postings (another operation of the commit books its money) and applies `next`. */
    takeOver: (txId: bigint, next: Partial<CryptoTx>) => {
      const e = entry(txId)
      e.now = { ...e.now, ...next }
      e.postings.length = 0
      e.changed = true
    },
    /** One operation per changed transaction, in the order they were first touched. */
    operations: (): Array<LedgerOperation> => {
      const out: Array<LedgerOperation> = []
      for (const e of entries.values()) {
        if (!e.changed) continue
        const tx = e.now
        if (e.before === null) {
          out.push({
            tx: {
              id: tx.txId,
              typeTx: tx.typeTx,
              txState: tx.txState,
              walletFrom: tx.walletFrom,
              walletTo: tx.walletTo,
              currency: tx.currency,
              amount: tx.amount,
              fee: tx.fee,
              tag: null,
              appId: null,
              externalId: null,
              requestHash: null,
              profitWallet: tx.profitWallet
            },
            postings: e.postings,
            events: e.events,
            rows: [
              rowsOf(CryptoTxInserts, [
                {
                  txId: tx.txId,
                  terminalId: tx.terminalId,
                  typeTx: tx.typeTx,
                  stage: tx.stage,
                  networkFee: tx.networkFee,
                  txHash: tx.txHash,
                  index: tx.idx,
                  fromAddress: tx.fromAddress,
                  toAddress: tx.toAddress,
                  memo: tx.memo,
                  blockHeight: tx.blockHeight,
                  blockHash: tx.blockHash,
                  sourceAddress: null,
                  sourceIndex: null,
                  incomeTxId: tx.incomeTxId,
                  queued: tx.typeTx !== 1
                }
              ])
            ]
          })
          continue
        }
        const before = e.before
        out.push({
          transition: {
            id: tx.txId,
            from: before.txState,
            to: tx.txState,
            ...(tx.walletTo !== before.walletTo ? { walletTo: tx.walletTo } : {}),
            ...(tx.fee !== before.fee ? { fee: tx.fee } : {})
          },
          postings: e.postings,
          events: e.events,
          rows: [
            rowsOf(CryptoTxUpdates, [
              {
                txId: tx.txId,
                fromStages: [before.stage],
                stage: tx.stage !== before.stage ? tx.stage : null,
                patch: patchOf(before, tx)
              }
            ])
          ]
        })
      }
      return out
    },
    /** User wallets whose free balance the operations change (their actors reload). */
    creditedWallets: (): ReadonlyArray<bigint> => {
      const ids = new Set<bigint>()
      for (const e of entries.values())
        for (const p of e.postings) if (p.walletId > 0n && p.bucket === Bucket.free) ids.add(p.walletId)
      return [...ids]
    }
  }
}

export type WorkingSet = ReturnType<typeof makeWorkingSet>

// Money of C15 (docs/CRYPTO.md "Transactions, stages and money") ----------------------------------

/** An Income seen: Treasury free −A, holder lock_in +A. */
export const incomeSeen = (holder: bigint, currency: string, amount: bigint): Array<Posting> => [
  ...post(SystemWallet.Treasury, currency, Bucket.free, -amount),
  ...post(holder, currency, Bucket.lockIn, amount)
]

/** An Income orphaned before Finished: holder lock_in −A, Treasury +A. */
export const incomeCanceled = (holder: bigint, currency: string, amount: bigint): Array<Posting> => [
  ...post(holder, currency, Bucket.lockIn, -amount),
  ...post(SystemWallet.Treasury, currency, Bucket.free, amount)
]

/** An Income credited: holder lock_in −A, free +A − fee, profit wallet +fee. */
export const incomeCredited = (
  holder: bigint,
  profit: bigint,
  currency: string,
  amount: bigint,
  fee: bigint
): Array<Posting> => [
  ...post(holder, currency, Bucket.lockIn, -amount),
  ...post(holder, currency, Bucket.free, amount - fee),
  ...post(profit, currency, Bucket.free, fee)
]

/** An unattributed Income moved to a wallet: −4 lock_in −A, wallet lock_in +A. */
export const incomeLinked = (wallet: bigint, currency: string, amount: bigint): Array<Posting> => [
  ...post(SystemWallet.Unattributed, currency, Bucket.lockIn, -amount),
  ...post(wallet, currency, Bucket.lockIn, amount)
]

/** A refund started: holder lock_in −A, lock_out +A. */
export const refundStarted = (holder: bigint, currency: string, amount: bigint): Array<Posting> => [
  ...post(holder, currency, Bucket.lockIn, -amount),
  ...post(holder, currency, Bucket.lockOut, amount)
]

/** A deposit under refund orphaned, its refund stopped: holder lock_out −A, Treasury +A. */
export const refundingIncomeCanceled = (holder: bigint, currency: string, amount: bigint): Array<Posting> => [
  ...post(holder, currency, Bucket.lockOut, -amount),
  ...post(SystemWallet.Treasury, currency, Bucket.free, amount)
]

/** A withdrawal final: lock_out −(A + fee), Treasury +(A + networkFee), profit wallet +(fee − networkFee). */
export const withdrawalFinished = (
  wallet: bigint,
  profit: bigint,
  currency: string,
  amount: bigint,
  fee: bigint,
  networkFee: bigint
): Array<Posting> => [
  ...post(wallet, currency, Bucket.lockOut, -(amount + fee)),
  ...post(SystemWallet.Treasury, currency, Bucket.free, amount + networkFee),
  ...post(profit, currency, Bucket.free, fee - networkFee)
]

/** A refund final: lock_out −A, Treasury +A (A = the refund's amount + its network fee). */
export const refundFinished = (wallet: bigint, currency: string, total: bigint): Array<Posting> => [
  ...post(wallet, currency, Bucket.lockOut, -total),
  ...post(SystemWallet.Treasury, currency, Bucket.free, total)
]
