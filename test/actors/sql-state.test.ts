/**
 * The one SQLSTATE reader (sql/SqlState.ts) over real PostgreSQL failures, on the database the
 * integration tests use (server or PGlite): a unique violation (23505), a check violation (23514), a
 * division by zero (22012) and a state raised the way ledger_commit raises its own (LC461), each read
 * from the SqlError a statement fails with — also when it is wrapped once more as a defect's cause — and
 * classified by the LedgerWriter as it classifies a commit's failure. Anything that is not a database
 * failure has no SQLSTATE.
 */
import { assert, layer } from "@effect/vitest"
import { Cause, Effect, Exit } from "effect"
import { SqlClient } from "effect/sql"
import { isUniqueViolation, sqlMessage, sqlState } from "../../sql/SqlState.ts"
import { classify } from "../../src/platform/LedgerWriter.ts"
import { ActorPlatform } from "../support/Actors.ts"

const table = `sqlstate_probe_${process.pid}`

/** The failure a statement ends with (its SqlError), run on the test's database. */
const failureOf = <A, E>(statement: Effect.Effect<A, E, SqlClient.SqlClient>) =>
  Effect.gen(function* () {
    const exit = yield* Effect.exit(statement)
    assert.isTrue(Exit.isFailure(exit), "the statement must fail")
    const reason = Exit.isFailure(exit) ? exit.cause.reasons.find((r) => r._tag === "Fail") : undefined
    return reason?._tag === "Fail" ? (reason.error as unknown) : undefined
  })

const setup = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql.unsafe(`CREATE TABLE IF NOT EXISTS ${table} (id integer PRIMARY KEY, n integer CHECK (n >= 0))`)
  yield* sql.unsafe(`DELETE FROM ${table}`)
  yield* sql.unsafe(`INSERT INTO ${table} (id, n) VALUES (1, 1)`)
}).pipe(Effect.orDie)

layer(ActorPlatform, { excludeTestServices: true, timeout: 60_000 })("the SQLSTATE reader", (it) => {
  it.effect("a unique violation is 23505: the reader, isUniqueViolation and the writer's Duplicate agree", () =>
    Effect.gen(function* () {
      yield* setup
      const sql = yield* SqlClient.SqlClient
      const failure = yield* failureOf(sql.unsafe(`INSERT INTO ${table} (id, n) VALUES (1, 2)`))
      assert.strictEqual(sqlState(failure), "23505")
      assert.isTrue(isUniqueViolation(failure))
      assert.match(sqlMessage(failure), /duplicate key value violates unique constraint/)
      assert.strictEqual(classify(failure)?._tag, "Duplicate")
      // Wrapped once more (a defect's cause, an Error with `cause`): still read.
      const wrapped = new Error("commit failed", { cause: failure })
      assert.strictEqual(sqlState(wrapped), "23505")
      assert.match(sqlMessage(wrapped), /duplicate key/)
      assert.strictEqual(sqlState(Cause.squash(Cause.die(failure))), "23505")
    })
  )

  it.effect("a check violation is 23514 (ConstraintViolated); a division by zero is 22012 (no commit failure)", () =>
    Effect.gen(function* () {
      yield* setup
      const sql = yield* SqlClient.SqlClient
      const check = yield* failureOf(sql.unsafe(`INSERT INTO ${table} (id, n) VALUES (2, -1)`))
      assert.strictEqual(sqlState(check), "23514")
      assert.isFalse(isUniqueViolation(check))
      assert.strictEqual(classify(check)?._tag, "ConstraintViolated")
      const zero = yield* failureOf(sql.unsafe(`SELECT 1 / 0`))
      assert.strictEqual(sqlState(zero), "22012")
      assert.strictEqual(classify(zero), undefined, "not a commit failure: a defect")
    })
  )

  it.effect("a state raised as ledger_commit raises its own (LC461) is read and classified as its refusal", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const failure = yield* failureOf(
        sql.unsafe(`DO $$ BEGIN RAISE EXCEPTION 'too many open investments' USING ERRCODE = 'LC461'; END $$`)
      )
      assert.strictEqual(sqlState(failure), "LC461")
      assert.match(sqlMessage(failure), /too many open investments/)
      const refused = classify(failure)
      assert.strictEqual(refused?._tag === "LedgerRefused" ? refused.reason : undefined, "TooManyOpenInvestments")
    })
  )

  it.effect("what is not a database failure has no SQLSTATE", () =>
    Effect.sync(() => {
      for (const value of [undefined, null, "23505", 42, new Error("boom"), { code: "ECONNREFUSED" }, { code: 23505 }])
        assert.strictEqual(sqlState(value), undefined, String(value))
      const cyclic: { cause?: unknown } = {}
      cyclic.cause = cyclic
      assert.strictEqual(sqlState(cyclic), undefined)
      assert.strictEqual(sqlMessage(new Error("boom")), "boom")
    })
  )
})
