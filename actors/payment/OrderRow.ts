/**
 * A stored payment order as the engine's record, and the conditional payment_order_update row of a
 * decision's new state: shared by the order's actor (Behaviour.ts) and the chain actor's crypto
 * incomes (CryptoIncomes.ts), which changes orders inside a tx_list_push commit.
 */
import type { EventInsert, KindRows, LedgerOperation, Posting } from "../../sql/Ledger.ts"
import { rowsOf } from "../../sql/Ledger.ts"
import type { PaymentOrderRow } from "../../sql/PaymentOrderRepo.ts"
import { type PaymentOrderInsert, PaymentOrderInserts, PaymentOrderUpdates } from "../../sql/rows/PaymentRows.ts"
import { TxType } from "../../schema/Transfer.ts"
import { type OrderState, OrderStateCode, type PaymentMethod } from "./Order.ts"

/** The engine's record of a stored order. */
export const stateOfRow = (row: PaymentOrderRow): OrderState => ({
  kind: row.kind,
  stateCode: row.stateCode as OrderStateCode,
  txState: row.txState as 1 | 8 | 16,
  currency: row.currency,
  orderAmount: row.orderAmount,
  payCurrency: row.payCurrency,
  payAmount: row.payAmount,
  fee: row.fee,
  profitWallet: row.profitWallet,
  merchantWallet: row.merchantWallet,
  terminal:
    row.terminalId === null
      ? null
      : {
          terminalId: row.terminalId,
          method: row.method as PaymentMethod,
          rate: row.rate ?? "1",
          spreadPct: row.spreadPct ?? "0"
        },
  expiresAt: row.expiresAt.getTime(),
  paidAmount: row.paidAmount,
  refundedAmount: row.refundedAmount,
  pendingRefunds: row.pendingRefunds,
  refundCount: row.refundCount,
  payerWalletId: row.payerWalletId,
  cardSessionPending: row.cardSessionPending,
  incomeSeen: row.incomeSeen,
  incomeFinal: row.incomeFinal
})

/** What an operation adds beside the order's own change (a refund's transaction, a payout's recipient, ...). */
export interface CommitExtras {
  readonly rows?: ReadonlyArray<KindRows>
  readonly extra?: ReadonlyArray<LedgerOperation>
  readonly events?: ReadonlyArray<EventInsert>
  readonly recipient?: string
  readonly meta?: string
}

/** The conditional payment_order_update row of a decision's new state (every OrderState field). */
export const orderUpdateRow = (
  row: PaymentOrderRow,
  before: OrderState,
  after: OrderState,
  extras: CommitExtras = {}
): KindRows =>
  rowsOf(PaymentOrderUpdates, [
    {
      txId: row.txId,
      fromState: before.stateCode,
      fromVersion: row.version,
      stateCode: after.stateCode,
      terminalId: after.terminal?.terminalId ?? null,
      method: after.terminal?.method ?? null,
      payCurrency: after.payCurrency,
      payAmount: after.payAmount,
      fee: after.fee,
      profitWallet: after.profitWallet,
      rate: after.terminal?.rate ?? null,
      spreadPct: after.terminal?.spreadPct ?? null,
      paidAmount: after.paidAmount,
      refundedAmount: after.refundedAmount,
      payerWalletId: after.payerWalletId,
      pendingRefunds: after.pendingRefunds,
      refundCount: after.refundCount,
      cardSessionPending: after.cardSessionPending,
      incomeSeen: after.incomeSeen,
      incomeFinal: after.incomeFinal,
      recipient: extras.recipient ?? null,
      meta: extras.meta ?? null
    }
  ])

/**
 * The creation commit of an order (PaymentOrder typeTx 20 or TransferOrder 21): its transaction (the
 * merchant wallet to itself, orderAmount with the order's fee), its payment_orders row Created, the
 * given postings (a payout's reserve; none for a payment order) and any further rows.
 */
export const orderCreationOperation = (
  order: Omit<PaymentOrderInsert, "stateCode">,
  postings: ReadonlyArray<Posting>,
  more: ReadonlyArray<KindRows> = []
): LedgerOperation => ({
  tx: {
    id: order.txId,
    typeTx: order.kind === "PaymentOrder" ? TxType.PaymentOrder : TxType.TransferOrder,
    txState: 1,
    walletFrom: order.merchantWallet,
    walletTo: order.merchantWallet,
    currency: order.currency,
    amount: order.orderAmount,
    fee: order.fee,
    tag: null,
    appId: order.appId,
    externalId: null,
    requestHash: null
  },
  postings,
  rows: [rowsOf(PaymentOrderInserts, [{ ...order, stateCode: OrderStateCode.Created }]), ...more]
})
