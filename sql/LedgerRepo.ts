/**
 * The ledger's SQL: committing a batch of operations (transactions + postings + balance updates)
 * with multi-row statements, and the reads of balances and the journal.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"


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

/**
 * Rows that name a transaction (or currency) that does not exist: 0 when sound. The hot append-only
 * tables carry no foreign keys (migration 0008: the ledger writer inserts a transaction and its rows
 * in one SQL transaction), so the audit checks what the keys would have. A full scan: an operator action.
 */
export const orphanRowCount = SqlClient.SqlClient.use((sql) =>
  Effect.map(sql<{ n: string }>`SELECT (
      (SELECT count(*) FROM postings p WHERE NOT EXISTS (SELECT 1 FROM transactions t WHERE t.id = p.tx_id)) +
      (SELECT count(*) FROM confirmations c WHERE NOT EXISTS (SELECT 1 FROM transactions t WHERE t.id = c.tx_id)) +
      (SELECT count(*) FROM orders o WHERE NOT EXISTS (SELECT 1 FROM transactions t WHERE t.id = o.id)) +
      (SELECT count(*) FROM orders o WHERE NOT EXISTS (SELECT 1 FROM wallets w WHERE w.id = o.wallet_id)) +
      (SELECT count(*) FROM transactions t WHERE NOT EXISTS (SELECT 1 FROM currencies c WHERE c.code = t.currency)))::text AS n`,
  ([row]) => Number(row.n)))

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
