/**
 * The wallet actor's one path for committing what it decides. A plan turns the wallet's known
 * figures of one currency into an operation or a refusal; a refusal on cached figures is decided
 * again on fresh ones (other actors may have credited the wallet, so the cache can only
 * understate). After the commit the postings are applied to the cache; on any failure the cached
 * figure is dropped. When SQL's CHECK refuses the commit (another process's actor for this wallet
 * spent meanwhile, so the cache overstated), the plan runs again on fresh figures, a bounded number
 * of times; the failures left are the caller's to name.
 */
import { Effect } from "effect"
import type { LedgerOperation } from "../../sql/Ledger.ts"
import {
  type CommitFailure,
  isCommitFailure,
  type LedgerRefused,
  type LedgerWriter
} from "../../src/platform/LedgerWriter.ts"
import type { Buckets } from "./Engine.ts"
import type { WalletState } from "./State.ts"

/** What a plan answers: the operation to commit, or why not. */
export type Decided<E> = { readonly commit: LedgerOperation } | { readonly refuse: E }

/** A plan decides on the wallet's figures of one currency (`fresh`: figures just loaded). */
export type Plan<E> = (known: Buckets, fresh: boolean) => Decided<E>

export const commitIt = (operation: LedgerOperation): Decided<never> => ({ commit: operation })
export const refuse = <E>(why: E): Decided<E> => ({ refuse: why })

/** Commits after a CHECK refusal are retried this many times on fresh figures. */
const refusalRetriesMax = 3

export const makeCommits = (state: WalletState, ledger: LedgerWriter["Service"]) => {
  const planned = <E>(currency: string, plan: Plan<E>) =>
    Effect.gen(function* () {
      let decided = plan(yield* state.bucketsOf(currency), false)
      if ("refuse" in decided) {
        state.forget(currency)
        decided = plan(yield* state.bucketsOf(currency), true)
      }
      if ("refuse" in decided) return yield* Effect.fail(decided.refuse)
      return decided.commit
    })

  /** Commits one operation that touches `currency` of this wallet, keeping the cache honest. */
  const commit = (operation: LedgerOperation, currency: string): Effect.Effect<bigint, CommitFailure> =>
    ledger.commit(operation).pipe(
      Effect.tap(() => Effect.sync(() => state.apply(operation.postings))),
      // Any failure, typed or not (a database error answered as a defect, C19 §7), drops the figure.
      Effect.tapCause(() => Effect.sync(() => state.forget(currency)))
    )

  /** Plans on the known figures, commits, and plans again on fresh figures after a CHECK refusal. */
  const commitPlanned = <E>(currency: string, plan: Plan<E>): Effect.Effect<bigint, E | CommitFailure> =>
    Effect.flatMap(planned(currency, plan), (operation) => commit(operation, currency)).pipe(
      Effect.retry({
        times: refusalRetriesMax,
        while: (failure) => isCommitFailure(failure) && failure._tag === "ConstraintViolated"
      })
    )

  return { commit, commitPlanned }
}

/**
 * Names the commit failures left after the retries in the caller's own words (its rejections). A
 * LedgerRefused (ledger_commit's own rule: nothing was written) takes `LedgerRefused` when given, else
 * the ConstraintViolated name (a refusal that moved nothing).
 */
export const nameFailures =
  <D, S, C, R = C>(names: {
    readonly Duplicate: () => D
    readonly StateConflict: () => S
    readonly ConstraintViolated: () => C
    readonly LedgerRefused?: (refused: LedgerRefused) => R
  }) =>
  <A, E>(effect: Effect.Effect<A, E | CommitFailure>): Effect.Effect<A, Exclude<E, CommitFailure> | D | S | C | R> =>
    Effect.catchIf(effect, isCommitFailure, (failure) =>
      Effect.fail(
        failure._tag === "LedgerRefused"
          ? (names.LedgerRefused ?? names.ConstraintViolated)(failure)
          : names[failure._tag]()
      )
    ) as any
