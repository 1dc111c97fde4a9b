/**
 * The hook where C15 settles a withdrawal (chain finality of a bound Outcome, tx_send_report failure, a
 * Queued one cancelled): a feature whose state rides on a withdrawal adds its own operations to that
 * same ledger commit. Crypto payouts and crypto refunds use it (actors/payment/PayoutSettlement.ts: the
 * TransferOrder paid out by the withdrawal goes Processing → Paid / Failed; actors/payment/CryptoRefunds.ts:
 * the refund it sends goes Pending → Finished / Failed with its order). Optional: where no
 * implementation is provided (actor tests), nothing is added.
 */
import { Context, Effect, Option } from "effect"
import type { LedgerOperation } from "../../sql/Ledger.ts"

export class WithdrawalSettlement extends Context.Service<
  WithdrawalSettlement,
  {
    /** The operations to commit with these (the settling ones: transitions to 8 or 16). */
    readonly alongside: (operations: ReadonlyArray<LedgerOperation>) => Effect.Effect<ReadonlyArray<LedgerOperation>>
  }
>()("core/WithdrawalSettlement") {}

/** The hook where it is provided (read it when a layer is built: handlers run in that context). */
export const settlementHook = Effect.serviceOption(WithdrawalSettlement)

/** `operation` with the hook's operations added to its `extra` (unchanged without the hook or without any). */
export const withSettlements = (
  hook: Option.Option<WithdrawalSettlement["Service"]>,
  operation: LedgerOperation
): Effect.Effect<LedgerOperation> =>
  Option.isNone(hook)
    ? Effect.succeed(operation)
    : Effect.map(hook.value.alongside([operation, ...(operation.extra ?? [])]), (more) =>
        more.length === 0 ? operation : { ...operation, extra: [...(operation.extra ?? []), ...more] }
      )
