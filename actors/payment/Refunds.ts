/**
 * Refunds of a paid PaymentOrder (CONTRACT C16 "Refunds"): accepting one, and settling a crypto one.
 * Pure, as the rest of the engine; Engine.ts re-exports it.
 */
import { Bucket, type Posting, SystemWallet } from "../../sql/Ledger.ts"
import {
  type Decision,
  destinationOf,
  maxRefundsPerOrder,
  ok,
  type OrderState,
  OrderStateCode,
  post,
  refundPayoutAmount,
  reject
} from "./Order.ts"

// ---- refunds ---------------------------------------------------------------------------------

const refundedState = (s: OrderState, refunded: bigint): OrderStateCode =>
  refunded === 0n
    ? OrderStateCode.Paid
    : refunded >= s.paidAmount
      ? OrderStateCode.Refunded
      : OrderStateCode.PartiallyRefunded

/** Where `amount` (order currency) ends in payCurrency: `target` +payoutAmount, the Broker takes both legs. */
const payOut = (s: OrderState, amount: bigint, payoutAmount: bigint, target: Posting): ReadonlyArray<Posting> => {
  const pc = s.payCurrency!
  const legs =
    pc === s.currency
      ? []
      : [
          post(SystemWallet.Broker, s.currency, Bucket.free, amount),
          post(SystemWallet.Broker, pc, Bucket.free, -payoutAmount)
        ]
  return [target, ...legs]
}

/**
 * refund_payment. Paid/PartiallyRefunded PaymentOrders only (10320), ≤ 100 per order (10324), a crypto
 * refund needs an address (10323), Σ pending + finished + amount ≤ paidAmount (10321), merchant free ≥
 * amount + fee (10002). `amount` null: all still refundable. The merchant pays amount + fee (Refund
 * tariff, order currency, fee → `feeProfitWallet`). Wallet: payer free +payoutAmount; Card: Treasury
 * +payoutAmount; both Finished at once. Crypto: amount + fee free → lock_out, Pending (`refundSettled`).
 */
export const refund = (
  s: OrderState,
  input: {
    readonly amount: bigint | null
    readonly fee: bigint
    readonly feeProfitWallet: bigint
    readonly merchantFree: bigint
    readonly hasRefundAddress: boolean
  }
): Decision => {
  const refundable = s.stateCode === OrderStateCode.Paid || s.stateCode === OrderStateCode.PartiallyRefunded
  if (s.kind !== "PaymentOrder" || !refundable || s.terminal === null) return reject("NotRefundable")
  if (s.refundCount >= maxRefundsPerOrder) return reject("TooManyRefunds")
  const destination = destinationOf(s.terminal.method)
  if (destination === "Crypto" && !input.hasRefundAddress) return reject("RefundAddressRequired")
  const left = s.paidAmount - s.refundedAmount - s.pendingRefunds
  const amount = input.amount ?? left
  if (input.amount !== null && amount <= 0n) return reject("InvalidAmount")
  if (amount <= 0n || amount > left) return reject("RefundExceedsPaid")
  if (input.merchantFree < amount + input.fee) return reject("BalanceNotEnough")
  const m = s.merchantWallet,
    c = s.currency,
    pc = s.payCurrency!
  const payoutAmount = refundPayoutAmount(s, amount)
  const figures = { amount, fee: input.fee, destination, payoutAmount, payoutCurrency: pc }
  const counted = { ...s, refundCount: s.refundCount + 1 }
  if (destination === "Crypto")
    return {
      ...ok(
        { ...counted, pendingRefunds: s.pendingRefunds + amount },
        [post(m, c, Bucket.free, -(amount + input.fee)), post(m, c, Bucket.lockOut, amount + input.fee)],
        m
      ),
      refund: { ...figures, finished: false }
    }
  const target = destination === "Wallet" ? s.payerWalletId! : SystemWallet.Treasury
  const refunded = s.refundedAmount + amount
  return {
    ...ok(
      { ...counted, refundedAmount: refunded, stateCode: refundedState(s, refunded) },
      [
        post(m, c, Bucket.free, -(amount + input.fee)),
        post(input.feeProfitWallet, c, Bucket.free, input.fee),
        ...payOut(s, amount, payoutAmount, post(target, pc, Bucket.free, payoutAmount))
      ],
      m
    ),
    refund: { ...figures, finished: true }
  }
}

/**
 * A pending crypto refund settled by its C15 Refund. Final: lock_out −(amount+fee), fee → profit,
 * Treasury +payoutAmount (Broker legs), refunded += amount. Failed: the reserve back to free.
 */
export const refundSettled = (
  s: OrderState,
  input: { readonly amount: bigint; readonly fee: bigint; readonly feeProfitWallet: bigint; readonly final: boolean }
): Decision => {
  if (input.amount <= 0n || s.pendingRefunds < input.amount) return reject("NotAttached")
  const m = s.merchantWallet,
    c = s.currency,
    held = input.amount + input.fee
  const pendingRefunds = s.pendingRefunds - input.amount
  if (!input.final)
    return ok({ ...s, pendingRefunds }, [post(m, c, Bucket.lockOut, -held), post(m, c, Bucket.free, held)])
  const refunded = s.refundedAmount + input.amount
  const payoutAmount = refundPayoutAmount(s, input.amount)
  return ok({ ...s, pendingRefunds, refundedAmount: refunded, stateCode: refundedState(s, refunded) }, [
    post(m, c, Bucket.lockOut, -held),
    post(input.feeProfitWallet, c, Bucket.free, input.fee),
    ...payOut(s, input.amount, payoutAmount, post(SystemWallet.Treasury, s.payCurrency!, Bucket.free, payoutAmount))
  ])
}
