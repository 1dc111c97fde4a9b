/** Investments (C17): the wallet user's and the operator's areas. */
import { Layer } from "effect"
import { InvestHandlers } from "./InvestHandlers.ts"
import { PrivateInvestHandlers } from "./PrivateInvestHandlers.ts"

export const InvestRoutes = Layer.mergeAll(InvestHandlers, PrivateInvestHandlers)
