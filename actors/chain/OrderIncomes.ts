/**
 * Crypto payments of payment orders inside a push (C16 "Orders and money", crypto): after the push is
 * planned (Push.ts), the Incomes it created at an order's attached address, and the final or orphaned
 * Incomes orders took earlier, become events of their orders, applied by the payment engine
 * (actors/payment CryptoIncomes). An Income an order takes books no money of its own (fee 0): the
 * order's operation, added to the push commit, carries it (income seen: Treasury → merchant lock_in;
 * Σ final ≥ totalToPay: Paid; orphaned before final: reversed). An order refusing an income leaves it a
 * plain C15 Income of the merchant wallet. Pure: no I/O.
 */
import { applyCryptoIncomes, type CryptoIncomeEvent, plainIncomeOperations } from "../payment/Protocol.ts"
import type { OrderFinalIncome } from "../../sql/OrderAddressRepo.ts"
import type { PaymentOrderRow } from "../../sql/PaymentOrderRepo.ts"
import type { LedgerOperation } from "../../sql/Ledger.ts"
import { Stage } from "../../sql/rows/CryptoRows.ts"
import { TxState } from "../../schema/Transfer.ts"
import type { WorkingSet } from "./WorkingSet.ts"

const Income = 1

/** What the chain actor read for the orders a push may touch. */
export interface OrderIncomeFacts {
  /** The orders, by transaction id. */
  readonly orders: ReadonlyMap<bigint, PaymentOrderRow>
  /** Incomes orders took earlier → their order. */
  readonly linked: ReadonlyMap<bigint, bigint>
  /** The attached order addresses of the terminal among the block's `to` keys. */
  readonly addresses: ReadonlyArray<{
    readonly orderTxId: bigint
    readonly addressKey: string
    readonly memo: string | null
  }>
  readonly memoNetwork: boolean
  readonly now: number
  /** The orders' Incomes final before the push (an underpaid order that expires makes them plain). */
  readonly finalIncomes: ReadonlyArray<OrderFinalIncome>
}

export interface OrderIncomesPlan {
  readonly operations: ReadonlyArray<LedgerOperation>
  readonly credited: ReadonlyArray<bigint>
}

export const planOrderIncomes = (
  facts: OrderIncomeFacts,
  terminalId: bigint,
  txs: WorkingSet,
  addressKey: (address: string) => string,
  depositFee: (holder: bigint, amount: bigint) => { readonly fee: bigint; readonly profitWallet: bigint }
): OrderIncomesPlan => {
  const events = new Map<bigint, Array<CryptoIncomeEvent>>()
  const orderOf = new Map<bigint, bigint>(facts.linked)
  const add = (orderTxId: bigint, event: CryptoIncomeEvent) => {
    if (!facts.orders.has(orderTxId)) return
    const list = events.get(orderTxId) ?? []
    list.push(event)
    events.set(orderTxId, list)
  }
  const changes = txs.changes().filter((c) => c.now.typeTx === Income)
  // The push's order: orphans, then the block's new Incomes, then finality.
  for (const { before, now } of changes) {
    const order = facts.linked.get(now.txId)
    if (order !== undefined && before !== null && before.txState !== TxState.Canceled)
      if (now.txState === TxState.Canceled && now.stage === Stage.Canceled)
        add(order, { kind: "orphaned", incomeTxId: now.txId, amount: now.amount })
  }
  for (const { before, now } of changes) {
    if (before !== null || now.toAddress === null) continue
    const key = addressKey(now.toAddress)
    const at = facts.addresses.find((a) => a.addressKey === key && (!facts.memoNetwork || a.memo === now.memo))
    if (at === undefined) continue
    orderOf.set(now.txId, at.orderTxId)
    add(at.orderTxId, { kind: "seen", incomeTxId: now.txId, amount: now.amount })
  }
  for (const { before, now } of changes) {
    const order = orderOf.get(now.txId)
    if (order === undefined) continue
    // Held for partner info (a RequirePartnerInfo terminal, C15 block rules) is not final: the order waits
    // for the seal (the chain actor's SealPartnerInfo sends the final event then).
    const finished = now.txState === TxState.Finished && before?.txState !== TxState.Finished
    if (finished) add(order, { kind: "final", incomeTxId: now.txId, amount: now.amount })
  }

  const operations: Array<LedgerOperation> = []
  const credited = new Set<bigint>()
  for (const [orderTxId, list] of events) {
    const linked = new Set([...facts.linked].filter(([, o]) => o === orderTxId).map(([income]) => income))
    const row = facts.orders.get(orderTxId)!
    const outcome = applyCryptoIncomes(row, terminalId, list, linked, facts.now, {
      finalIncomes: facts.finalIncomes.filter((i) => i.orderTxId === orderTxId),
      depositFee: (amount) => depositFee(row.merchantWallet, amount)
    })
    for (const incomeTxId of outcome.taken)
      // An order's income carries no Deposit fee (the order's Payment fee is on the order).
      txs.takeOver(incomeTxId, linked.has(incomeTxId) ? {} : { fee: 0n, profitWallet: null })
    // An underpaid order expired here: each final Income's record takes its Deposit fee (plain C15 Income).
    for (const p of outcome.plain) {
      if (txs.get(p.incomeTxId) !== undefined) txs.change(p.incomeTxId, { fee: p.fee, profitWallet: p.profitWallet })
      else operations.push(...plainIncomeOperations([p]))
    }
    if (outcome.operation !== null) operations.push(outcome.operation)
    for (const w of outcome.credited) credited.add(w)
  }
  return { operations, credited: [...credited] }
}
