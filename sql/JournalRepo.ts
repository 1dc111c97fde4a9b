/** Reads of the journal: one transaction, history pages, the cross-wallet journal feed, events. */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import {
  decodeAll,
  decodeFirst,
  decodeOne,
  Int,
  Int8,
  Json,
  MinorUnits,
  Nullable,
  record,
  Text,
  Timestamp
} from "./Decoding.ts"

/** A transaction of the journal, money in minor units of its currency (amountTo: of currencyTo). */
export const txFields = {
  id: Int8,
  idUpdate: Int8,
  typeTx: Int,
  txState: Int,
  walletFrom: Int8,
  walletTo: Int8,
  currency: Text,
  amount: MinorUnits,
  fee: MinorUnits,
  tag: Nullable(Text),
  appId: Nullable(Int8),
  profitWallet: Nullable(Int8),
  currencyTo: Nullable(Text),
  amountTo: Nullable(MinorUnits),
  createdAt: Timestamp
}
export const Tx = record(txFields)
export type Tx = typeof Tx.Type

/**
 * A journal read's transaction: plus its crypto terminal (`crypto_txs.terminal_id`, C15) when it is
 * an Income, Outcome or Refund on one, else null.
 */
export const JournalTx = record({ ...txFields, tokenNetwork: Nullable(Int8) })
export type JournalTx = typeof JournalTx.Type

const txs = decodeAll(JournalTx)
const firstTx = decodeFirst(JournalTx)

export const txColumns = `id, id_update, type_tx, tx_state, wallet_from, wallet_to, currency, amount::text AS amount, fee::text AS fee,
  tag, app_id, profit_wallet, currency_to, amount_to::text AS amount_to, created_at`

/**
 * The journal reads' columns, qualified: `t` the transaction, `x` its crypto record (LEFT JOIN on
 * tx_id, so every other row reads exactly as before, with a null token_network).
 */
export const journalColumns = `t.id, t.id_update, t.type_tx, t.tx_state, t.wallet_from, t.wallet_to, t.currency,
  t.amount::text AS amount, t.fee::text AS fee, t.tag, t.app_id, t.profit_wallet, t.currency_to,
  t.amount_to::text AS amount_to, t.created_at, x.terminal_id AS token_network`
export const journalFrom = `transactions t LEFT JOIN crypto_txs x ON x.tx_id = t.id`

export const txById = (id: string | bigint) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(sql`SELECT ${sql.literal(journalColumns)} FROM ${sql.literal(journalFrom)} WHERE t.id = ${id}`, firstTx)
  )

export const findTxs = (ids: ReadonlyArray<string>) =>
  SqlClient.SqlClient.use((sql) =>
    ids.length === 0
      ? Effect.succeed([] as ReadonlyArray<JournalTx>)
      : Effect.map(
          sql`SELECT ${sql.literal(journalColumns)} FROM ${sql.literal(journalFrom)}
            WHERE t.id = ANY(${"{" + ids.join(",") + "}"}::bigint[]) ORDER BY t.id`,
          txs
        )
  )

export interface HistoryFilter {
  readonly walletId: string
  readonly orderByUpdate: boolean
  readonly oldestFirst: boolean
  readonly startTick: string | undefined
  readonly endTick: string | undefined
  readonly currency: string | undefined
  readonly typeTx: number | undefined
  readonly activeOnly: boolean
  readonly limit: number
}

/**
 * A wallet's history: rows where it sends or receives. By update tick with oldestFirst this is the
 * SPEC's gapless polling order: startTick inclusive, endTick exclusive.
 */
export const history = (f: HistoryFilter) =>
  SqlClient.SqlClient.use((sql) => {
    const column = f.orderByUpdate ? "id_update" : "id"
    const key = sql.literal("t." + column)
    const direction = sql.literal(f.oldestFirst ? "ASC" : "DESC")
    return withWatermark(sql`SELECT c.tick AS watermark, j.* FROM journal_clock c
      LEFT JOIN LATERAL (SELECT ${sql.literal(journalColumns)} FROM ${sql.literal(journalFrom)}
        WHERE (t.wallet_from = ${f.walletId} OR t.wallet_to = ${f.walletId})
          ${f.startTick !== undefined ? sql`AND ${key} >= ${f.startTick}::bigint` : sql``}
          ${f.endTick !== undefined ? sql`AND ${key} < ${f.endTick}::bigint` : sql``}
          ${f.currency !== undefined ? sql`AND t.currency = ${f.currency}` : sql``}
          ${f.typeTx !== undefined ? sql`AND t.type_tx = ${f.typeTx}` : sql``}
          ${f.activeOnly ? sql`AND (t.tx_state & 24) = 0` : sql``}
        ORDER BY ${key} ${direction} LIMIT ${f.limit}) j ON true
      ORDER BY j.${sql.literal(column)} ${direction}`)
  })

/**
 * Rows and the committed watermark read in ONE statement, so in one snapshot: every row with a
 * tick at or below the watermark is visible in it (ticks are allocated in commit order), which is
 * what makes a cursor built from it safe to resume from.
 */
const withWatermark = <E, R>(query: Effect.Effect<ReadonlyArray<any>, E, R>) =>
  Effect.map(query, (rows) => ({
    watermark: rows.length > 0 ? watermarkOf(rows).watermark : 0n,
    rows: txs(rows.filter((row) => row.id !== null))
  }))

const watermarkOf = decodeOne(record({ watermark: Int8 }))

export const profitRows = (walletId: string, startTick: string | undefined, limit: number) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(
      sql`SELECT ${sql.literal(journalColumns)} FROM ${sql.literal(journalFrom)}
      WHERE t.profit_wallet = ${walletId} AND t.fee > 0
        ${startTick !== undefined ? sql`AND t.id_update >= ${startTick}::bigint` : sql``}
      ORDER BY t.id_update LIMIT ${limit}`,
      txs
    )
  )

export interface JournalFilter {
  readonly since: string
  readonly limit: number
  readonly scope: 0 | 1 | 2
  readonly intern: string | null
  /** Network types (expanded to their terminals) and terminal ids; both empty means no filter. */
  readonly networks: ReadonlyArray<number>
  readonly tokenNetworks: ReadonlyArray<string>
}

/**
 * The journal after a cursor (exclusive), in update-tick order. Scope 2 (Address) is the rows with a
 * crypto record (C15: Incomes, Outcomes and Refunds on a crypto terminal, unattributed included),
 * scope 1 (Client) every other row. `networks` / `tokenNetworks` keep the rows whose crypto terminal
 * matches either list, so with either given a row without a crypto record drops out.
 */
export const journalAfter = (f: JournalFilter) =>
  SqlClient.SqlClient.use((sql) =>
    withWatermark(sql`SELECT c.tick AS watermark, j.* FROM journal_clock c
      LEFT JOIN LATERAL (SELECT ${sql.literal(journalColumns)} FROM ${sql.literal(journalFrom)}
        WHERE t.id_update > ${f.since}::bigint
          ${f.intern !== null ? sql`AND t.app_id = ${f.intern}::bigint` : sql``}
          ${f.scope === 2 ? sql`AND x.tx_id IS NOT NULL` : f.scope === 1 ? sql`AND x.tx_id IS NULL` : sql``}
          ${
            f.networks.length > 0 || f.tokenNetworks.length > 0
              ? sql`AND (x.terminal_id = ANY(${"{" + f.tokenNetworks.join(",") + "}"}::bigint[])
                OR x.terminal_id IN (SELECT id FROM terminals WHERE type_network = ANY(${"{" + f.networks.join(",") + "}"}::integer[])))`
              : sql``
          }
        ORDER BY t.id_update LIMIT ${f.limit}) j ON true
      ORDER BY j.id_update`)
  )

const clock = decodeOne(record({ tick: Int8 }))

export const committedWatermark = SqlClient.SqlClient.use((sql) =>
  Effect.map(sql`SELECT tick FROM journal_clock`, (rows) => clock(rows).tick)
)

/** A notification event; its payload is the JSON its kind wrote. */
export const Event = record({
  id: Int8,
  kind: Text,
  walletId: Int8,
  payload: Json,
  createdAt: Timestamp
})
export type Event = typeof Event.Type

const events = decodeAll(Event)

export const eventsAfter = (cursor: string, limit: number) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(
      sql`SELECT c.tick AS watermark, e.* FROM journal_clock c
      LEFT JOIN LATERAL (SELECT id, kind, wallet_id, payload, created_at FROM events WHERE id > ${cursor}::bigint
        ORDER BY id LIMIT ${limit}) e ON true
      ORDER BY e.id`,
      (rows) => ({
        watermark: rows.length > 0 ? watermarkOf(rows).watermark : 0n,
        rows: events(rows.filter((row) => row.id !== null))
      })
    )
  )
