/**
 * Committing a batch of ledger operations in one SQL transaction with one statement: new
 * transaction rows, state transitions of existing ones, postings and balance updates, pending
 * confirmations, events and nonces, each group as multi-row columns for `ledger_commit`
 * (sql/migrations/0011), then every feature's rows (`RowKind`, sql/Ledger.ts) grouped by kind.
 * Ticks come from the clock row, taken first.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { byteaArray, numberArray, textArray } from "./ArrayLiterals.ts"
import { foldTransitions } from "./Folding.ts"
import { sqlMessage, sqlState } from "./SqlState.ts"
import {
  type Columns,
  type ConfirmationInsert,
  type EventInsert,
  journalChannel,
  type LedgerOperation,
  type Posting,
  type RowKind,
  StateConflict,
  type TxRecord,
  type TxTransition,
  txIdOf
} from "./Ledger.ts"

/**
 * Commits operations and returns the update tick of each: one call of `ledger_commit` (migration
 * 0009), one statement and so one transaction of its own (run it outside any transaction), which
 * updates the clock row first (its row lock orders whole batches, so ticks are gapless in commit
 * order, across processes too) and sends the NOTIFY that wakes other processes' long-polls with
 * the commit. A stale transition or order update fails the call (StateConflict) and undoes it all.
 */
export const commitOperations = (requested: ReadonlyArray<LedgerOperation>, nowMicros: bigint) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.gen(function* () {
      // Each operation and each of its `extra` transactions is one part with its own tick; rows
      // carry their part's offset from the batch's first tick, events come after the parts.
      const operations: Array<LedgerOperation> = []
      const firstPart: Array<number> = []
      for (const op of requested) {
        firstPart.push(operations.length)
        operations.push(op)
        if (op.extra !== undefined) for (const part of op.extra) operations.push(part)
      }
      const eventCount = operations.reduce((n, op) => n + (op.events?.length ?? 0), 0)
      const count = operations.length + eventCount

      const inserts = operations.flatMap((op, i) => (op.tx !== undefined ? [{ t: op.tx, tick: BigInt(i) }] : []))
      const transitions = foldTransitions(
        operations.flatMap((op, i) => (op.transition !== undefined ? [{ t: op.transition, tick: BigInt(i) }] : []))
      )
      const postingRows = operations.flatMap((op, i) =>
        op.postings.map((p, seq) => ({ txId: txIdOf(op), off: i, seq, ...p }))
      )
      const confirmations = operations.flatMap((op) => (op.confirmation !== undefined ? [op.confirmation] : []))
      const dropped = operations.flatMap((op) => (op.dropConfirmation === true ? [txIdOf(op)] : []))
      let nextEvent = operations.length
      const events = operations.flatMap((op) => (op.events ?? []).map((e) => ({ ...e, off: nextEvent++ })))
      const kinds = kindColumns(operations)

      const [row] = yield* sql<{ last_tick: string }>`
        SELECT ledger_commit(${count}::integer, ${nowMicros}::bigint, ${journalChannel}::text,
          ${param(transactionColumns(inserts))}::text[], ${param(transitionColumns(transitions))}::text[],
          ${param(postingColumns(postingRows))}::text[], ${param(balanceColumns(postingRows))}::text[],
          ${param(confirmationColumns(confirmations))}::text[], ${param(dropped.length === 0 ? null : [numberArray(dropped)])}::text[],
          ${param(eventColumns(events))}::text[], ${param(nonceColumns(operations))}::text[],
          ${kinds === null ? null : textArray(kinds.names)}::text[], ${kinds === null ? null : textArray(kinds.groups)}::text[])::text AS last_tick`.pipe(
        Effect.catchIf(
          (error) => sqlState(error) === staleRowsState,
          (error) => Effect.fail(new StateConflict({ txIds: staleIdsOf(error) }))
        )
      )
      const firstTick = BigInt(row.last_tick) - BigInt(count) + 1n
      return firstPart.map((index) => firstTick + BigInt(index))
    })
  )

/** The SQLSTATE `ledger_commit` raises when a conditional update found its row moved on. */
const staleRowsState = "LC409"

const staleIdsOf = (error: unknown): Array<bigint> => {
  const match = /stale rows: ([0-9,]+)/.exec(sqlMessage(error))
  return match === null ? [] : match[1].split(",").map((id) => BigInt(id))
}

/** A column group as one `text[]` parameter (its elements are the columns' array literals). */
const param = (columns: Columns | null): string | null => (columns === null ? null : textArray(columns))

const transactionColumns = (rows: ReadonlyArray<{ readonly t: TxRecord; readonly tick: bigint }>): Columns | null => {
  if (rows.length === 0) return null
  const txs = rows.map((r) => r.t)
  return [
    numberArray(txs.map((t) => t.id)),
    numberArray(rows.map((r) => r.tick)),
    numberArray(txs.map((t) => t.typeTx)),
    numberArray(txs.map((t) => t.txState)),
    numberArray(txs.map((t) => t.walletFrom)),
    numberArray(txs.map((t) => t.walletTo)),
    textArray(txs.map((t) => t.currency)),
    numberArray(txs.map((t) => t.amount)),
    numberArray(txs.map((t) => t.fee)),
    textArray(txs.map((t) => t.tag)),
    numberArray(txs.map((t) => t.appId)),
    textArray(txs.map((t) => t.externalId)),
    textArray(txs.map((t) => t.requestHash)),
    numberArray(txs.map((t) => t.clientNonce ?? null)),
    numberArray(txs.map((t) => t.profitWallet ?? null)),
    textArray(txs.map((t) => t.currencyTo ?? null)),
    numberArray(txs.map((t) => t.amountTo ?? null))
  ]
}

/** Conditional state changes (`WHERE tx_state = from`); the caller compares what applied with what it asked. */
const transitionColumns = (rows: ReadonlyArray<{ readonly t: TxTransition; readonly tick: bigint }>): Columns | null =>
  rows.length === 0
    ? null
    : [
        numberArray(rows.map((r) => r.t.id)),
        numberArray(rows.map((r) => r.t.from)),
        numberArray(rows.map((r) => r.t.to)),
        numberArray(rows.map((r) => r.tick)),
        numberArray(rows.map((r) => r.t.walletFrom ?? null)),
        numberArray(rows.map((r) => r.t.walletTo ?? null)),
        numberArray(rows.map((r) => r.t.amount ?? null)),
        numberArray(rows.map((r) => r.t.amountTo ?? null)),
        numberArray(rows.map((r) => r.t.fee ?? null))
      ]

type PostingRow = Posting & { readonly txId: bigint; readonly off: number; readonly seq: number }

const postingColumns = (rows: ReadonlyArray<PostingRow>): Columns | null =>
  rows.length === 0
    ? null
    : [
        numberArray(rows.map((p) => p.txId)),
        numberArray(rows.map((p) => p.off)),
        numberArray(rows.map((p) => p.seq)),
        numberArray(rows.map((p) => p.walletId)),
        textArray(rows.map((p) => p.currency)),
        numberArray(rows.map((p) => p.bucket)),
        numberArray(rows.map((p) => p.delta))
      ]

/** Per wallet and currency the sum of each bucket's deltas, sorted so concurrent batches lock balance rows in one global order (no deadlocks). */
const balanceColumns = (postings: ReadonlyArray<Posting>): Columns | null => {
  if (postings.length === 0) return null
  const sums = new Map<string, { walletId: bigint; currency: string; d: [bigint, bigint, bigint, bigint] }>()
  for (const p of postings) {
    const key = `${p.walletId}:${p.currency}`
    let entry = sums.get(key)
    if (entry === undefined) {
      entry = { walletId: p.walletId, currency: p.currency, d: [0n, 0n, 0n, 0n] }
      sums.set(key, entry)
    }
    entry.d[p.bucket] += p.delta
  }
  const rows = [...sums.values()].sort((a, b) =>
    a.walletId < b.walletId
      ? -1
      : a.walletId > b.walletId
        ? 1
        : a.currency < b.currency
          ? -1
          : a.currency > b.currency
            ? 1
            : 0
  )
  return [
    numberArray(rows.map((r) => r.walletId)),
    textArray(rows.map((r) => r.currency)),
    numberArray(rows.map((r) => r.d[0])),
    numberArray(rows.map((r) => r.d[1])),
    numberArray(rows.map((r) => r.d[2])),
    numberArray(rows.map((r) => r.d[3]))
  ]
}

const confirmationColumns = (rows: ReadonlyArray<ConfirmationInsert>): Columns | null =>
  rows.length === 0
    ? null
    : [
        numberArray(rows.map((c) => c.txId)),
        numberArray(rows.map((c) => c.walletId)),
        textArray(rows.map((c) => c.channel)),
        byteaArray(rows.map((c) => c.codeHash)),
        numberArray(rows.map((c) => c.attempts)),
        textArray(rows.map((c) => c.expiresAt.toISOString()))
      ]

const eventColumns = (rows: ReadonlyArray<EventInsert & { readonly off: number }>): Columns | null =>
  rows.length === 0
    ? null
    : [
        numberArray(rows.map((e) => e.off)),
        textArray(rows.map((e) => e.kind)),
        numberArray(rows.map((e) => e.walletId)),
        textArray(rows.map((e) => JSON.stringify(e.payload)))
      ]

/** Client nonces consumed (unique per wallet: a reuse fails the batch with a unique violation). */
const nonceColumns = (operations: ReadonlyArray<LedgerOperation>): Columns | null => {
  const nonces = operations.flatMap((op) => (op.nonce !== undefined ? [{ ...op.nonce, txId: txIdOf(op) }] : []))
  return nonces.length === 0
    ? null
    : [
        numberArray(nonces.map((n) => n.walletId)),
        numberArray(nonces.map((n) => n.clientNonce)),
        numberArray(nonces.map((n) => n.txId))
      ]
}

/**
 * Feature rows grouped by kind in ascending rank (ties keep their first appearance), each group with
 * its part's tick offset: the kinds' names and their column groups, one text[] literal per kind.
 */
const kindColumns = (operations: ReadonlyArray<LedgerOperation>) => {
  const groups = new Map<RowKind<any>, Array<{ readonly row: unknown; readonly offset: number }>>()
  operations.forEach((op, offset) => {
    for (const { kind, rows } of op.rows ?? []) {
      let group = groups.get(kind)
      if (group === undefined) groups.set(kind, (group = []))
      for (const row of rows) group.push({ row, offset })
    }
  })
  if (groups.size === 0) return null
  const kinds = [...groups.keys()].sort((a, b) => a.rank - b.rank)
  return { names: kinds.map((k) => k.name), groups: kinds.map((k) => textArray(k.columns(groups.get(k)!))) }
}
