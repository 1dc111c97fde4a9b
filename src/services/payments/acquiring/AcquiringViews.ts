/** How an acquiring session is shown (C16): pending_acquiring_txs / get_payment_order_info rows, OrderInfoOut.acquiring. */
import type { AcquiringSessionRow } from "../../../../sql/AcquiringRepo.ts"
import { fromMinorUnits } from "../../../../schema/Money.ts"
import type { AcquiringSessionOut } from "../../../../schema/Payments.ts"

export const acquiringSessionOut = (
  row: AcquiringSessionRow,
  decimalsOf: (currency: string) => number
): AcquiringSessionOut => ({
  acquiringId: row.acquiringId,
  code: row.code,
  orderId: String(row.orderTxId) as any,
  appId: String(row.appId) as any,
  terminalId: String(row.terminalId) as any,
  amount: fromMinorUnits(row.amount, decimalsOf(row.currency)),
  currency: row.currency,
  status: row.status,
  createdAt: row.createdAt.toISOString(),
  checkedAt: row.checkedAt?.toISOString() ?? null
})

/** OrderInfoOut.acquiring: the latest session (its checkout URL empty until the acquirer gave one). */
export const orderAcquiringOut = (row: AcquiringSessionRow | undefined) =>
  row === undefined ? null : { acquiringId: row.acquiringId, status: row.status, checkoutUrl: row.checkoutUrl ?? "" }
