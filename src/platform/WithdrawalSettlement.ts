/**
 * The hook where C15 settles a withdrawal (chain finality of a bound Outcome, tx_send_report failure, a
 * Queued one cancelled): a feature whose state rides on a withdrawal adds its own operations to that
 * same ledger commit. Crypto payouts and crypto refunds use it (actors/payment/PayoutSettlement.ts: the
 * TransferOrder paid out by the withdrawal goes Processing → Paid / Failed; actors/payment/CryptoRefunds.ts:
 * the refund it sends goes Pending → Finished / Failed with its order). Optional: where no
 * implementation is provided (actor tests), nothing is added.
 *
 * A feature may also take a settling withdrawal's money over (`takenOver`): that withdrawal's own
 * settlement postings are dropped from the commit and the feature's added operations book the money
 * instead. Crypto refunds do (their withdrawal pays payoutAmount in payCurrency while the merchant's
 * amount + fee sit in lock_out in the order currency), so each unit moves once.
 */
import { Context, Effect, Option } from "effect"
import { Bucket, type LedgerOperation } from "../../sql/Ledger.ts"

export interface Settlements {
  /** The operations to commit with the settling ones. */
  readonly added: ReadonlyArray<LedgerOperation>
  /** Settling withdrawals (transaction ids) whose money `added` books: their own postings are dropped. */
  readonly takenOver: ReadonlySet<bigint>
}

export class WithdrawalSettlement extends Context.Service<
  WithdrawalSettlement,
  {
    /** What to commit with these operations (the settling ones: transitions to 8 or 16). */
    readonly alongside: (operations: ReadonlyArray<LedgerOperation>) => Effect.Effect<Settlements>
  }
>()("core/WithdrawalSettlement") {}

/** The hook where it is provided (read it when a layer is built: handlers run in that context). */
export const settlementHook = Effect.serviceOption(WithdrawalSettlement)

/** `op` without its postings when it settles a withdrawal taken over. */
const dropTaken = (takenOver: ReadonlySet<bigint>, op: LedgerOperation): LedgerOperation =>
  op.transition !== undefined && op.transition.from !== op.transition.to && takenOver.has(op.transition.id)
    ? { ...op, postings: [] }
    : op

/**
 * `operation` with the hook's operations added to its `extra` and the postings of the withdrawals it
 * takes over dropped (unchanged without the hook or without any).
 */
export const withSettlements = (
  hook: Option.Option<WithdrawalSettlement["Service"]>,
  operation: LedgerOperation
): Effect.Effect<LedgerOperation> =>
  Option.isNone(hook)
    ? Effect.succeed(operation)
    : Effect.map(hook.value.alongside([operation, ...(operation.extra ?? [])]), ({ added, takenOver }) => {
        if (added.length === 0 && takenOver.size === 0) return operation
        const main = dropTaken(takenOver, operation)
        return { ...main, extra: [...(operation.extra ?? []).map((op) => dropTaken(takenOver, op)), ...added] }
      })

/** User wallets whose free balance these operations credit (their actors reload). */
export const creditedIn = (operation: LedgerOperation): ReadonlyArray<bigint> => {
  const ids = new Set<bigint>()
  for (const op of [operation, ...(operation.extra ?? [])])
    for (const p of op.postings) if (p.walletId > 0n && p.bucket === Bucket.free && p.delta > 0n) ids.add(p.walletId)
  return [...ids]
}
