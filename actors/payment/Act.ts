/**
 * The payment order actor's `act` (Behaviour.ts): decide on the order, commit the decision. The actor
 * keeps the order as its own last commit left it (its creation, or an `act`) between messages, so the
 * next change is decided without reading the row: that commit is conditional on the row's state and
 * version (LC409 otherwise, which undoes the whole commit), so one that goes through was decided on the
 * stored row. Everything else reads the row as before; any other read of the order (`load`: refunds,
 * card outcomes, expiry) forgets what was kept, since what follows may change the row.
 */
import { Effect } from "effect"
import type { PaymentOrderRow } from "../../sql/PaymentOrderRepo.ts"
import type { PaymentOrderNotFound } from "../../schema/PaymentErrors.ts"
import { type Decision, type OrderState, OrderStateCode } from "./Engine.ts"
import { type CommitExtras, factsAfter, type OrderFacts, stateOfRow } from "./OrderRow.ts"
import type { OrderError } from "./Protocol.ts"

type Decide = (s: OrderState, now: number) => Decision
type Extras = CommitExtras | ((after: OrderState) => CommitExtras) | undefined

export const makeOrderAct = (deps: {
  /** The stored row (PaymentOrderNotFound without one). */
  readonly read: Effect.Effect<PaymentOrderRow, PaymentOrderNotFound>
  /** Commits an Ok decision (a Reject fails with its error). */
  readonly commit: (
    row: OrderFacts,
    before: OrderState,
    decision: Decision,
    extras?: CommitExtras
  ) => Effect.Effect<void, OrderError>
  /** Commits a due order's expiry (its outcome is not the answer). */
  readonly commitExpiry: (row: OrderFacts, before: OrderState, now: number) => Effect.Effect<unknown, unknown>
}) => {
  /** What this actor's own last commit left; undefined once anything else may have changed the row. */
  let known: OrderFacts | undefined

  const load = Effect.suspend(() => {
    known = undefined
    return deps.read
  })

  /** Commits an Ok decision on `row` and keeps the facts it leaves. */
  const commitKept = (row: OrderFacts, before: OrderState, decision: Decision, extras: Extras) =>
    Effect.gen(function* () {
      const more = typeof extras === "function" ? (decision._tag === "Ok" ? extras(decision.state) : {}) : extras
      yield* deps.commit(row, before, decision, more)
      if (decision._tag === "Ok") known = factsAfter(row, decision.state)
      return { stateCode: decision._tag === "Ok" ? decision.state.stateCode : before.stateCode, replayed: false }
    })

  /** Decides on the stored row and commits; an action on a due order commits Expired first and answers 10301. */
  const actOn = (row: OrderFacts, decide: Decide, extras: Extras) =>
    Effect.gen(function* () {
      const before = stateOfRow(row)
      const now = Date.now()
      const decision = decide(before, now)
      if (decision._tag === "Reject" && decision.rule === "Expired" && before.stateCode !== OrderStateCode.Expired) {
        yield* Effect.ignore(deps.commitExpiry(row, before, now))
      }
      if (decision._tag === "Ok" && decision.replayed === true) return { stateCode: before.stateCode, replayed: true }
      return yield* commitKept(row, before, decision, extras)
    })

  const unchanged = (a: OrderFacts, b: OrderFacts) =>
    a.version === b.version && a.stateCode === b.stateCode && a.txState === b.txState

  /**
   * Loads, decides and commits. On kept facts only a change is tried (its commit vouches for them); a
   * refusal or a replay, which commit nothing, is decided again on the stored row, and so is a failed
   * commit unless the row is still the one decided on (then that failure is the answer, as a read
   * first would have given).
   */
  const act = (
    decide: Decide,
    extras?: Extras
  ): Effect.Effect<{ readonly stateCode: number; readonly replayed: boolean }, OrderError> =>
    Effect.gen(function* () {
      const kept = known
      known = undefined
      if (kept !== undefined) {
        const before = stateOfRow(kept)
        const decision = decide(before, Date.now())
        if (decision._tag === "Ok" && decision.replayed !== true)
          return yield* commitKept(kept, before, decision, extras).pipe(
            Effect.catch((failure) =>
              Effect.flatMap(load, (row) => (unchanged(row, kept) ? Effect.fail(failure) : actOn(row, decide, extras)))
            )
          )
      }
      return yield* actOn(yield* load, decide, extras)
    })

  /** The facts a creation commit just stored. */
  const created = (facts: OrderFacts) => {
    known = facts
  }

  return { load, act, created }
}
