/**
 * The one place a federation transaction's outcome is decided (CONTRACT C18 "exactly once"): given the
 * partner's order as read back (never a webhook body), a partner order (FederationCredit) goes Created →
 * Finished (FederationWallet −16 free −amount, the wallet free +amount) or Created → Canceled (nothing
 * moves); a partner transfer (FederationTransfer) goes Created|Confirmed 3 → Finished (lock_out
 * −(amount + fee), −16 +amount, fee → its profit wallet) or 3 → Canceled (lock_out → free). Each is ONE
 * conditional ledger transition: whichever of the webhook, its retries, reconciliation, federation_credit
 * or the sender's own step comes second finds the state moved (StateConflict) and records nothing —
 * also when two of them land in one ledger batch (migration 0029: a row asked twice is stale unless both
 * applied, and the writer retries one at a time).
 */
import { Effect } from "effect"
import { Bucket, type LedgerOperation, type Posting, SystemWallet } from "../../../sql/Ledger.ts"
import type { LinkRow } from "../../../sql/FederationRepo.ts"
import { TxState } from "../../../schema/Transfer.ts"
import type { LedgerWriter } from "../../platform/LedgerWriter.ts"

export const paidStates: ReadonlySet<string> = new Set(["Paid", "PartiallyRefunded", "Refunded"])
export const failedStates: ReadonlySet<string> = new Set(["Expired", "Canceled", "Failed"])

export type Verdict = "finish" | "cancel" | "none"

/** What the partner's order state means for our transaction. */
export const verdictOf = (state: unknown): Verdict =>
  typeof state !== "string" ? "none" : paidStates.has(state) ? "finish" : failedStates.has(state) ? "cancel" : "none"

const Processing = TxState.Created | TxState.Confirmed

/** The state our transaction waits in for the partner: Created for orders and credits, 3 for transfers. */
export const waitingState = (link: LinkRow): number => (link.kind === 3 ? Processing : TxState.Created)

export const finishOperation = (link: LinkRow): LedgerOperation => {
  const c = link.currency
  const postings: Array<Posting> =
    link.kind === 3
      ? [
          { walletId: link.walletId, currency: c, bucket: Bucket.lockOut, delta: -(link.amount + link.fee) },
          { walletId: SystemWallet.Federation, currency: c, bucket: Bucket.free, delta: link.amount },
          ...(link.fee > 0n
            ? [{ walletId: link.profitWallet ?? SystemWallet.Fees, currency: c, bucket: Bucket.free, delta: link.fee }]
            : [])
        ]
      : [
          { walletId: SystemWallet.Federation, currency: c, bucket: Bucket.free, delta: -link.amount },
          { walletId: link.walletId, currency: c, bucket: Bucket.free, delta: link.amount }
        ]
  return { transition: { id: link.txId, from: waitingState(link), to: TxState.Finished }, postings }
}

export const cancelOperation = (link: LinkRow): LedgerOperation => ({
  transition: { id: link.txId, from: waitingState(link), to: TxState.Canceled },
  postings:
    link.kind === 3
      ? [
          {
            walletId: link.walletId,
            currency: link.currency,
            bucket: Bucket.lockOut,
            delta: -(link.amount + link.fee)
          },
          { walletId: link.walletId, currency: link.currency, bucket: Bucket.free, delta: link.amount + link.fee }
        ]
      : []
})

/** Commits a transition; true when this call moved it, false when another path had already. */
export const transition = (ledger: LedgerWriter["Service"], operation: LedgerOperation) =>
  ledger.commit(operation).pipe(
    Effect.as(true),
    Effect.catchTag("StateConflict", () => Effect.succeed(false)),
    Effect.orDie
  )
