/** Reads of investments (CONTRACT C17): the actor's state row, the private and session reads, the sweep's due rows. */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import {
  decodeAll,
  decodeFirst,
  decodeOne,
  DecimalText,
  Int,
  Int8,
  MinorUnits,
  Nullable,
  record,
  Text,
  Timestamp
} from "./Decoding.ts"

export const InvestmentRow = record({
  timetick: Int8,
  walletId: Int8,
  currency: Text,
  investmentType: Int,
  state: Int,
  flags: Int,
  amount: MinorUnits,
  profit: MinorUnits,
  baseline: MinorUnits,
  penalty: MinorUnits,
  ratePct: DecimalText,
  dateEnd: Timestamp,
  tag: Nullable(Text),
  createdAt: Timestamp,
  activatedAt: Nullable(Timestamp),
  closedAt: Nullable(Timestamp),
  ownerId: Nullable(Text),
  externalId: Nullable(Text),
  requestHash: Nullable(Text),
  transitions: Text,
  closeTx: Nullable(Int8),
  dueAt: Nullable(Timestamp),
  version: Int8
})
export type InvestmentRow = typeof InvestmentRow.Type

const columns = `timetick, wallet_id, currency, investment_type::int AS investment_type, state::int AS state, flags::int AS flags,
  amount::text AS amount, profit::text AS profit, baseline::text AS baseline, penalty::text AS penalty,
  rate_pct::text AS rate_pct, date_end, tag, created_at, activated_at, closed_at, owner_id, external_id, request_hash,
  transitions::text AS transitions, close_tx, due_at, version`

const first = decodeFirst(InvestmentRow)
const all = decodeAll(InvestmentRow)

export const investmentRow = (timetick: string) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(sql`SELECT ${sql.literal(columns)} FROM investments WHERE timetick = ${timetick}`, first)
  )

export const investmentByExternalId = (externalId: string) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(sql`SELECT ${sql.literal(columns)} FROM investments WHERE external_id = ${externalId}`, first)
  )

const countOf = decodeOne(record({ n: Int8 }))
export const openInvestmentCount = (walletId: string) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(
      sql`SELECT count(*)::bigint AS n FROM investments WHERE wallet_id = ${walletId} AND state <> 128`,
      (rows) => Number(countOf(rows).n)
    )
  )

/**
 * Moves the investment's due time when time passed with nothing to commit (a managed boundary owing
 * nothing: a baseline above the accrual, a rate of 0), so the sweep does not find it again every second.
 * A scheduling hint, not a state: applied only at the version read (a commit meanwhile wrote its own).
 */
export const setInvestmentDue = (timetick: string, version: bigint, dueAt: Date | null) =>
  SqlClient.SqlClient.use(
    (sql) => sql`UPDATE investments SET due_at = ${dueAt} WHERE timetick = ${timetick} AND version = ${version}`
  )

const ids = decodeAll(record({ timetick: Int8 }))
/** Investments not Closed whose due time passed (the partial index investments_due). */
export const dueInvestmentIds = (now: Date, limit: number) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(
      sql`SELECT timetick FROM investments WHERE state <> 128 AND due_at <= ${now} ORDER BY due_at LIMIT ${limit}`,
      (rows) => ids(rows).map((row) => row.timetick)
    )
  )

/** A wallet's investments created in [from, to), of the given types, newest first, at most 1000. */
export const investmentsOfWallet = (walletId: string, from: Date, to: Date, types: ReadonlyArray<number> | undefined) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(
      sql`SELECT ${sql.literal(columns)} FROM investments
      WHERE wallet_id = ${walletId} AND created_at >= ${from} AND created_at < ${to}
        ${types !== undefined ? sql`AND investment_type IN (${sql.literal(types.map(Number).join(",") || "NULL")})` : sql``}
      ORDER BY timetick DESC LIMIT 1000`,
      all
    )
  )

export const InvestTxRow = record({
  id: Int8,
  typeTx: Int,
  txState: Int,
  currency: Text,
  amount: MinorUnits,
  fee: MinorUnits,
  createdAt: Timestamp,
  investmentId: Int8
})
export type InvestTxRow = typeof InvestTxRow.Type
const txs = decodeAll(InvestTxRow)

/** The investment transactions (investment_txs) among `txIds` whose wallet is `walletId`. */
export const investTxsOf = (walletId: string, txIds: ReadonlyArray<string>) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(
      sql`SELECT t.id, t.type_tx::int AS type_tx, t.tx_state::int AS tx_state, t.currency, t.amount::text AS amount,
          t.fee::text AS fee, t.created_at, p.investment_id
        FROM transactions t JOIN investment_txs p ON p.tx_id = t.id
        WHERE t.id IN (${sql.literal(txIds.map((id) => String(BigInt(id))).join(",") || "NULL")})
          AND t.type_tx IN (7, 8, 9, 10) AND t.wallet_to = ${walletId}`,
      txs
    )
  )
