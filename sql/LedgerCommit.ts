/**
 * Committing a batch of ledger operations in one SQL transaction with multi-row statements: new
 * transaction rows, state transitions of existing ones, postings and balance updates, pending
 * confirmations, and events. Ticks come from the clock row, taken first.
 */
import { Data, Effect } from "effect"
import { SqlClient } from "effect/sql"
import { byteaArray, numberArray, textArray } from "./ArrayLiterals.ts"
import { foldTransitions } from "./Folding.ts"
import { applyOrderChanges, type OrderInsert, type OrderUpdate, type TradeInsert } from "./ExchangeCommit.ts"

export type { OrderInsert, OrderUpdate, TradeInsert } from "./ExchangeCommit.ts"

export const Bucket = { free: 0, lockOut: 1, lockIn: 2, lockOrders: 3 } as const
export type Bucket = (typeof Bucket)[keyof typeof Bucket]

export interface Posting {
  readonly walletId: bigint
  readonly currency: string
  readonly bucket: Bucket
  readonly delta: bigint
}

export interface TxRecord {
  readonly id: bigint
  readonly typeTx: number
  readonly txState: number
  readonly walletFrom: bigint
  readonly walletTo: bigint
  readonly currency: string
  readonly amount: bigint
  readonly fee: bigint
  readonly tag: string | null
  readonly appId: bigint | null
  readonly externalId: string | null
  readonly requestHash: string | null
  readonly clientNonce?: bigint | null
  readonly profitWallet?: bigint | null
  /** Exchange legs (orders, swaps): the currency received and the net amount received. */
  readonly currencyTo?: string | null
  readonly amountTo?: bigint | null
}

/** A state change of an existing transaction, applied only if it is still in `from`. */
export interface TxTransition {
  readonly id: bigint
  readonly from: number
  readonly to: number
  /** Parties bound by the transition (a code's redeemer or an invoice's payer). */
  readonly walletFrom?: bigint
  readonly walletTo?: bigint
  /** New figures of an exchange transaction as it fills (given, net received, fee). */
  readonly amount?: bigint
  readonly amountTo?: bigint
  readonly fee?: bigint
}

export interface CodeInsert {
  readonly txId: bigint
  readonly codeHash: Uint8Array
  readonly kind: "transfer" | "room"
  readonly creator: bigint
  readonly expiresAt: Date | null
  readonly partnerInfo: string | null
}

export interface ConfirmationInsert {
  readonly txId: bigint
  readonly walletId: bigint
  readonly channel: "Inline" | "Code" | "Sign"
  readonly codeHash: Uint8Array | null
  readonly attempts: number
  readonly expiresAt: Date
}

export interface EventInsert {
  readonly kind: string
  readonly walletId: bigint
  readonly payload: unknown
}

/** One operation: exactly one of `tx` (a new transaction) or `transition` (an existing one). */
export interface LedgerOperation {
  readonly tx?: TxRecord
  readonly transition?: TxTransition
  readonly postings: ReadonlyArray<Posting>
  readonly confirmation?: ConfirmationInsert
  readonly dropConfirmation?: boolean
  readonly events?: ReadonlyArray<EventInsert>
  readonly code?: CodeInsert
  /** The code's bound counterparty after this operation (null unbinds). */
  readonly codeCounterparty?: bigint | null
  /** A client nonce consumed by this operation (unique per wallet: a reuse fails the operation). */
  readonly nonce?: { readonly walletId: bigint; readonly clientNonce: bigint }
  /** Order rows written with this operation (exchange). */
  readonly orderInsert?: OrderInsert
  readonly orderUpdates?: ReadonlyArray<OrderUpdate>
  readonly trades?: ReadonlyArray<TradeInsert>
  /**
   * Further transactions committed atomically with this one (a match settles the taker's and every
   * maker's order transaction together). Each gets its own update tick; nested `extra` is ignored.
   */
  readonly extra?: ReadonlyArray<LedgerOperation>
}

/** A transition found its transaction no longer in the expected state (another operation won). */
export class StateConflict extends Data.TaggedError("StateConflict")<{ readonly txIds: ReadonlyArray<bigint> }> {}

export const journalChannel = "core_journal"

export const txIdOf = (op: LedgerOperation): bigint => {
  const id = op.tx?.id ?? op.transition?.id
  if (id === undefined) throw new Error("invariant: a ledger operation needs a tx or a transition")
  return id
}

/**
 * Commits operations in the current transaction and returns the update tick of each. The clock
 * row is updated first: its row lock orders whole batches, so ticks are gapless in commit order
 * (across processes too), and the NOTIFY sent with the commit wakes other processes' long-polls.
 */
export const commitOperations = (requested: ReadonlyArray<LedgerOperation>, nowMicros: bigint) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.gen(function*() {
      // Each operation and each of its `extra` transactions is one part with its own tick.
      const operations: Array<LedgerOperation> = []
      const firstPart: Array<number> = []
      for (const op of requested) {
        firstPart.push(operations.length)
        operations.push(op)
        if (op.extra !== undefined) for (const part of op.extra) operations.push(part)
      }
      const eventCount = operations.reduce((n, op) => n + (op.events?.length ?? 0), 0)
      const count = operations.length + eventCount
      // Row lock on the clock: held to commit, it serializes tick allocation with commit order.
      const [clock] = yield* sql<{ tick: bigint }>`UPDATE journal_clock SET tick = GREATEST(tick + ${count}, ${nowMicros}::bigint)
        RETURNING tick`
      const lastTick = BigInt(clock.tick)
      const firstTick = lastTick - BigInt(count) + 1n
      const ticks = operations.map((_, index) => firstTick + BigInt(index))

      const inserts = operations.flatMap((op, i) => (op.tx !== undefined ? [{ t: op.tx, tick: ticks[i] }] : []))
      if (inserts.length > 0) yield* insertTransactions(inserts)
      const transitions = operations.flatMap((op, i) => (op.transition !== undefined ? [{ t: op.transition, tick: ticks[i] }] : []))
      if (transitions.length > 0) yield* applyTransitions(foldTransitions(transitions))

      const postingRows = operations.flatMap((op, i) => op.postings.map((p, seq) => ({ txId: txIdOf(op), tick: ticks[i], seq, ...p })))
      if (postingRows.length > 0) {
        yield* sql`INSERT INTO postings (tx_id, op_tick, seq, wallet_id, currency, bucket, delta)
          SELECT * FROM unnest(${numberArray(postingRows.map((p) => p.txId))}::bigint[], ${numberArray(postingRows.map((p) => p.tick))}::bigint[],
            ${numberArray(postingRows.map((p) => p.seq))}::smallint[],
            ${numberArray(postingRows.map((p) => p.walletId))}::bigint[], ${textArray(postingRows.map((p) => p.currency))}::text[],
            ${numberArray(postingRows.map((p) => p.bucket))}::smallint[], ${numberArray(postingRows.map((p) => p.delta))}::numeric[])`
        yield* applyBalanceDeltas(postingRows)
      }

      const confirmations = operations.flatMap((op) => (op.confirmation !== undefined ? [op.confirmation] : []))
      if (confirmations.length > 0) {
        yield* sql`INSERT INTO confirmations (tx_id, wallet_id, channel, code_hash, attempts_left, expires_at)
          SELECT * FROM unnest(${numberArray(confirmations.map((c) => c.txId))}::bigint[], ${numberArray(confirmations.map((c) => c.walletId))}::bigint[],
            ${textArray(confirmations.map((c) => c.channel))}::text[], ${byteaArray(confirmations.map((c) => c.codeHash))}::bytea[],
            ${numberArray(confirmations.map((c) => c.attempts))}::smallint[],
            ${textArray(confirmations.map((c) => c.expiresAt.toISOString()))}::timestamptz[])`
      }
      const dropped = operations.flatMap((op) => (op.dropConfirmation === true ? [txIdOf(op)] : []))
      if (dropped.length > 0) yield* sql`DELETE FROM confirmations WHERE tx_id = ANY(${numberArray(dropped)}::bigint[])`

      if (eventCount > 0) {
        let next = firstTick + BigInt(operations.length)
        const events = operations.flatMap((op) => (op.events ?? []).map((e) => ({ ...e, id: next++ })))
        yield* sql`INSERT INTO events (id, kind, wallet_id, payload)
          SELECT id, kind, wallet_id, payload::jsonb FROM unnest(${numberArray(events.map((e) => e.id))}::bigint[],
            ${textArray(events.map((e) => e.kind))}::text[], ${numberArray(events.map((e) => e.walletId))}::bigint[],
            ${textArray(events.map((e) => JSON.stringify(e.payload)))}::text[]) AS e (id, kind, wallet_id, payload)`
      }
      yield* applyCodeChanges(operations)
      const staleOrders = yield* applyOrderChanges(operations)
      if (staleOrders.length > 0) return yield* new StateConflict({ txIds: staleOrders })
      yield* sql`SELECT pg_notify(${journalChannel}, ${String(lastTick)})`
      return firstPart.map((index) => ticks[index])
    }))

/** Codes created, counterparties bound or unbound, client nonces consumed. */
const applyCodeChanges = (operations: ReadonlyArray<LedgerOperation>) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.gen(function*() {
      const codes = operations.flatMap((op) => (op.code !== undefined ? [op.code] : []))
      if (codes.length > 0) {
        yield* sql`INSERT INTO codes (tx_id, code_hash, kind, creator, expires_at, partner_info)
          SELECT * FROM unnest(${numberArray(codes.map((c) => c.txId))}::bigint[], ${byteaArray(codes.map((c) => c.codeHash))}::bytea[],
            ${textArray(codes.map((c) => c.kind))}::text[], ${numberArray(codes.map((c) => c.creator))}::bigint[],
            ${textArray(codes.map((c) => (c.expiresAt === null ? null : c.expiresAt.toISOString())))}::timestamptz[],
            ${textArray(codes.map((c) => c.partnerInfo))}::text[])`
      }
      const bound = operations.flatMap((op) => (op.codeCounterparty !== undefined ? [{ txId: txIdOf(op), party: op.codeCounterparty }] : []))
      if (bound.length > 0) {
        yield* sql`UPDATE codes AS c SET counterparty = u.party
          FROM unnest(${numberArray(bound.map((b) => b.txId))}::bigint[], ${numberArray(bound.map((b) => b.party))}::bigint[]) AS u (tx_id, party)
          WHERE c.tx_id = u.tx_id`
      }
      const nonces = operations.flatMap((op) => (op.nonce !== undefined ? [{ ...op.nonce, txId: txIdOf(op) }] : []))
      if (nonces.length > 0) {
        yield* sql`INSERT INTO client_nonces (wallet_id, client_nonce, tx_id)
          SELECT * FROM unnest(${numberArray(nonces.map((n) => n.walletId))}::bigint[], ${numberArray(nonces.map((n) => n.clientNonce))}::bigint[],
            ${numberArray(nonces.map((n) => n.txId))}::bigint[])`
      }
    }))

const insertTransactions = (rows: ReadonlyArray<{ readonly t: TxRecord; readonly tick: bigint }>) =>
  SqlClient.SqlClient.use((sql) => {
    const txs = rows.map((r) => r.t)
    return sql`INSERT INTO transactions (id, id_update, type_tx, tx_state, wallet_from, wallet_to, currency, amount, fee, tag,
        app_id, external_id, request_hash, client_nonce, profit_wallet, currency_to, amount_to)
      SELECT * FROM unnest(${numberArray(txs.map((t) => t.id))}::bigint[], ${numberArray(rows.map((r) => r.tick))}::bigint[],
        ${numberArray(txs.map((t) => t.typeTx))}::smallint[], ${numberArray(txs.map((t) => t.txState))}::smallint[],
        ${numberArray(txs.map((t) => t.walletFrom))}::bigint[], ${numberArray(txs.map((t) => t.walletTo))}::bigint[],
        ${textArray(txs.map((t) => t.currency))}::text[], ${numberArray(txs.map((t) => t.amount))}::numeric[],
        ${numberArray(txs.map((t) => t.fee))}::numeric[], ${textArray(txs.map((t) => t.tag))}::text[],
        ${numberArray(txs.map((t) => t.appId))}::bigint[], ${textArray(txs.map((t) => t.externalId))}::text[],
        ${textArray(txs.map((t) => t.requestHash))}::text[], ${numberArray(txs.map((t) => t.clientNonce ?? null))}::bigint[],
        ${numberArray(txs.map((t) => t.profitWallet ?? null))}::bigint[], ${textArray(txs.map((t) => t.currencyTo ?? null))}::text[],
        ${numberArray(txs.map((t) => t.amountTo ?? null))}::numeric[])`
  })

/** Conditional state changes; if any transaction moved on meanwhile, the whole batch fails (and is retried one by one). */
const applyTransitions = (rows: ReadonlyArray<{ readonly t: TxTransition; readonly tick: bigint }>) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.gen(function*() {
      const updated = yield* sql<{ id: bigint }>`UPDATE transactions AS x SET tx_state = u.to_state, id_update = u.tick, updated_at = now(),
          wallet_from = COALESCE(u.wallet_from, x.wallet_from), wallet_to = COALESCE(u.wallet_to, x.wallet_to),
          amount = COALESCE(u.amount, x.amount), amount_to = COALESCE(u.amount_to, x.amount_to), fee = COALESCE(u.fee, x.fee)
        FROM unnest(${numberArray(rows.map((r) => r.t.id))}::bigint[], ${numberArray(rows.map((r) => r.t.from))}::smallint[],
          ${numberArray(rows.map((r) => r.t.to))}::smallint[], ${numberArray(rows.map((r) => r.tick))}::bigint[],
          ${numberArray(rows.map((r) => r.t.walletFrom ?? null))}::bigint[], ${numberArray(rows.map((r) => r.t.walletTo ?? null))}::bigint[],
          ${numberArray(rows.map((r) => r.t.amount ?? null))}::numeric[], ${numberArray(rows.map((r) => r.t.amountTo ?? null))}::numeric[],
          ${numberArray(rows.map((r) => r.t.fee ?? null))}::numeric[])
          AS u (id, from_state, to_state, tick, wallet_from, wallet_to, amount, amount_to, fee)
        WHERE x.id = u.id AND x.tx_state = u.from_state
        RETURNING x.id`
      if (updated.length !== rows.length) {
        const done = new Set(updated.map((row) => BigInt(row.id)))
        return yield* new StateConflict({ txIds: rows.map((r) => r.t.id).filter((id) => !done.has(id)) })
      }
    }))

const applyBalanceDeltas = (postings: ReadonlyArray<Posting>) =>
  SqlClient.SqlClient.use((sql) => Effect.gen(function*() {
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
    // Sorted so concurrent batches touch balance rows in one global order (no deadlocks).
    const rows = [...sums.values()].sort((a, b) =>
      a.walletId < b.walletId ? -1 : a.walletId > b.walletId ? 1 : a.currency < b.currency ? -1 : a.currency > b.currency ? 1 : 0)
    const wallets = numberArray(rows.map((r) => r.walletId))
    const currencies = textArray(rows.map((r) => r.currency))
    // Two statements, not one upsert: PostgreSQL checks CHECK constraints on the row proposed for
    // insertion before ON CONFLICT, so a debit's negative delta would be refused as a new row.
    yield* sql`INSERT INTO balances (wallet_id, currency)
      SELECT * FROM unnest(${wallets}::bigint[], ${currencies}::text[])
      ON CONFLICT (wallet_id, currency) DO NOTHING`
    yield* sql`UPDATE balances AS b SET
        free = b.free + d.free, lock_out = b.lock_out + d.lock_out,
        lock_in = b.lock_in + d.lock_in, lock_orders = b.lock_orders + d.lock_orders
      FROM unnest(${wallets}::bigint[], ${currencies}::text[],
        ${numberArray(rows.map((r) => r.d[0]))}::numeric[], ${numberArray(rows.map((r) => r.d[1]))}::numeric[],
        ${numberArray(rows.map((r) => r.d[2]))}::numeric[], ${numberArray(rows.map((r) => r.d[3]))}::numeric[])
        AS d (wallet_id, currency, free, lock_out, lock_in, lock_orders)
      WHERE b.wallet_id = d.wallet_id AND b.currency = d.currency`
  }))

