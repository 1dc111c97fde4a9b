/**
 * Step one of the actions C19 §4 makes two-step without reserving anything (migration 0035): the
 * pending step, and the `ConfirmationCode` event that carries its code (never inline). Step two
 * spends an attempt or takes the step (one use) in one conditional statement each.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { Bytes, decodeFirst, Int, Int8, Nullable, OneOf, record, Text, Timestamp } from "./Decoding.ts"

export const SecondFactorStep = record({
  txId: Int8,
  walletId: Int8,
  action: Text,
  paramsHash: Bytes,
  channel: OneOf(["Code", "Sign"]),
  codeHash: Nullable(Bytes),
  attemptsLeft: Int,
  expiresAt: Timestamp
})
export type SecondFactorStep = typeof SecondFactorStep.Type

const firstStep = decodeFirst(SecondFactorStep)
const AttemptsLeft = record({ attemptsLeft: Int })
const firstAttempts = decodeFirst(AttemptsLeft)

const columns = "tx_id, wallet_id, action, params_hash, channel, code_hash, attempts_left, expires_at"

/**
 * Records step one (and drops the wallet's expired steps). With a code, its `ConfirmationCode` event
 * goes to the events feed in the same statement, its id the next journal tick (as ledger_commit takes it).
 */
export const insertSecondFactorStep = (
  step: Omit<SecondFactorStep, "attemptsLeft"> & { readonly attemptsLeft: number },
  eventPayload: unknown | null,
  nowMicros: bigint
) =>
  SqlClient.SqlClient.use((sql) =>
    sql.withTransaction(
      Effect.gen(function* () {
        yield* sql`DELETE FROM second_factor_steps WHERE wallet_id = ${step.walletId} AND expires_at < now()`
        yield* sql`INSERT INTO second_factor_steps (${sql.literal(columns)})
          VALUES (${step.txId}, ${step.walletId}, ${step.action}, ${step.paramsHash}, ${step.channel},
            ${step.codeHash}, ${step.attemptsLeft}, ${step.expiresAt})`
        if (eventPayload !== null)
          yield* sql`WITH clock AS (
              UPDATE journal_clock SET tick = GREATEST(tick + 1, ${String(nowMicros)}::bigint) RETURNING tick)
            INSERT INTO events (id, kind, wallet_id, payload)
            SELECT tick, 'ConfirmationCode', ${step.walletId}, ${JSON.stringify(eventPayload)}::jsonb FROM clock`
      })
    )
  )

export const findSecondFactorStep = (txId: string) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(sql`SELECT ${sql.literal(columns)} FROM second_factor_steps WHERE tx_id = ${txId}`, firstStep)
  )

/** One wrong proof: the attempts left after it (0 when the step is gone). */
export const spendSecondFactorAttempt = (txId: string) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(
      sql`UPDATE second_factor_steps SET attempts_left = GREATEST(attempts_left - 1, 0)
        WHERE tx_id = ${txId} RETURNING attempts_left`,
      (rows) => firstAttempts(rows)?.attemptsLeft ?? 0
    )
  )

/** Takes the step for its one use: true when this call took it (a concurrent step two gets false). */
export const takeSecondFactorStep = (txId: string) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(sql`DELETE FROM second_factor_steps WHERE tx_id = ${txId} RETURNING tx_id`, (rows) => rows.length === 1)
  )
