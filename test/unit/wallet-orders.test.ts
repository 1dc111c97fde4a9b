/**
 * The wallet's placement of an order (actors/wallet/Orders.ts placementOperation): from the order's
 * intent, one new Created exchange transaction against the Broker, fromAmount free → lock_orders,
 * and the Active order row, all in exact bigints. The intent survives the mailbox's schema exactly.
 */
import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import { placementOperation } from "../../actors/wallet/Orders.ts"
import { type OrderIntent, OrderIntent as OrderIntentSchema } from "../../actors/wallet/Protocol.ts"
import { asTxId } from "../../schema/Ids.ts"
import { TxState, TxType } from "../../schema/Transfer.ts"
import { Bucket, SystemWallet } from "../../sql/Ledger.ts"
import { OrderInserts } from "../../sql/rows/ExchangeRows.ts"

const WALLET = 1_000_001n
const sell: OrderIntent = {
  orderId: asTxId(7_000_000_000_123n),
  roomKey: 0n,
  base: "BTC",
  quote: "USDT",
  side: 1,
  orderType: 1,
  priceNum: 6_500_000_000_001n,
  priceDen: 3n,
  priceTicks: 2_166_666_666_667n,
  quantityLots: 12_345_678_901_234n,
  fromCurrency: "BTC",
  toCurrency: "USDT",
  fromAmount: 123_456_789_012_345_678_901_234_567_890n,
  toAmount: 42n,
  tag: "t",
  clientNonce: 99n
}

describe("placementOperation", () => {
  it("a sell: ExchangeToBroker, the lock and the Active order row", () => {
    const op = placementOperation(WALLET, sell)
    assert.deepStrictEqual(op.tx, {
      id: 7_000_000_000_123n,
      typeTx: TxType.ExchangeToBroker,
      txState: TxState.Created,
      walletFrom: WALLET,
      walletTo: SystemWallet.Broker,
      currency: "BTC",
      amount: 0n,
      fee: 0n,
      tag: "t",
      appId: null,
      externalId: null,
      requestHash: null,
      clientNonce: 99n,
      currencyTo: "USDT",
      amountTo: 0n
    })
    assert.deepStrictEqual(op.postings, [
      { walletId: WALLET, currency: "BTC", bucket: Bucket.free, delta: -sell.fromAmount },
      { walletId: WALLET, currency: "BTC", bucket: Bucket.lockOrders, delta: sell.fromAmount }
    ])
    assert.strictEqual(op.rows?.length, 1)
    assert.strictEqual(op.rows![0].kind, OrderInserts)
    assert.deepStrictEqual(op.rows![0].rows, [
      {
        id: 7_000_000_000_123n,
        walletId: WALLET,
        roomKey: 0n,
        base: "BTC",
        quote: "USDT",
        side: 1,
        orderType: 1,
        priceTicks: 2_166_666_666_667n,
        priceNum: 6_500_000_000_001n,
        priceDen: 3n,
        quantityLots: 12_345_678_901_234n,
        fromCurrency: "BTC",
        toCurrency: "USDT",
        fromAmount: sell.fromAmount,
        toAmount: 42n,
        locked: sell.fromAmount,
        state: 1,
        tag: "t"
      }
    ])
  })

  it("a market buy: ExchangeFromBroker, no ratio", () => {
    const buy: OrderIntent = {
      ...sell,
      side: 0,
      orderType: 3,
      priceNum: null,
      priceDen: null,
      priceTicks: null,
      fromCurrency: "USDT",
      toCurrency: "BTC",
      toAmount: null,
      tag: null
    }
    const op = placementOperation(WALLET, buy)
    assert.strictEqual(op.tx?.typeTx, TxType.ExchangeFromBroker)
    const row = op.rows![0].rows[0] as { priceNum: unknown; toAmount: unknown; tag: unknown }
    assert.deepStrictEqual([row.priceNum, row.toAmount, row.tag], [null, null, null])
  })

  it("the intent crosses the mailbox exactly", () => {
    const wire = Schema.encodeSync(OrderIntentSchema)(sell)
    assert.strictEqual(wire.fromAmount, "123456789012345678901234567890")
    assert.deepStrictEqual(Schema.decodeUnknownSync(OrderIntentSchema)(wire), sell)
  })
})
