/**
 * Payout (TransferOrder) pieces of the payment order actor (CONTRACT C16 "Orders and money", payout
 * rows of the state table): the creation commit of put_transfer_order — the order's transaction
 * (typeTx 21), its payment_orders row (the `T…` code only as its hash) and the engine's reserve
 * postings (merchant free → lock_out). The actor routes it through the merchant wallet's actor,
 * which alone debits free. Paying, cancel and expiry go through the actor's common `act`; a crypto
 * payout's pay_transfer adds its C15 withdrawal (`payoutWithdrawalOperation`) to that commit.
 */
import type { KindRows, LedgerOperation } from "../../sql/Ledger.ts"
import { rowsOf } from "../../sql/Ledger.ts"
import { PayoutWithdrawals } from "../../sql/rows/PayoutRows.ts"
import { createTransferOrder, type Decision, type OrderState } from "./Engine.ts"
import { orderCreationOperation } from "./OrderRow.ts"
import type { CreateTransfer, PayoutWithdrawalSchema } from "./Protocol.ts"
import { queuedWithdrawalOperation } from "./QueuedWithdrawal.ts"

type CreateTransferPayload = (typeof CreateTransfer)["payloadSchema"]["Type"]

/** The engine's decision on creating the payout, given the merchant's free balance of its currency. */
export const decideTransferCreation = (payload: CreateTransferPayload, merchantFree: bigint): Decision =>
  createTransferOrder(
    {
      currency: payload.currency,
      orderAmount: payload.orderAmount,
      merchantWallet: payload.merchantWallet,
      expiresAt: payload.expiresAt.getTime(),
      fee: payload.fee,
      profitWallet: payload.profitWallet
    },
    merchantFree
  )

/** The one creation commit: transaction, order row, reserve postings. */
export const transferCreationOperation = (
  txId: bigint,
  payload: CreateTransferPayload,
  decision: Extract<Decision, { _tag: "Ok" }>,
  more: ReadonlyArray<KindRows> = []
): LedgerOperation =>
  orderCreationOperation(
    {
      txId,
      appId: payload.appId,
      externalId: payload.externalId,
      requestHash: payload.requestHash,
      kind: "TransferOrder",
      codeHash: payload.codeHash,
      code: null,
      merchantWallet: payload.merchantWallet,
      currency: payload.currency,
      orderAmount: payload.orderAmount,
      fee: payload.fee,
      profitWallet: payload.profitWallet,
      expiresAt: payload.expiresAt,
      description: payload.description,
      returnUrlSuccess: null,
      returnUrlFail: null,
      webhookUrl: payload.webhookUrl
    },
    decision.postings,
    more
  )

/**
 * A crypto payout's C15 withdrawal, committed with the order's Started → Processing: an Outcome (typeTx
 * 2, txState 3) of the merchant wallet for orderAmount with the order's fee and profit wallet, its
 * crypto record Queued for the signer (networkFee 0: the Payout fee covers the chain), and its link to
 * the order. No postings: the money is already the order's reserve in the merchant's lock_out, exactly
 * what a C15 withdrawal's step one would have put there (A + fee). From here it is an ordinary
 * withdrawal; where it settles, actors/payment/PayoutSettlement.ts moves the order along.
 */
export const payoutWithdrawalOperation = (
  orderTxId: bigint,
  s: OrderState,
  w: typeof PayoutWithdrawalSchema.Type
): LedgerOperation =>
  queuedWithdrawalOperation(
    w,
    {
      merchantWallet: s.merchantWallet,
      currency: s.currency,
      amount: s.orderAmount,
      fee: s.fee,
      profitWallet: s.profitWallet
    },
    rowsOf(PayoutWithdrawals, [{ withdrawalTxId: w.txId, orderTxId }])
  )
