/**
 * How crypto incomes change a payment order (C16 "Orders and money", crypto), for the chain actor that
 * plans them inside a tx_list_push commit: the events of one order in the push, in the push's order
 * (orphans, then new items, then finality), applied through the pure engine, and the order's one
 * operation — its transaction's transition, the conditional payment_order_update row, the engine's
 * postings and a payment_order_income row per Income the order took. An income the order refuses
 * (paid, expired, detached, another terminal) is left to the caller as a plain C15 Income; an order
 * found due meanwhile is expired in the same operation. Pure: no I/O.
 */
import type { LedgerOperation, Posting } from "../../sql/Ledger.ts"
import type { PaymentOrderRow } from "../../sql/PaymentOrderRepo.ts"
import { rowsOf } from "../../sql/Ledger.ts"
import { type PaymentOrderIncome, PaymentOrderIncomes } from "../../sql/rows/PaymentCryptoRows.ts"
import {
  cryptoFinal,
  cryptoIncomeSeen,
  cryptoOrphaned,
  type Decision,
  expire,
  isDue,
  type OrderState
} from "./Engine.ts"
import { orderUpdateRow, stateOfRow } from "./OrderRow.ts"
import { asPlainIncomes, type DepositFee, type HeldIncome, type PlainIncomeOf } from "./PlainIncomes.ts"

export interface CryptoIncomeEvent {
  readonly kind: "seen" | "final" | "orphaned"
  readonly incomeTxId: bigint
  /** Minor units of the terminal's currency (the order's payCurrency). */
  readonly amount: bigint
}

export interface CryptoIncomesOutcome {
  /** The Incomes whose events the order took (their money is on the order's operation). */
  readonly taken: ReadonlySet<bigint>
  /** The order's operation, or null when nothing changed. */
  readonly operation: LedgerOperation | null
  /** User wallets whose free balance the operation changes (their actors reload). */
  readonly credited: ReadonlyArray<bigint>
  /**
   * An underpaid order expired in this push: its final Incomes, each now a plain C15 Income with its
   * Deposit fee (the caller records fee and profit wallet on each Income; the money is on `operation`).
   */
  readonly plain: ReadonlyArray<PlainIncomeOf>
}

/** What an order's expiry in a push needs: its Incomes final before the push, and the merchant's Deposit fee. */
export interface CryptoExpiryFacts {
  readonly finalIncomes: ReadonlyArray<HeldIncome>
  readonly depositFee: DepositFee
}

/**
 * Applies an order's events of one push. `linked` are the Incomes the order took earlier (their
 * final and orphaned events are the order's); a `seen` event is taken when the engine accepts it.
 */
export const applyCryptoIncomes = (
  row: PaymentOrderRow,
  terminalId: bigint,
  events: ReadonlyArray<CryptoIncomeEvent>,
  linked: ReadonlySet<bigint>,
  now: number,
  expiry: CryptoExpiryFacts
): CryptoIncomesOutcome => {
  const before = stateOfRow(row)
  let state: OrderState = before
  const postings: Array<Posting> = []
  const taken = new Set<bigint>()
  const links: Array<PaymentOrderIncome> = []
  let changed = false
  const apply = (d: Decision): boolean => {
    if (d._tag === "Reject") return false
    state = d.state
    postings.push(...d.postings)
    changed = true
    return true
  }
  // Final Incomes the order holds: those final before the push, then those turned final in it.
  const finalIncomes = [...expiry.finalIncomes]
  let plain: ReadonlyArray<PlainIncomeOf> = []
  /** A due order expires like a Started one; an underpaid one's final Incomes become plain C15 Incomes. */
  const expireNow = () => {
    const incomes = asPlainIncomes(finalIncomes, expiry.depositFee)
    if (apply(expire(state, now, incomes))) plain = incomes
  }
  for (const event of events) {
    if (event.kind === "seen") {
      if (state.terminal?.terminalId !== terminalId) continue
      const d = cryptoIncomeSeen(state, event.amount, now)
      if (d._tag === "Reject" && d.rule === "Expired") expireNow()
      if (!apply(d)) continue
      taken.add(event.incomeTxId)
      links.push({ incomeTxId: event.incomeTxId, orderTxId: row.txId, amount: event.amount })
    } else if (linked.has(event.incomeTxId) || taken.has(event.incomeTxId)) {
      const d = event.kind === "final" ? cryptoFinal(state, event.amount) : cryptoOrphaned(state, event.amount)
      if (!apply(d))
        throw new Error(`invariant: order ${row.txId} does not hold the ${event.kind} income ${event.incomeTxId}`)
      taken.add(event.incomeTxId)
      if (event.kind === "final")
        finalIncomes.push({ incomeTxId: event.incomeTxId, amount: event.amount, txState: 8, stage: "Credited" })
    }
  }
  // Its last income turned final short of totalToPay after expiresAt: nothing holds expiry off any more.
  if (isDue(state, now)) expireNow()
  if (!changed) return { taken, operation: null, credited: [], plain }
  const operation: LedgerOperation = {
    transition: { id: row.txId, from: row.txState, to: state.txState },
    postings: postings.filter((p) => p.delta !== 0n),
    rows: [orderUpdateRow(row, before, state), ...(links.length === 0 ? [] : [rowsOf(PaymentOrderIncomes, links)])]
  }
  const credited = [...new Set(postings.filter((p) => p.walletId > 0n && p.bucket === 0).map((p) => p.walletId))]
  return { taken, operation, credited, plain }
}
