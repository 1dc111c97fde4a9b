/**
 * Crypto payouts settle with their withdrawal (CONTRACT C16 "Started (payout, crypto)": Processing →
 * Paid / Failed): the implementation of the WithdrawalSettlement hook (src/platform). Given the
 * operations of a commit that settles C15 withdrawals, it finds the TransferOrders those withdrawals pay
 * out (payout_withdrawals) and adds each order's transition and conditional row, decided by the engine
 * (`payoutSettled`): final → Paid, failed or cancelled → Failed.
 *
 * Money: the engine's postings for this step are exactly the withdrawal's own (C15 Outcome final:
 * lock_out −(A + fee), Treasury +A, profit wallet +fee with networkFee 0; failed or cancelled: lock_out
 * −(A + fee), free +(A + fee)), since the payout's withdrawal is the order's reserve with the order's
 * amount, fee and profit wallet. The withdrawal's commit moves that money; the order's part moves none,
 * or it would move twice.
 *
 * The same hook settles crypto refunds of payment orders (their withdrawals are linked in
 * refund_withdrawals): actors/payment/CryptoRefunds.ts `refundSettlements`. Those differ in one way: a
 * refund's withdrawal pays payoutAmount in payCurrency, which may not be the order currency the
 * merchant's lock_out holds, so the hook takes those withdrawals over (their own postings are dropped)
 * and the refund's settlement books the engine's `refundSettled` postings instead.
 */
import { Effect, Layer } from "effect"
import type { LedgerOperation } from "../../sql/Ledger.ts"
import { paymentOrderByTx } from "../../sql/PaymentOrderRepo.ts"
import { payoutLinksOf } from "../../sql/PayoutRepo.ts"
import { TxState } from "../../schema/Transfer.ts"
import { makeDb } from "../../src/platform/db/Sql.ts"
import { WithdrawalSettlement } from "../../src/platform/WithdrawalSettlement.ts"
import { orderUpdateRow, stateOfRow } from "./Behaviour.ts"
import { refundSettlements } from "./CryptoRefunds.ts"
import { payoutSettled } from "./Engine.ts"

/** The withdrawals these operations settle: id → final (8) or not (16). */
export const settledWithdrawals = (operations: ReadonlyArray<LedgerOperation>): Map<bigint, boolean> => {
  const settled = new Map<bigint, boolean>()
  for (const op of operations) {
    const t = op.transition
    if (t === undefined || t.from === t.to) continue
    if (t.to === TxState.Finished || t.to === TxState.Canceled) settled.set(t.id, t.to === TxState.Finished)
  }
  return settled
}

export const PayoutSettlementLayer = Layer.effect(
  WithdrawalSettlement,
  Effect.gen(function* () {
    const db = yield* makeDb
    return WithdrawalSettlement.of({
      alongside: (operations) =>
        Effect.gen(function* () {
          const settled = settledWithdrawals(operations)
          if (settled.size === 0) return { added: [], takenOver: new Set<bigint>() }
          const links = yield* db(payoutLinksOf([...settled.keys()]))
          const added: Array<LedgerOperation> = []
          for (const link of links) {
            const row = yield* db(paymentOrderByTx(link.orderTxId))
            const before = row === undefined ? undefined : stateOfRow(row)
            const decision = before === undefined ? undefined : payoutSettled(before, settled.get(link.withdrawalTxId)!)
            // Only a Processing payout has a withdrawal in flight, and a withdrawal settles once. Should that
            // ever not hold, the withdrawal still settles (its money is right on its own) and the order is
            // left as it is, loudly: stopping a chain's pushes or the signer's reports would be worse.
            if (row === undefined || before === undefined || decision === undefined || decision._tag === "Reject") {
              yield* Effect.logError(
                `payout order ${link.orderTxId} of withdrawal ${link.withdrawalTxId} is not Processing; left unchanged`
              )
              continue
            }
            added.push({
              transition: { id: row.txId, from: row.txState, to: decision.state.txState },
              postings: [],
              rows: [orderUpdateRow(row, before, decision.state)]
            })
          }
          // Crypto refunds ride on withdrawals too, but book their withdrawals' money themselves
          // (actors/payment/CryptoRefunds.ts): those withdrawals are taken over.
          const refunds = yield* refundSettlements(db, settled)
          return { added: [...added, ...refunds.added], takenOver: refunds.takenOver }
        })
    })
  })
)
