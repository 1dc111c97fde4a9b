/**
 * An underpaid crypto order that expires (docs/PAYMENTS.md "Underpaid crypto"): C16 says income to an
 * expired order's address is a plain C15 Income of the merchant wallet, so each final Income the order
 * took becomes one — lock_in → free less the C15 Deposit fee (the merchant group's Deposit tariff, capped
 * at the amount) to that tariff's profit wallet. The engine's `expire` books the money from the list made
 * here; each Income's own record takes its fee and profit wallet (a same-state transition and a
 * crypto_tx_update, no postings), so history and address_tx_info show what was charged. Pure: no I/O.
 */
import { type LedgerOperation, rowsOf } from "../../sql/Ledger.ts"
import type { OrderFinalIncome } from "../../sql/OrderAddressRepo.ts"
import { CryptoTxUpdates, type Stage } from "../../sql/rows/CryptoRows.ts"
import type { PlainIncome } from "./Engine.ts"

/** The C15 Deposit fee of an amount for the merchant wallet (fee ≤ amount). */
export type DepositFee = (amount: bigint) => { readonly fee: bigint; readonly profitWallet: bigint }

export interface PlainIncomeOf extends PlainIncome {
  readonly incomeTxId: bigint
  readonly txState: number
  readonly stage: Stage
}

/** A final Income an order holds, as read (sql/OrderAddressRepo.ts finalIncomesOfOrders) or just turned final. */
export type HeldIncome = Pick<OrderFinalIncome, "incomeTxId" | "amount" | "txState" | "stage">

export const asPlainIncomes = (
  incomes: ReadonlyArray<HeldIncome>,
  depositFee: DepositFee
): ReadonlyArray<PlainIncomeOf> =>
  incomes.map((i) => ({
    incomeTxId: i.incomeTxId,
    txState: i.txState,
    stage: i.stage as Stage,
    amount: i.amount,
    ...depositFee(i.amount)
  }))

/** Each Income's record as a plain deposit: its fee and profit wallet (the money is on the order's expiry). */
export const plainIncomeOperations = (plain: ReadonlyArray<PlainIncomeOf>): Array<LedgerOperation> =>
  plain.map((p) => ({
    transition: { id: p.incomeTxId, from: p.txState, to: p.txState, fee: p.fee },
    postings: [],
    rows: [
      rowsOf(CryptoTxUpdates, [
        { txId: p.incomeTxId, fromStages: [p.stage], stage: null, patch: { profitWallet: String(p.profitWallet) } }
      ])
    ]
  }))

/** User wallets a plain conversion credits (the merchant, a user profit wallet): their actors reload. */
export const plainCredited = (merchantWallet: bigint, plain: ReadonlyArray<PlainIncome>): ReadonlyArray<bigint> =>
  [...new Set([merchantWallet, ...plain.filter((p) => p.fee > 0n).map((p) => p.profitWallet)])].filter((w) => w > 0n)
