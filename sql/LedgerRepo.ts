/**
 * The ledger's SQL: committing a batch of operations (transactions + postings + balance updates)
 * with multi-row statements, and the reads of balances and the journal.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

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
}

export interface LedgerOperation {
  readonly tx: TxRecord
  readonly postings: ReadonlyArray<Posting>
}

/** A PostgreSQL array literal of text values (NULL-aware, quoted). */
const textArray = (values: ReadonlyArray<string | null>): string =>
  "{" + values.map((v) => (v === null ? "NULL" : `"${v.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`)).join(",") + "}"
const numberArray = (values: ReadonlyArray<bigint | number | null>): string =>
  "{" + values.map((v) => (v === null ? "NULL" : String(v))).join(",") + "}"

/**
 * Commits operations in the current transaction and returns the update tick of each. The clock
 * row is taken first: its row lock orders whole batches, so ticks are gapless in commit order.
 */
export const commitOperations = (operations: ReadonlyArray<LedgerOperation>, nowMicros: bigint) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.gen(function*() {
      const count = operations.length
      // Row lock on the clock: held to commit, it serializes tick allocation with commit order.
      const [clock] = yield* sql<{ tick: bigint }>`UPDATE journal_clock SET tick = GREATEST(tick + ${count}, ${nowMicros}::bigint)
        RETURNING tick`
      const firstTick = BigInt(clock.tick) - BigInt(count) + 1n
      const ticks = operations.map((_, index) => firstTick + BigInt(index))
      const txs = operations.map((op) => op.tx)
      yield* sql`INSERT INTO transactions (id, id_update, type_tx, tx_state, wallet_from, wallet_to, currency, amount, fee, tag,
          app_id, external_id, request_hash)
        SELECT * FROM unnest(${numberArray(txs.map((t) => t.id))}::bigint[], ${numberArray(ticks)}::bigint[],
          ${numberArray(txs.map((t) => t.typeTx))}::smallint[], ${numberArray(txs.map((t) => t.txState))}::smallint[],
          ${numberArray(txs.map((t) => t.walletFrom))}::bigint[], ${numberArray(txs.map((t) => t.walletTo))}::bigint[],
          ${textArray(txs.map((t) => t.currency))}::text[], ${numberArray(txs.map((t) => t.amount))}::numeric[],
          ${numberArray(txs.map((t) => t.fee))}::numeric[], ${textArray(txs.map((t) => t.tag))}::text[],
          ${numberArray(txs.map((t) => t.appId))}::bigint[], ${textArray(txs.map((t) => t.externalId))}::text[],
          ${textArray(txs.map((t) => t.requestHash))}::text[])`
      const postingRows = operations.flatMap((op) => op.postings.map((p, seq) => ({ txId: op.tx.id, seq, ...p })))
      if (postingRows.length > 0) {
        yield* sql`INSERT INTO postings (tx_id, seq, wallet_id, currency, bucket, delta)
          SELECT * FROM unnest(${numberArray(postingRows.map((p) => p.txId))}::bigint[], ${numberArray(postingRows.map((p) => p.seq))}::smallint[],
            ${numberArray(postingRows.map((p) => p.walletId))}::bigint[], ${textArray(postingRows.map((p) => p.currency))}::text[],
            ${numberArray(postingRows.map((p) => p.bucket))}::smallint[], ${numberArray(postingRows.map((p) => p.delta))}::numeric[])`
        yield* applyBalanceDeltas(postingRows)
      }
      return ticks
    }))

/**
 * Sums the batch's postings per wallet and currency and applies them: missing balance rows are
 * created at zero, then one UPDATE adds the deltas. (A single INSERT ... ON CONFLICT DO UPDATE
 * would not do: PostgreSQL checks CHECK constraints on the proposed insert row before it detects
 * the conflict, so a debit's negative delta would violate `user_balance_not_negative` even when
 * the updated balance stays non-negative.) The CHECK then judges the resulting balances only.
 */
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

export interface BalanceRow {
  readonly currency: string
  readonly free: string
  readonly lock_out: string
  readonly lock_in: string
  readonly lock_orders: string
}

export const balancesOf = (walletId: string) =>
  SqlClient.SqlClient.use((sql) =>
    sql<BalanceRow>`SELECT b.currency, b.free::text AS free, b.lock_out::text AS lock_out, b.lock_in::text AS lock_in,
        b.lock_orders::text AS lock_orders
      FROM balances b JOIN currencies c ON c.code = b.currency WHERE b.wallet_id = ${walletId} ORDER BY c.sort_order, b.currency`)

export const balanceOf = (walletId: string, currency: string) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(sql<BalanceRow>`SELECT currency, free::text AS free, lock_out::text AS lock_out, lock_in::text AS lock_in,
        lock_orders::text AS lock_orders FROM balances WHERE wallet_id = ${walletId} AND currency = ${currency}`, (rows) => rows[0]))

export interface StoredTx {
  readonly id: bigint
  readonly id_update: bigint
  readonly wallet_to: bigint
  readonly wallet_from: bigint
  readonly currency: string
  readonly amount: string
  readonly request_hash: string | null
}

export const findTxByExternalId = (externalId: string) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(sql<StoredTx>`SELECT id, id_update, wallet_to, wallet_from, currency, amount::text AS amount, request_hash
      FROM transactions WHERE external_id = ${externalId}`, (rows) => rows[0]))

/**
 * Σ of every bucket of every wallet (system wallets included) per catalogue currency, in minor
 * units: zero when the ledger is sound (CONTRACT C6). A currency nobody holds sums to 0.
 */
export const ledgerSums = SqlClient.SqlClient.use((sql) =>
  sql<{ currency: string; total: string }>`SELECT c.code AS currency,
      COALESCE(sum(b.free + b.lock_out + b.lock_in + b.lock_orders), 0)::text AS total
    FROM currencies c LEFT JOIN balances b ON b.currency = c.code
    GROUP BY c.code, c.sort_order ORDER BY c.sort_order, c.code`)

/** How many buckets of user wallets (id > 0) are below zero: 0 when the ledger is sound (CONTRACT C6). */
export const negativeUserBucketCount = SqlClient.SqlClient.use((sql) =>
  Effect.map(sql<{ n: string }>`SELECT (
      count(*) FILTER (WHERE free < 0) + count(*) FILTER (WHERE lock_out < 0) +
      count(*) FILTER (WHERE lock_in < 0) + count(*) FILTER (WHERE lock_orders < 0))::text AS n
    FROM balances WHERE wallet_id > 0`, ([row]) => Number(row.n)))

export const appPayments = (appId: string, after: string, limit: number) =>
  SqlClient.SqlClient.use((sql) =>
    sql<{ id: bigint; id_update: bigint; type_tx: number; tx_state: number; currency: string; amount: string; fee: string; tag: string | null; created_at: Date }>`
      SELECT id, id_update, type_tx, tx_state, currency, amount::text AS amount, fee::text AS fee, tag, created_at
      FROM transactions WHERE app_id = ${appId} AND id_update > ${after}::bigint ORDER BY id_update LIMIT ${limit}`)

export const journalWatermark = SqlClient.SqlClient.use((sql) =>
  Effect.map(sql<{ tick: bigint }>`SELECT tick FROM journal_clock`, ([row]) => BigInt(row.tick)))

export interface InvestmentRow {
  readonly timetick: bigint
  readonly wallet_id: bigint
  readonly currency: string
  readonly investment_type: number
  readonly state: number
  readonly flags: number
  readonly amount: string
  readonly profit: string
  readonly rate_pct: string
  readonly date_end: Date
  readonly tag: string | null
}

const investmentColumns = `timetick, wallet_id, currency, investment_type, state, flags, amount::text AS amount, profit::text AS profit,
  rate_pct::text AS rate_pct, date_end, tag`

export const investmentsOf = (walletId: string, from: Date, to: Date, types: ReadonlyArray<number> | undefined) =>
  SqlClient.SqlClient.use((sql) =>
    sql<InvestmentRow>`SELECT ${sql.literal(investmentColumns)} FROM investments
      WHERE wallet_id = ${walletId} AND created_at >= ${from} AND created_at < ${to}
        ${types !== undefined ? sql`AND investment_type IN (${sql.literal(types.map(Number).join(",") || "NULL")})` : sql``}
      ORDER BY timetick DESC LIMIT 1000`)

export const findInvestment = (timetick: string) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(sql<InvestmentRow>`SELECT ${sql.literal(investmentColumns)} FROM investments WHERE timetick = ${timetick}`, (rows) => rows[0]))
