/**
 * Refunds of crypto-paid orders (CONTRACT C16 "Refunds", destination Crypto) ride on a C15 withdrawal,
 * as crypto payouts do (actors/payment/Payouts.ts, PayoutSettlement.ts):
 *
 * - `refundWithdrawalOperation`: in the refund_payment commit, beside the refund (typeTx 19, Pending,
 *   the engine's amount + fee free → lock_out), an Outcome (typeTx 2, txState 3) of the merchant wallet
 *   for the refund's amount with the Refund fee and its profit wallet, its crypto record Queued for the
 *   signer (networkFee 0: the Refund fee covers the chain) to refundAddress, and its link to the refund.
 *   No postings: the engine's reserve is exactly what a withdrawal's step one would have put in lock_out.
 * - `refundSettlements`: where C15 settles that withdrawal (the WithdrawalSettlement hook), the refund's
 *   transaction 1 → 8 / 16, its row Finished / Failed (finished_at), and its order's update by the
 *   engine's `refundSettled` (refundedAmount, pendingRefunds, state 9/10) with the order's 8 → 8
 *   transition. No postings either: the engine's `refundSettled` postings equal the withdrawal's own
 *   (final: lock_out −(amount + fee), Treasury +amount, fee → profit; failed or cancelled: lock_out →
 *   free amount + fee) because payCurrency = currency (so payoutAmount = amount), networkFee is 0 and
 *   the withdrawal carries the refund's amount, fee and profit wallet. The withdrawal's commit moves
 *   that money; adding the engine's would move it twice.
 */
import { Effect } from "effect"
import { type LedgerOperation, rowsOf, SystemWallet } from "../../sql/Ledger.ts"
import { refundLinksOf, type RefundLink } from "../../sql/CryptoRefundRepo.ts"
import { paymentOrderByTx } from "../../sql/PaymentOrderRepo.ts"
import { PaymentRefundSettles, RefundWithdrawals } from "../../sql/rows/CryptoRefundRows.ts"
import { CryptoTxInserts, Stage } from "../../sql/rows/CryptoRows.ts"
import { TxState, TxType } from "../../schema/Transfer.ts"
import type { Db } from "../../src/platform/db/Sql.ts"
import { type OrderState, refundSettled } from "./Engine.ts"
import { orderUpdateRow, stateOfRow } from "./OrderRow.ts"
import type { PayoutWithdrawalSchema } from "./Protocol.ts"

/** The crypto refund's C15 withdrawal, queued in the refund_payment commit (no postings of its own). */
export const refundWithdrawalOperation = (
  refundTxId: bigint,
  s: OrderState,
  refund: { readonly amount: bigint; readonly fee: bigint; readonly profitWallet: bigint },
  w: typeof PayoutWithdrawalSchema.Type
): LedgerOperation => ({
  tx: {
    id: w.txId,
    typeTx: TxType.Outcome,
    txState: TxState.Created | TxState.Confirmed,
    walletFrom: s.merchantWallet,
    walletTo: SystemWallet.Treasury,
    currency: s.currency,
    amount: refund.amount,
    fee: refund.fee,
    tag: null,
    appId: null,
    externalId: null,
    requestHash: null,
    profitWallet: refund.profitWallet
  },
  postings: [],
  rows: [
    rowsOf(CryptoTxInserts, [
      {
        txId: w.txId,
        terminalId: w.terminalId,
        typeTx: TxType.Outcome,
        stage: Stage.Queued,
        networkFee: 0n,
        txHash: null,
        index: null,
        fromAddress: null,
        toAddress: w.address,
        memo: w.memo,
        blockHeight: null,
        blockHash: null,
        sourceAddress: null,
        sourceIndex: null,
        incomeTxId: null,
        queued: true
      }
    ]),
    rowsOf(RefundWithdrawals, [{ withdrawalTxId: w.txId, refundTxId }])
  ]
})

/**
 * The refunds these settled withdrawals send (id → final), settled: one operation per refund (its
 * transition and row) and one per order (all of its refunds settled in this commit applied in turn, so
 * the order's conditional update is written once).
 */
export const refundSettlements = (db: Db, settled: ReadonlyMap<bigint, boolean>) =>
  Effect.gen(function* () {
    if (settled.size === 0) return [] as ReadonlyArray<LedgerOperation>
    const links = yield* db(refundLinksOf([...settled.keys()]))
    const byOrder = new Map<bigint, Array<RefundLink>>()
    for (const link of links) byOrder.set(link.orderTxId, [...(byOrder.get(link.orderTxId) ?? []), link])
    const added: Array<LedgerOperation> = []
    for (const [orderTxId, ofOrder] of byOrder) {
      const row = yield* db(paymentOrderByTx(orderTxId))
      if (row === undefined) {
        yield* Effect.logError(`crypto refunds of order ${orderTxId}: no such order; left unchanged`)
        continue
      }
      const before = stateOfRow(row)
      let state = before
      for (const link of ofOrder) {
        const final = settled.get(link.withdrawalTxId)!
        const decision = refundSettled(state, {
          amount: link.amount,
          fee: link.fee,
          feeProfitWallet: link.profitWallet,
          final
        })
        // A withdrawal settles once and its refund is Pending until then. Should that ever not hold, the
        // withdrawal still settles (its money is right on its own) and the refund is left as it is,
        // loudly: stopping a chain's pushes or the signer's reports would be worse.
        if (link.stateCode !== 1 || decision._tag === "Reject") {
          yield* Effect.logError(
            `crypto refund ${link.refundTxId} of withdrawal ${link.withdrawalTxId} is not Pending; left unchanged`
          )
          continue
        }
        state = decision.state
        added.push({
          transition: {
            id: link.refundTxId,
            from: link.refundTxState,
            to: final ? TxState.Finished : TxState.Canceled
          },
          postings: [],
          rows: [
            rowsOf(PaymentRefundSettles, [{ txId: link.refundTxId, stateCode: final ? (8 as const) : (16 as const) }])
          ]
        })
      }
      if (state === before) continue
      added.push({
        transition: { id: row.txId, from: row.txState, to: state.txState },
        postings: [],
        rows: [orderUpdateRow(row, before, state)]
      })
    }
    return added
  })
