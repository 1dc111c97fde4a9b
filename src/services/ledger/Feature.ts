/** The ledger's reads: the journal, the committed watermark and long-polls, the operator's audit. */
import { Layer } from "effect"
import { Feeds } from "./Feeds.ts"
import { Journal } from "./Journal.ts"
import { LedgerAudit } from "./LedgerAudit.ts"

export const LedgerFeature = Layer.mergeAll(Journal.layer, Feeds.layer, LedgerAudit.layer)
