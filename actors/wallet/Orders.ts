/**
 * The wallet's side of an order placement, pure: the ledger operation that records the order
 * Active with its transaction and moves its fromAmount free → lock_orders. The actor decides
 * whether the money is there and commits it.
 */
import { TxState, TxType } from "../../schema/Transfer.ts"
import { Bucket, type LedgerOperation, rowsOf, SystemWallet } from "../../sql/Ledger.ts"
import { OrderInserts } from "../../sql/rows/ExchangeRows.ts"
import { OrderState, SIDE_SELL } from "../room/Protocol.ts"
import type { OrderIntent } from "./Protocol.ts"

export const placementOperation = (walletId: bigint, order: OrderIntent): LedgerOperation => {
  const id = BigInt(order.orderId)
  const debit = order.fromAmount
  return {
    tx: {
      id,
      typeTx: order.side === SIDE_SELL ? TxType.ExchangeToBroker : TxType.ExchangeFromBroker,
      txState: TxState.Created,
      walletFrom: walletId,
      walletTo: SystemWallet.Broker,
      currency: order.fromCurrency,
      amount: 0n,
      fee: 0n,
      tag: order.tag,
      appId: null,
      externalId: null,
      requestHash: null,
      clientNonce: order.clientNonce,
      currencyTo: order.toCurrency,
      amountTo: 0n
    },
    postings: [
      { walletId, currency: order.fromCurrency, bucket: Bucket.free, delta: -debit },
      { walletId, currency: order.fromCurrency, bucket: Bucket.lockOrders, delta: debit }
    ],
    rows: [
      rowsOf(OrderInserts, [
        {
          id,
          walletId,
          roomKey: order.roomKey,
          base: order.base,
          quote: order.quote,
          side: order.side,
          orderType: order.orderType,
          priceTicks: order.priceTicks,
          priceNum: order.priceNum,
          priceDen: order.priceDen,
          quantityLots: order.quantityLots,
          fromCurrency: order.fromCurrency,
          toCurrency: order.toCurrency,
          fromAmount: debit,
          toAmount: order.toAmount,
          locked: debit,
          state: OrderState.Active,
          tag: order.tag
        }
      ])
    ]
  }
}
