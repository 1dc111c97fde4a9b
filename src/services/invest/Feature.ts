/** Investments (C17): the service and its sweep. */
import { Layer } from "effect"
import { Investments } from "./Investments.ts"
import { InvestmentSweep } from "./InvestmentSweep.ts"

export const InvestFeature = Layer.mergeAll(Investments.layer, InvestmentSweep)
