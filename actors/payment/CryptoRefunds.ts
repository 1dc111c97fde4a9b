/**
 * Refunds of crypto-paid orders (CONTRACT C16 "Refunds", destination Crypto) ride on a C15 withdrawal,
 * as crypto payouts do (actors/payment/Payouts.ts, PayoutSettlement.ts), in the order currency or in
 * another one (an order in USDT paid in BTC through the Broker):
 *
 * - `refundWithdrawalOperation`: in the refund_payment commit, beside the refund (typeTx 19, Pending,
 *   the engine's amount + fee free → lock_out in the order currency), a C15 Refund (typeTx 19, txState
 *   3, the signer's kind "Refund") of the merchant wallet of what the chain pays: payoutAmount in
 *   payCurrency (the terminal's currency) less the terminal's networkFee, fee networkFee, its crypto
 *   record Queued for the signer to refundAddress, and its link to the refund. No postings: the money is
 *   the refund's (Treasury +payoutAmount when final: what is sent plus the chain's fee).
 * - `refundSettlements`: where C15 settles that withdrawal (the WithdrawalSettlement hook), the refund's
 *   transaction 1 → 8 / 16 with the engine's `refundSettled` postings (final: lock_out −(amount + fee),
 *   fee → profit, Treasury +payoutAmount in payCurrency, the Broker's legs when the currencies differ;
 *   failed or cancelled: lock_out → free amount + fee), its row Finished / Failed (finished_at), and its
 *   order's update (refundedAmount, pendingRefunds, state 9/10) with the order's 8 → 8 transition. The
 *   withdrawal is taken over: its own settlement postings (one currency: lock_out → Treasury of its
 *   amount) are dropped from the commit, so each unit moves once, by the refund.
 */
import { Effect } from "effect"
import { type LedgerOperation, rowsOf } from "../../sql/Ledger.ts"
import { refundLinksOf, type RefundLink } from "../../sql/CryptoRefundRepo.ts"
import { paymentOrderByTx } from "../../sql/PaymentOrderRepo.ts"
import { PaymentRefundSettles, RefundWithdrawals } from "../../sql/rows/CryptoRefundRows.ts"
import { TxState, TxType } from "../../schema/Transfer.ts"
import type { Db } from "../../src/platform/db/Sql.ts"
import type { Settlements } from "../../src/platform/WithdrawalSettlement.ts"
import { type OrderState, refundSettled } from "./Engine.ts"
import { orderUpdateRow, stateOfRow } from "./OrderRow.ts"
import type { PayoutWithdrawalSchema } from "./Protocol.ts"
import { queuedWithdrawalOperation } from "./QueuedWithdrawal.ts"

/**
 * The crypto refund as a C15 Refund (C16 "a C15 Refund on the order's terminal"), queued in the
 * refund_payment commit: typeTx 19 (the signer's kind "Refund") of what the chain pays — payoutAmount in
 * payCurrency less the terminal's networkFee, charged once per refund as C15 does (amount A − networkFee,
 * fee networkFee) —, no postings of its own. The caller has checked payoutAmount > networkFee (10233).
 */
export const refundWithdrawalOperation = (
  refundTxId: bigint,
  s: OrderState,
  payout: { readonly amount: bigint; readonly currency: string; readonly networkFee: bigint },
  w: typeof PayoutWithdrawalSchema.Type
): LedgerOperation =>
  queuedWithdrawalOperation(
    w,
    {
      merchantWallet: s.merchantWallet,
      currency: payout.currency,
      amount: payout.amount - payout.networkFee,
      fee: payout.networkFee,
      profitWallet: null,
      kind: TxType.Refund,
      networkFee: payout.networkFee
    },
    rowsOf(RefundWithdrawals, [{ withdrawalTxId: w.txId, refundTxId }])
  )

/**
 * The refunds these settled withdrawals send (id → final), settled: one operation per refund (its
 * transition, row and the engine's postings) and one per order (all of its refunds settled in this
 * commit applied in turn, so the order's conditional update is written once). Every linked withdrawal
 * is taken over, also one whose refund is not Pending any more (its money has moved already).
 */
export const refundSettlements = (db: Db, settled: ReadonlyMap<bigint, boolean>) =>
  Effect.gen(function* () {
    if (settled.size === 0) return { added: [], takenOver: new Set<bigint>() } as Settlements
    const links = yield* db(refundLinksOf([...settled.keys()]))
    const takenOver = new Set(links.map((link) => link.withdrawalTxId))
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
        // withdrawal still settles, moving no money (the refund's settlement moved it already), and the
        // refund is left as it is, loudly: stopping a chain's pushes or the signer's reports would be worse.
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
          postings: decision.postings,
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
    return { added, takenOver } as Settlements
  })
