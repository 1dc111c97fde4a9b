/** The market: orders, rooms, swaps, market data. */
import { Layer } from "effect"
import { MarketHandlers } from "./MarketHandlers.ts"

export const ExchangeRoutes = Layer.mergeAll(MarketHandlers)
