/**
 * The one way to commit a decision (docs/DESIGN.md "The ledger"): load the state, decide on it with a
 * pure engine, commit, and when the commit lost a race (its SQL condition no longer held: the row moved
 * meanwhile) load and decide again, at most `retries` times more; then fail with `DecisionContended`,
 * which the caller names in its contract's words.
 *
 * The commit says "lost race" by failing with `LostRace`; every other failure ends the loop as it is.
 * A `LostRace` may carry the answer to give if it was the last attempt (`ifLast`: a refusal that the
 * last reading justifies), which then replaces `DecisionContended`.
 */
import { Data, Effect, Result } from "effect"

/** The commit's SQL condition did not hold (another writer moved the row): load and decide again. */
export class LostRace<E = never> extends Data.TaggedError("LostRace")<{
  /** The failure to answer instead of `DecisionContended` when no attempt is left. */
  readonly ifLast?: E
}> {}

/** Every attempt lost its race: the state kept moving under `subject`. */
export class DecisionContended extends Data.TaggedError("DecisionContended")<{
  readonly subject: string
  readonly attempts: number
}> {}

type IfLastOf<E> = E extends LostRace<infer X> ? X : never

export interface CommitDecisionOptions<S, D, A, EL, ED, EC, RL, RC> {
  /** What is decided on (for `DecisionContended`'s message and logs). */
  readonly subject: string
  /** Reads the state, fresh on every attempt. */
  readonly load: Effect.Effect<S, EL, RL>
  /** The pure engine: the decision on this state, or the refusal. */
  readonly decide: (state: S) => Result.Result<D, ED>
  /** Commits the decision; fails with `LostRace` when its SQL condition did not hold. */
  readonly commit: (decision: D, state: S) => Effect.Effect<A, EC, RC>
  /** How many times a lost race is decided again (after the first attempt). */
  readonly retries: number
}

/** Load, decide, commit; on a lost race again, at most `retries` more times, then `DecisionContended`. */
export const commitDecision = <S, D, A, EL, ED, EC, RL, RC>(
  options: CommitDecisionOptions<S, D, A, EL, ED, EC, RL, RC>
): Effect.Effect<A, EL | ED | Exclude<EC, LostRace<any>> | IfLastOf<EC> | DecisionContended, RL | RC> =>
  Effect.gen(function* () {
    for (let attempt = 0; ; attempt++) {
      const state = yield* options.load
      const decided = options.decide(state)
      if (Result.isFailure(decided)) return yield* Effect.fail(decided.failure)
      const outcome = yield* Effect.result(options.commit(decided.success, state))
      if (Result.isSuccess(outcome)) return outcome.success
      const failure: unknown = outcome.failure
      if (!(failure instanceof LostRace)) return yield* Effect.fail(failure as Exclude<EC, LostRace<any>>)
      if (attempt >= options.retries) {
        if (failure.ifLast !== undefined) return yield* Effect.fail(failure.ifLast as IfLastOf<EC>)
        return yield* new DecisionContended({ subject: options.subject, attempts: attempt + 1 })
      }
    }
  })
