/**
 * What a scanner's block decides (C15 "Scanner pushes", "Deposits", the out items of
 * "Withdrawals"), as a pure plan over what the chain actor loaded: the header change, the items
 * recorded, and every crypto transaction changed in the working set — orphaned Incomes cancelled,
 * Finished ones flagged, new Incomes, bound withdrawals, then finality at the new tip.
 */
import type { CryptoTx, ItemRow } from "../../sql/ChainRepo.ts"
import { type EventInsert, type KindRows, rowsOf, SystemWallet } from "../../sql/Ledger.ts"
import { type ChainItem, ChainHeads, ChainItems, Stage } from "../../sql/rows/CryptoRows.ts"
import { TxState } from "../../schema/Transfer.ts"
import { type ChainView, finalHeight, type Placement, windowFloorAt } from "./Engine.ts"
import { type OrderIncomeFacts, type OrderIncomesPlan, planOrderIncomes } from "./OrderIncomes.ts"
import type { PushedItem, PushItem } from "./Protocol.ts"
import {
  incomeCanceled,
  incomeCredited,
  incomeSeen,
  refundFinished,
  refundingIncomeCanceled,
  withdrawalFinished,
  type WorkingSet
} from "./WorkingSet.ts"

export const TxKind = { Income: 1, Outcome: 2, Refund: 19 } as const

export interface TerminalFacts {
  readonly id: bigint
  readonly typeNetwork: number
  readonly currency: string
  readonly confirmations: number
  readonly requirePartnerInfo: boolean
}

export interface PushContext {
  readonly terminal: TerminalFacts
  readonly view: ChainView
  readonly placement: Exclude<Placement, { readonly _tag: "Refuse" }>
  readonly block: {
    readonly height: bigint
    readonly hash: string
    readonly parentHash: string
    readonly items: ReadonlyArray<PushItem>
  }
  /** Recorded items of the block's keys, by `itemKey`. */
  readonly recorded: ReadonlyMap<string, ItemRow>
  /** Current-chain items at or above a reorg's fork height (empty otherwise). */
  readonly orphanedItems: ReadonlyArray<ItemRow>
  readonly txs: WorkingSet
  /** The wallet whose deposit address (and memo) an in item pays, if any. */
  readonly ownerOf: (item: PushItem) => bigint | undefined
  readonly depositFee: (holder: bigint, amount: bigint) => { readonly fee: bigint; readonly profitWallet: bigint }
  readonly nextTxId: () => bigint
  readonly tick: bigint
  readonly addressKey: (address: string) => string
  /** The payment orders the block may pay (OrderIncomes.ts); none: every Income is a plain deposit. */
  readonly orderIncomes?: OrderIncomeFacts
}

export interface PushPlan {
  readonly rows: ReadonlyArray<KindRows>
  readonly events: ReadonlyArray<EventInsert>
  readonly answers: ReadonlyArray<PushedItem>
  readonly orphaned: ReadonlyArray<bigint>
  readonly tipHeight: bigint
  /** The orders' operations (OrderIncomes.ts), committed with the push, and the wallets they credit. */
  readonly orders: OrderIncomesPlan
}

export const itemKey = (txHash: string, index: bigint, direction: number): string => `${txHash}:${index}:${direction}`

const isFinal = (state: number) => (state & (TxState.Finished | TxState.Canceled)) !== 0

export const planPush = (ctx: PushContext): PushPlan => {
  const { terminal, block, txs, placement } = ctx
  const tokenNetwork = String(terminal.id)
  const events: Array<EventInsert> = []
  const reorgFrom = placement._tag === "Reorg" ? placement.from : null
  const orphaned = placement._tag === "Reorg" ? placement.orphaned : []

  // 1. A reorg orphans every item of the blocks it replaces.
  const finishedOrphans: Array<string> = []
  for (const item of ctx.orphanedItems) {
    if (item.txId === null) continue
    const tx = txs.get(item.txId)
    if (tx === undefined) continue
    if (tx.stage === Stage.Refunding && tx.typeTx === TxKind.Income) {
      // A deposit whose refund is under way is not Finished: orphaned, it is Canceled (C15 "Orphaned
      // block") and its refund stopped while it is not yet broadcast (Queued or HandedOff: the signer's
      // report or out item is refused from now on). A refund already broadcast may still land: the deposit
      // stays Refunding, flagged orphaned. Either way the DeepReorg event lists it for the operator.
      const refund = tx.refundTxId === null ? undefined : txs.get(tx.refundTxId)
      if (refund !== undefined && (refund.stage === Stage.Queued || refund.stage === Stage.HandedOff)) {
        txs.change(refund.txId, { txState: TxState.Canceled, stage: Stage.Canceled })
        txs.change(
          tx.txId,
          { txState: TxState.Canceled, stage: Stage.Canceled, orphaned: true },
          refundingIncomeCanceled(tx.walletTo, tx.currency, tx.amount)
        )
      } else if (!tx.orphaned) txs.change(tx.txId, { orphaned: true })
      finishedOrphans.push(String(tx.txId))
    } else if (tx.txState === TxState.Finished || tx.stage === Stage.Refunding) {
      if (!tx.orphaned) txs.change(tx.txId, { orphaned: true })
      if (tx.txState === TxState.Finished) finishedOrphans.push(String(tx.txId))
    } else if (tx.txState === TxState.Canceled) {
      continue
    } else if (tx.typeTx === TxKind.Income) {
      txs.change(
        tx.txId,
        { txState: TxState.Canceled, stage: Stage.Canceled, orphaned: true },
        incomeCanceled(tx.walletTo, tx.currency, tx.amount)
      )
    } else if (tx.stage === Stage.OnChain) {
      // A bound withdrawal or refund not yet final waits for its transaction to be mined again.
      txs.change(tx.txId, { stage: Stage.HandedOff, blockHeight: null, blockHash: null })
    }
  }
  const deep = orphaned.length >= terminal.confirmations
  if (deep) {
    events.push({
      kind: "DeepReorg",
      walletId: SystemWallet.Treasury,
      payload: {
        tokenNetwork,
        forkHeight: String(reorgFrom),
        orphanedHeights: orphaned.map(String),
        finishedTxIds: finishedOrphans
      }
    })
  }

  // 2. The block's items.
  const seenAt = { blockHeight: block.height, blockHash: block.hash }
  const itemRows: Array<ChainItem> = []
  const answers: Array<PushedItem> = []
  const inCurrentChain = (row: ItemRow) => !row.orphaned && (reorgFrom === null || row.blockHeight < reorgFrom)
  for (const item of block.items) {
    const direction = item.direction === "in" ? 0 : 1
    const recorded = ctx.recorded.get(itemKey(item.txHash, item.index, direction))
    const recordedTx = recorded?.txId == null ? undefined : txs.get(recorded.txId)
    const itemRow = (txId: bigint | null): ChainItem => ({
      terminalId: terminal.id,
      txHash: item.txHash,
      index: item.index,
      direction,
      fromAddress: item.from,
      fromKey: item.fromKey,
      toAddress: item.to,
      toKey: item.toKey,
      memo: item.memo,
      amount: item.amount,
      ...seenAt,
      txId,
      tick: ctx.tick
    })
    const answer = (txId: bigint | null, walletId: bigint | null) =>
      answers.push({ txHash: item.txHash, index: item.index, direction: item.direction, txId, walletId })

    // A recorded item still in the current chain changes nothing (a replay, or a key the scanner repeats).
    if (recorded !== undefined && inCurrentChain(recorded)) {
      answer(recorded.txId, direction === 0 ? (recordedTx?.walletTo ?? null) : null)
      continue
    }
    // A key whose transaction stands (an Income not cancelled, a Finished withdrawal) is re-attached to this block.
    const standing =
      recordedTx !== undefined &&
      recordedTx.txState !== TxState.Canceled &&
      (direction === 0 || (recordedTx.stage !== Stage.HandedOff && recordedTx.stage !== Stage.Broadcast))
    if (standing) {
      itemRows.push(itemRow(null))
      txs.change(recordedTx.txId, { ...seenAt, orphaned: false })
      answer(recordedTx.txId, direction === 0 ? recordedTx.walletTo : null)
      continue
    }
    if (direction === 0) {
      const holder = ctx.ownerOf(item) ?? SystemWallet.Unattributed
      // The fee is the holder's Deposit tariff at attribution (0 while unattributed).
      const { fee, profitWallet } =
        holder === SystemWallet.Unattributed ? { fee: 0n, profitWallet: null } : ctx.depositFee(holder, item.amount)
      const txId = ctx.nextTxId()
      txs.create(
        {
          txId,
          typeTx: TxKind.Income,
          txState: TxState.Created,
          walletFrom: SystemWallet.Treasury,
          walletTo: holder,
          currency: terminal.currency,
          amount: item.amount,
          fee,
          profitWallet,
          terminalId: terminal.id,
          stage: holder === SystemWallet.Unattributed ? Stage.Unattributed : Stage.Confirming,
          networkFee: 0n,
          txHash: item.txHash,
          idx: item.index,
          fromAddress: item.from,
          toAddress: item.to,
          memo: item.memo,
          ...seenAt,
          orphaned: false,
          partnerInfo: null,
          description: null,
          refundTxId: null,
          incomeTxId: null
        },
        incomeSeen(holder, terminal.currency, item.amount)
      )
      itemRows.push(itemRow(txId))
      answer(txId, holder)
      continue
    }

    // An out item binds the withdrawal or refund it names, if it pays that one's address and amount.
    const named = item.txId === null ? undefined : txs.get(item.txId)
    const binds =
      named !== undefined &&
      named.terminalId === terminal.id &&
      (named.typeTx === TxKind.Outcome || named.typeTx === TxKind.Refund) &&
      (named.stage === Stage.HandedOff || named.stage === Stage.Broadcast) &&
      named.toAddress !== null &&
      ctx.addressKey(named.toAddress) === item.toKey &&
      named.amount === item.amount
    if (binds) {
      txs.change(named.txId, { stage: Stage.OnChain, txHash: item.txHash, idx: item.index, ...seenAt })
      itemRows.push(itemRow(named.txId))
      answer(named.txId, null)
    } else {
      if (item.txId !== null)
        events.push({
          kind: "OutgoingMismatch",
          walletId: SystemWallet.Treasury,
          payload: { tokenNetwork, txId: String(item.txId), txHash: item.txHash, index: String(item.index) }
        })
      itemRows.push(itemRow(null))
      answer(null, null)
    }
  }

  // 3. Finality at the new tip.
  const tipHeight = placement._tag === "Replay" ? ctx.view.tip! : block.height
  const finalAt = finalHeight(tipHeight, terminal.confirmations)
  for (const tx of txs.all()) {
    if (tx.orphaned || tx.blockHeight === null || tx.blockHeight > finalAt || isFinal(tx.txState)) continue
    if (tx.typeTx === TxKind.Income && tx.txState === TxState.Created) {
      if (tx.stage === Stage.Unattributed) {
        txs.change(tx.txId, { txState: TxState.Created | TxState.Confirmed })
      } else if (tx.stage === Stage.Confirming) {
        if (terminal.requirePartnerInfo && tx.partnerInfo === null) {
          txs.change(tx.txId, { txState: TxState.Created | TxState.Confirmed, stage: Stage.AwaitingPartnerInfo })
        } else {
          txs.change(
            tx.txId,
            { txState: TxState.Finished, stage: Stage.Credited },
            incomeCredited(tx.walletTo, tx.profitWallet ?? SystemWallet.Fees, tx.currency, tx.amount, tx.fee)
          )
        }
      }
    } else if (tx.stage === Stage.OnChain && tx.typeTx === TxKind.Outcome) {
      txs.change(
        tx.txId,
        { txState: TxState.Finished, stage: Stage.Finished },
        withdrawalFinished(
          tx.walletFrom,
          tx.profitWallet ?? SystemWallet.Fees,
          tx.currency,
          tx.amount,
          tx.fee,
          tx.networkFee
        )
      )
    } else if (tx.stage === Stage.OnChain && tx.typeTx === TxKind.Refund) {
      txs.change(
        tx.txId,
        { txState: TxState.Finished, stage: Stage.Finished },
        refundFinished(tx.walletFrom, tx.currency, tx.amount + tx.fee)
      )
      if (tx.incomeTxId !== null && txs.get(tx.incomeTxId) !== undefined)
        txs.change(tx.incomeTxId, { txState: TxState.Canceled, stage: Stage.Refunded })
    }
  }

  const head = {
    terminalId: terminal.id,
    height: block.height,
    hash: block.hash,
    parentHash: block.parentHash,
    truncateFrom: reorgFrom,
    windowFloor: windowFloorAt(block.height),
    reorg: reorgFrom !== null,
    deep,
    tick: ctx.tick,
    append: placement._tag !== "Replay",
    expectTip: ctx.view.tip === null ? null : (ctx.view.hashes.get(ctx.view.tip) ?? null)
  }
  return {
    rows: [rowsOf(ChainHeads, [head]), ...(itemRows.length === 0 ? [] : [rowsOf(ChainItems, itemRows)])],
    events,
    answers,
    orphaned,
    tipHeight,
    orders:
      ctx.orderIncomes === undefined
        ? { operations: [], credited: [] }
        : planOrderIncomes(ctx.orderIncomes, terminal.id, txs, ctx.addressKey, ctx.depositFee)
  }
}
