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
import { fresh, type OrderState, OrderStateCode, type PaymentMethod } from "./Order.ts"

/**
 * What the order's actor decides and commits on (Behaviour.ts): the engine's fields, the transaction's
 * state and the row's version (the conditional update's guard). A stored row is one.
 */
export type OrderFacts = Pick<
  PaymentOrderRow,
  | "txId"
  | "kind"
  | "stateCode"
  | "txState"
  | "currency"
  | "orderAmount"
  | "payCurrency"
  | "payAmount"
  | "fee"
  | "profitWallet"
  | "merchantWallet"
  | "terminalId"
  | "method"
  | "rate"
  | "spreadPct"
  | "expiresAt"
  | "paidAmount"
  | "refundedAmount"
  | "pendingRefunds"
  | "refundCount"
  | "payerWalletId"
  | "cardSessionPending"
  | "incomeSeen"
  | "incomeFinal"
  | "version"
>

/** The engine's record of a stored order. */
export const stateOfRow = (row: OrderFacts): OrderState => ({
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
  row: Pick<OrderFacts, "txId" | "version">,
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

/** The facts of a stored row holding `state` (every OrderState field) at `version`. */
const factsOf = (stored: Pick<OrderFacts, "txId" | "expiresAt" | "version">, state: OrderState): OrderFacts => ({
  txId: stored.txId,
  kind: state.kind,
  stateCode: state.stateCode,
  txState: state.txState,
  currency: state.currency,
  orderAmount: state.orderAmount,
  payCurrency: state.payCurrency,
  payAmount: state.payAmount,
  fee: state.fee,
  profitWallet: state.profitWallet,
  merchantWallet: state.merchantWallet,
  terminalId: state.terminal?.terminalId ?? null,
  method: state.terminal?.method ?? null,
  rate: state.terminal?.rate ?? null,
  spreadPct: state.terminal?.spreadPct ?? null,
  expiresAt: stored.expiresAt,
  paidAmount: state.paidAmount,
  refundedAmount: state.refundedAmount,
  pendingRefunds: state.pendingRefunds,
  refundCount: state.refundCount,
  payerWalletId: state.payerWalletId,
  cardSessionPending: state.cardSessionPending,
  incomeSeen: state.incomeSeen,
  incomeFinal: state.incomeFinal,
  version: stored.version
})

/**
 * The facts as a committed orderUpdateRow of `after` left them (every OrderState field written, the
 * version one up, the transaction's state moved with the order's).
 */
export const factsAfter = (row: OrderFacts, after: OrderState): OrderFacts =>
  factsOf({ txId: row.txId, expiresAt: row.expiresAt, version: row.version + 1n }, after)

/** The facts of an order its creation commit (orderCreationOperation) just stored: Created, version 0. */
export const createdFacts = (
  order: Pick<
    PaymentOrderInsert,
    "txId" | "kind" | "currency" | "orderAmount" | "fee" | "profitWallet" | "merchantWallet" | "expiresAt"
  >
): OrderFacts =>
  factsOf(
    { txId: order.txId, expiresAt: order.expiresAt, version: 0n },
    fresh({ ...order, expiresAt: order.expiresAt.getTime() })
  )

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
