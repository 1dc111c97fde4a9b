/** The exchange: rates, rooms, orders, swaps, market data. */
import { Layer } from "effect"
import { ExchangeOrders } from "./ExchangeOrders.ts"
import { MarketData } from "./MarketData.ts"
import { Rooms } from "./Rooms.ts"
import { Swaps } from "./Swaps.ts"

export const ExchangeFeature = Layer.mergeAll(MarketData.layer, Swaps.layer).pipe(
  Layer.provideMerge(Layer.mergeAll(Rooms.layer, ExchangeOrders.layer))
)
