/** The operator's ledger area: journal, transfers, debt charges, feeds. */
import { Layer } from "effect"
import { PrivateLedgerHandlers } from "./PrivateLedgerHandlers.ts"

export const LedgerRoutes = Layer.mergeAll(PrivateLedgerHandlers)
