/**
 * The one way to commit a decision (src/platform/CommitDecision.ts, issue #24 item 2): load, decide, commit;
 * a lost race is loaded and decided again at most `retries` times more, then `DecisionContended`; a refusal
 * or a commit's own failure ends at once; a last `LostRace` carrying `ifLast` answers that instead.
 */
import { assert, describe, it } from "@effect/vitest"
import { Data, Effect, Ref, Result } from "effect"
import { commitDecision, DecisionContended, LostRace } from "../../src/platform/CommitDecision.ts"

class Refused extends Data.TaggedError("Refused")<{ readonly balance: number }> {}
class Broken extends Data.TaggedError("Broken") {}
class Final extends Data.TaggedError("Final")<{ readonly seen: number }> {}

/** A row whose version moves each time another writer wins: the commit holds only on the version it read. */
const world = Effect.gen(function* () {
  const version = yield* Ref.make(0)
  const loads = yield* Ref.make(0)
  const balance = yield* Ref.make(100)
  /** The other writer wins the next `n` commits. */
  const losses = yield* Ref.make(0)
  const load = Effect.gen(function* () {
    yield* Ref.update(loads, (n) => n + 1)
    return { version: yield* Ref.get(version), balance: yield* Ref.get(balance) }
  })
  const debit = (amount: number) => (s: { version: number; balance: number }) =>
    s.balance >= amount ? Result.succeed(amount) : Result.fail(new Refused({ balance: s.balance }))
  const commit = (amount: number, s: { version: number }) =>
    Effect.gen(function* () {
      if ((yield* Ref.get(losses)) > 0) {
        yield* Ref.update(losses, (n) => n - 1)
        yield* Ref.update(version, (v) => v + 1)
      }
      if ((yield* Ref.get(version)) !== s.version) return yield* new LostRace({})
      yield* Ref.update(balance, (b) => b - amount)
      yield* Ref.update(version, (v) => v + 1)
      return yield* Ref.get(balance)
    })
  return { load, loads, losses, balance, debit, commit }
})

describe("commitDecision", () => {
  it.effect("no race: one load, one commit, the commit's answer", () =>
    Effect.gen(function* () {
      const w = yield* world
      const left = yield* commitDecision({
        subject: "row",
        load: w.load,
        decide: w.debit(30),
        commit: w.commit,
        retries: 5
      })
      assert.strictEqual(left, 70)
      assert.strictEqual(yield* Ref.get(w.loads), 1)
    })
  )

  it.effect("a lost race is loaded and decided again on the fresh state", () =>
    Effect.gen(function* () {
      const w = yield* world
      yield* Ref.set(w.losses, 3)
      const left = yield* commitDecision({
        subject: "row",
        load: w.load,
        decide: w.debit(30),
        commit: w.commit,
        retries: 3
      })
      assert.strictEqual(left, 70)
      assert.strictEqual(yield* Ref.get(w.loads), 4)
    })
  )

  it.effect("past the bound: DecisionContended naming the subject and the attempts, nothing committed", () =>
    Effect.gen(function* () {
      const w = yield* world
      yield* Ref.set(w.losses, 10)
      const error = yield* Effect.flip(
        commitDecision({ subject: "order 7", load: w.load, decide: w.debit(30), commit: w.commit, retries: 2 })
      )
      assert.instanceOf(error, DecisionContended)
      assert.deepStrictEqual(
        { subject: (error as DecisionContended).subject, attempts: (error as DecisionContended).attempts },
        {
          subject: "order 7",
          attempts: 3
        }
      )
      assert.strictEqual(yield* Ref.get(w.loads), 3)
      assert.strictEqual(yield* Ref.get(w.balance), 100)
    })
  )

  it.effect("retries 0: the first lost race is the named failure", () =>
    Effect.gen(function* () {
      const w = yield* world
      yield* Ref.set(w.losses, 1)
      const error = yield* Effect.flip(
        commitDecision({ subject: "row", load: w.load, decide: w.debit(30), commit: w.commit, retries: 0 })
      )
      assert.strictEqual(error._tag, "DecisionContended")
      assert.strictEqual(yield* Ref.get(w.loads), 1)
    })
  )

  it.effect("a refusal ends at once, without committing", () =>
    Effect.gen(function* () {
      const w = yield* world
      const error = yield* Effect.flip(
        commitDecision({ subject: "row", load: w.load, decide: w.debit(130), commit: w.commit, retries: 5 })
      )
      assert.deepStrictEqual(error, new Refused({ balance: 100 }))
      assert.strictEqual(yield* Ref.get(w.balance), 100)
    })
  )

  it.effect("the decision after a lost race may be a refusal (the winner spent the balance)", () =>
    Effect.gen(function* () {
      const w = yield* world
      let first = true
      const commit = (amount: number, s: { version: number }) =>
        Effect.gen(function* () {
          if (first) {
            first = false
            yield* Ref.set(w.balance, 10)
            return yield* new LostRace({})
          }
          return yield* w.commit(amount, s)
        })
      const error = yield* Effect.flip(
        commitDecision({ subject: "row", load: w.load, decide: w.debit(30), commit, retries: 5 })
      )
      assert.deepStrictEqual(error, new Refused({ balance: 10 }))
      assert.strictEqual(yield* Ref.get(w.loads), 2)
    })
  )

  it.effect("a commit's own failure is not a lost race: it ends at once", () =>
    Effect.gen(function* () {
      const w = yield* world
      const error = yield* Effect.flip(
        commitDecision({
          subject: "row",
          load: w.load,
          decide: w.debit(30),
          commit: () => Effect.fail(new Broken()),
          retries: 5
        })
      )
      assert.strictEqual(error._tag, "Broken")
      assert.strictEqual(yield* Ref.get(w.loads), 1)
    })
  )

  it.effect("a last LostRace carrying ifLast answers that failure instead of DecisionContended", () =>
    Effect.gen(function* () {
      const w = yield* world
      const error = yield* Effect.flip(
        commitDecision({
          subject: "row",
          load: w.load,
          decide: w.debit(30),
          commit: (_, s) => Effect.fail(new LostRace({ ifLast: new Final({ seen: s.version }) })),
          retries: 2
        })
      )
      assert.deepStrictEqual(error, new Final({ seen: 0 }))
      assert.strictEqual(yield* Ref.get(w.loads), 3)
    })
  )
})
