/**
 * The room actor's typed mailbox: one actor per order book, keyed `roomKey:base:quote` (room `0` is
 * the public room of a pair). It alone matches, consumes and releases its orders' locks.
 */
import { Schema } from "effect"
import { Rpc } from "effect/rpc"
import { actorEntity } from "../../src/platform/ActorEntity.ts"
import { OrderNotActive, OrderNotFound, OrderWouldMatch } from "../../schema/Errors.ts"
import { TxIdOut, WalletIdOut } from "../../schema/Ids.ts"

/**
 * An order's figures after the room processed a message: lots, and money in minor units (locked
 * and given of fromCurrency, received and fee of toCurrency), as exact bigints.
 */
export const OrderFigures = Schema.Struct({
  state: Schema.Int,
  remainingLots: Schema.BigIntFromString,
  locked: Schema.BigIntFromString,
  given: Schema.BigIntFromString,
  received: Schema.BigIntFromString,
  fee: Schema.BigIntFromString
})
export type OrderFigures = typeof OrderFigures.Type

/** Match an order that was locked (placed) and not yet processed; idempotent. */
export const Match = Rpc.make("Match", {
  payload: { orderId: TxIdOut },
  success: OrderFigures,
  error: OrderWouldMatch
})

/** The owner cancels a resting order: the remainder's lock returns to free. */
export const Cancel = Rpc.make("Cancel", {
  payload: { orderId: TxIdOut, walletId: WalletIdOut },
  success: OrderFigures,
  error: Schema.Union([OrderNotFound, OrderNotActive])
})

/** The room was closed (marked in SQL first): cancel and unlock every open order. */
export const Close = Rpc.make("Close", {
  success: Schema.Struct({ cancelled: Schema.Int })
})

export const RoomEntity = actorEntity("Room", [Match, Cancel, Close])

export const roomEntityId = (roomKey: string, base: string, quote: string): string => `${roomKey}:${base}:${quote}`

/**
 * The room's public vocabulary, for services that place orders and show books: how a pair maps
 * SPEC amounts to the book's units and back, and the order enumerations. The engine stays private.
 */
export {
  baseMinorOf,
  canonicalPair,
  levelTotal,
  makePair,
  type Pair,
  priceOfRatio,
  quoteMinorOfUnits,
  ticksOfRatio
} from "./Pair.ts"
export { mapOrderForm } from "./OrderForm.ts"
export { OrderState, OrderType, SIDE_SELL } from "./Settlement.ts"
