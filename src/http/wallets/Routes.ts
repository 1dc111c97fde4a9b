/** The wallet user's area (session). */
import { Layer } from "effect"
import { WalletHandlers } from "./WalletHandlers.ts"

export const WalletsRoutes = Layer.mergeAll(WalletHandlers)
