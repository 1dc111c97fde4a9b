/**
 * Payout (TransferOrder) pieces of the payment order actor (CONTRACT C16 "Orders and money", payout
 * rows of the state table): the creation commit of put_transfer_order — the order's transaction
 * (typeTx 21), its payment_orders row (the `T…` code only as its hash) and the engine's reserve
 * postings (merchant free → lock_out). The actor routes it through the merchant wallet's actor,
 * which alone debits free. Paying, cancel and expiry go through the actor's common `act`.
 */
import type { LedgerOperation } from "../../sql/Ledger.ts"
import { rowsOf } from "../../sql/Ledger.ts"
import { PaymentOrderInserts } from "../../sql/rows/PaymentRows.ts"
import { TxType } from "../../schema/Transfer.ts"
import { createTransferOrder, type Decision, OrderStateCode } from "./Engine.ts"
import type { CreateTransfer } from "./Protocol.ts"

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
  decision: Extract<Decision, { _tag: "Ok" }>
): LedgerOperation => ({
  tx: {
    id: txId,
    typeTx: TxType.TransferOrder,
    txState: 1,
    walletFrom: payload.merchantWallet,
    walletTo: payload.merchantWallet,
    currency: payload.currency,
    amount: payload.orderAmount,
    fee: payload.fee,
    tag: null,
    appId: payload.appId,
    externalId: null,
    requestHash: null
  },
  postings: decision.postings,
  rows: [
    rowsOf(PaymentOrderInserts, [
      {
        txId,
        appId: payload.appId,
        externalId: payload.externalId,
        requestHash: payload.requestHash,
        kind: "TransferOrder" as const,
        codeHash: payload.codeHash,
        code: null,
        merchantWallet: payload.merchantWallet,
        stateCode: OrderStateCode.Created,
        currency: payload.currency,
        orderAmount: payload.orderAmount,
        fee: payload.fee,
        profitWallet: payload.profitWallet,
        expiresAt: payload.expiresAt,
        description: payload.description,
        returnUrlSuccess: null,
        returnUrlFail: null,
        webhookUrl: payload.webhookUrl
      }
    ])
  ]
})
