/**
 * How a stored payment order is shown (CONTRACT C16): the merchant's PaymentOrderOut (a TransferOrder's
 * code and payUrl never: only put_transfer_order shows them) and the gate's OrderInfoOut (no
 * merchant-only keys; its `terminal` and `address` are filled by the caller). Amounts are canonical
 * decimal strings in their currency's decimals.
 */
import { stateName } from "../../../actors/payment/Protocol.ts"
import type { PaymentOrderRow } from "../../../sql/PaymentOrderRepo.ts"
import type { PaymentRefundRow } from "../../../sql/PaymentRefundRepo.ts"
import { fromMinorUnits } from "../../../schema/Money.ts"
import type { OrderInfoOut, PaymentOrderOut, RefundOut, TerminalOut } from "../../../schema/Payments.ts"

/** What the payer pays (payAmount + fee) once a terminal is locked. */
const totalToPay = (row: PaymentOrderRow) => (row.payAmount === null ? null : row.payAmount + row.fee)

export const orderViews = (decimalsOf: (currency: string) => number, publicBaseUrl: string) => {
  const dec = (row: PaymentOrderRow, minor: bigint | null, currency: string | null = row.currency) =>
    minor === null ? null : fromMinorUnits(minor, decimalsOf(currency ?? ""))

  const payUrl = (code: string | null) => (code === null ? null : `${publicBaseUrl}/pay?code=${code}`)

  const toOut = (row: PaymentOrderRow): PaymentOrderOut => {
    const total = totalToPay(row)
    const started = row.terminalId !== null
    // While Created, the merchant's preselection shows as the order's terminal (and fixed price).
    const preset = row.stateCode === 1 && row.presetTerminalId !== null
    return {
      id: String(row.txId) as any,
      idUpdate: String(row.idUpdate),
      code: row.kind === "PaymentOrder" ? row.code : null,
      payUrl: row.kind === "PaymentOrder" ? payUrl(row.code) : null,
      kind: row.kind,
      typeTx: row.typeTx,
      appId: String(row.appId) as any,
      externalId: row.externalId,
      stateCode: row.stateCode,
      state: stateName(row.stateCode) as PaymentOrderOut["state"],
      txState: row.txState,
      currency: row.currency,
      orderAmount: dec(row, row.orderAmount)!,
      description: row.description,
      createdAt: row.createdAt.toISOString(),
      expiresAt: row.expiresAt.toISOString(),
      paidAt: row.paidAt?.toISOString() ?? null,
      terminalId: preset
        ? (String(row.presetTerminalId) as any)
        : row.terminalId === null
          ? null
          : (String(row.terminalId) as any),
      typeNetwork: row.typeNetwork,
      paymentMethod: row.method as PaymentOrderOut["paymentMethod"],
      payCurrency: preset ? row.presetPayCurrency : row.payCurrency,
      payAmount: preset
        ? dec(row, row.presetPayAmount, row.presetPayCurrency)
        : dec(row, row.payAmount, row.payCurrency),
      // A payout's fee (order currency) is fixed at creation.
      fee: started ? dec(row, row.fee, row.payCurrency) : row.kind === "TransferOrder" ? dec(row, row.fee) : null,
      totalToPay: dec(row, total, row.payCurrency),
      rate: row.rate,
      spreadPct: row.spreadPct,
      paidAmount: dec(row, row.paidAmount)!,
      refundedAmount: dec(row, row.refundedAmount)!,
      payerWalletId: row.payerWalletId === null ? null : (String(row.payerWalletId) as any),
      recipient: row.recipient,
      meta: row.meta === null ? null : JSON.parse(row.meta),
      returnUrlSuccess: row.returnUrlSuccess,
      returnUrlFail: row.returnUrlFail,
      webhookUrl: row.webhookUrl
    }
  }

  const toInfo = (row: PaymentOrderRow, terminal: TerminalOut | null): OrderInfoOut => {
    const out = toOut(row)
    const returnUrl =
      row.stateCode >= 8 && row.stateCode <= 10 ? row.returnUrlSuccess : row.stateCode >= 16 ? row.returnUrlFail : null
    return {
      // A TransferOrder's code is a claim on money: only put_transfer_order shows it (C16).
      code: out.code,
      kind: out.kind,
      typeTx: out.typeTx,
      stateCode: out.stateCode,
      state: out.state,
      txState: out.txState,
      currency: out.currency,
      orderAmount: out.orderAmount,
      description: out.description,
      merchantName: row.appName ?? "",
      createdAt: out.createdAt,
      expiresAt: out.expiresAt,
      paidAt: out.paidAt,
      terminal,
      typeNetwork: row.typeNetwork,
      payCurrency: row.payCurrency,
      payAmount: dec(row, row.payAmount, row.payCurrency),
      fee: out.fee,
      totalToPay: out.totalToPay,
      rate: out.rate,
      spreadPct: out.spreadPct,
      address: null,
      acquiring: null,
      returnUrl
    }
  }

  return { toOut, toInfo }
}

const refundStates: Record<number, RefundOut["state"]> = { 1: "Pending", 8: "Finished", 16: "Failed" }

/** A refund's state name (C16: Pending 1, Finished 8, Failed 16). */
export const refundStateName = (stateCode: number): RefundOut["state"] => refundStates[stateCode] ?? "Pending"

/** A stored refund as RefundOut (refund_payment, get_refund_status, get_app_payment, its webhook events). */
export const refundView =
  (decimalsOf: (currency: string) => number) =>
  (row: PaymentRefundRow): RefundOut => {
    const dec = (minor: bigint, currency: string) => fromMinorUnits(minor, decimalsOf(currency))
    return {
      refundId: String(row.txId) as any,
      externalId: row.externalId,
      code: row.orderCode,
      orderId: String(row.orderTxId) as any,
      appId: String(row.appId) as any,
      amount: dec(row.amount, row.currency),
      currency: row.currency,
      fee: dec(row.fee, row.currency),
      stateCode: row.stateCode,
      state: refundStateName(row.stateCode),
      txState: row.txState,
      destination: row.destination,
      payoutAmount: dec(row.payoutAmount, row.payoutCurrency),
      payoutCurrency: row.payoutCurrency,
      reason: row.reason,
      createdAt: row.createdAt.toISOString(),
      finishedAt: row.finishedAt?.toISOString() ?? null
    }
  }
