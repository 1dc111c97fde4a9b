/**
 * The ledger's SQL: committing a batch of operations (transactions + postings + balance updates)
 * with multi-row statements, and the reads of balances and the journal.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { decodeAll, decodeFirst, decodeOne, Int8, MinorUnits, Nullable, record, Text } from "./Decoding.ts"

/** One wallet's buckets in one currency, in minor units. */
export const Balance = record({
  currency: Text,
  free: MinorUnits,
  lockOut: MinorUnits,
  lockIn: MinorUnits,
  lockOrders: MinorUnits
})
export type Balance = typeof Balance.Type

const balances = decodeAll(Balance)
const firstBalance = decodeFirst(Balance)

export const balancesOf = (walletId: string) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(
      sql`SELECT b.currency, b.free::text AS free, b.lock_out::text AS lock_out, b.lock_in::text AS lock_in,
        b.lock_orders::text AS lock_orders
      FROM balances b JOIN currencies c ON c.code = b.currency WHERE b.wallet_id = ${walletId} ORDER BY c.sort_order, b.currency`,
      balances
    )
  )

/** One wallet's buckets in one currency; undefined when the wallet never held it. */
export const balanceIn = (walletId: string | bigint, currency: string) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(
      sql`SELECT currency, free::text AS free, lock_out::text AS lock_out, lock_in::text AS lock_in,
        lock_orders::text AS lock_orders FROM balances WHERE wallet_id = ${walletId} AND currency = ${currency}`,
      firstBalance
    )
  )

/** A transaction found by its external id: what an idempotent replay compares and answers with. */
export const StoredTx = record({
  id: Int8,
  idUpdate: Int8,
  walletTo: Int8,
  walletFrom: Int8,
  currency: Text,
  amount: MinorUnits,
  requestHash: Nullable(Text)
})
export type StoredTx = typeof StoredTx.Type

const firstStoredTx = decodeFirst(StoredTx)

export const findTxByExternalId = (externalId: string) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(
      sql`SELECT id, id_update, wallet_to, wallet_from, currency, amount::text AS amount, request_hash
      FROM transactions WHERE external_id = ${externalId}`,
      firstStoredTx
    )
  )

/**
 * Σ of every bucket of every wallet (system wallets included) per catalogue currency, in minor
 * units: zero when the ledger is sound (CONTRACT C6). A currency nobody holds sums to 0.
 */
export const ledgerSums = SqlClient.SqlClient.use((sql) =>
  Effect.map(
    sql`SELECT c.code AS currency,
      COALESCE(sum(b.free + b.lock_out + b.lock_in + b.lock_orders), 0)::text AS total
    FROM currencies c LEFT JOIN balances b ON b.currency = c.code
    GROUP BY c.code, c.sort_order ORDER BY c.sort_order, c.code`,
    currencySums
  )
)

const currencySums = decodeAll(record({ currency: Text, total: MinorUnits }))
const count = decodeOne(record({ n: Int8 }))

/** How many buckets of user wallets (id > 0) are below zero: 0 when the ledger is sound (CONTRACT C6). */
export const negativeUserBucketCount = SqlClient.SqlClient.use((sql) =>
  Effect.map(
    sql`SELECT
      count(*) FILTER (WHERE free < 0) + count(*) FILTER (WHERE lock_out < 0) +
      count(*) FILTER (WHERE lock_in < 0) + count(*) FILTER (WHERE lock_orders < 0) AS n
    FROM balances WHERE wallet_id > 0`,
    (rows) => Number(count(rows).n)
  )
)

/**
 * Rows that name a transaction (or currency) that does not exist: 0 when sound. The hot append-only
 * tables carry no foreign keys (migration 0008: the ledger writer inserts a transaction and its rows
 * in one SQL transaction), so the audit checks what the keys would have. A full scan: an operator action.
 */
export const orphanRowCount = SqlClient.SqlClient.use((sql) =>
  Effect.map(
    sql`SELECT (
      (SELECT count(*) FROM postings p WHERE NOT EXISTS (SELECT 1 FROM transactions t WHERE t.id = p.tx_id)) +
      (SELECT count(*) FROM confirmations c WHERE NOT EXISTS (SELECT 1 FROM transactions t WHERE t.id = c.tx_id)) +
      (SELECT count(*) FROM orders o WHERE NOT EXISTS (SELECT 1 FROM transactions t WHERE t.id = o.id)) +
      (SELECT count(*) FROM orders o WHERE NOT EXISTS (SELECT 1 FROM wallets w WHERE w.id = o.wallet_id)) +
      (SELECT count(*) FROM transactions t WHERE NOT EXISTS (SELECT 1 FROM currencies c WHERE c.code = t.currency)))::bigint AS n`,
    (rows) => Number(count(rows).n)
  )
)
