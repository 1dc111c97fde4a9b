/** Orders and trades: reads for the room actors (rebuild), get_orders, the book view, rates and candles. */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export interface OrderRow {
  readonly id: bigint
  readonly wallet_id: bigint
  readonly wallet_group: number
  readonly type_tx: number
  readonly room_key: bigint
  readonly base: string
  readonly quote: string
  readonly side: number
  readonly order_type: number
  readonly price_ticks: bigint | null
  /** The exact limit ratio in quote units per lot, reduced (decimal strings; null for market orders). */
  readonly price_num: string | null
  readonly price_den: string | null
  readonly quantity_lots: bigint
  readonly remaining_lots: bigint
  readonly from_currency: string
  readonly to_currency: string
  readonly from_amount: string
  readonly to_amount: string | null
  readonly locked: string
  readonly given: string
  readonly received: string
  readonly fee: string
  readonly state: number
  readonly seq: bigint | null
  readonly tag: string | null
  readonly created_at: Date
  readonly updated_at: Date
}

const columns = `o.id, o.wallet_id, w.wallet_group, t.type_tx, o.room_key, o.base, o.quote, o.side, o.order_type, o.price_ticks,
  o.price_num::text AS price_num, o.price_den::text AS price_den,
  o.quantity_lots, o.remaining_lots, o.from_currency, o.to_currency, o.from_amount::text AS from_amount, o.to_amount::text AS to_amount,
  o.locked::text AS locked, o.given::text AS given, o.received::text AS received, o.fee::text AS fee, o.state, o.seq, o.tag,
  o.created_at, o.updated_at`
const from = `orders o JOIN wallets w ON w.id = o.wallet_id JOIN transactions t ON t.id = o.id`

export const findOrder = (id: string) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(sql<OrderRow>`SELECT ${sql.literal(columns)} FROM ${sql.literal(from)} WHERE o.id = ${id}`, (rows) => rows[0]))

/** A room's open orders: the resting ones in arrival order, then those locked but never matched. */
export const openOrdersOfRoom = (roomKey: string, base: string, quote: string) =>
  SqlClient.SqlClient.use((sql) =>
    sql<OrderRow>`SELECT ${sql.literal(columns)} FROM ${sql.literal(from)}
      WHERE o.room_key = ${roomKey} AND o.base = ${base} AND o.quote = ${quote} AND o.state = 1
      ORDER BY o.seq NULLS LAST, o.id`)

export const maxSeqOfRoom = (roomKey: string, base: string, quote: string) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(sql<{ seq: bigint | null }>`SELECT max(seq) AS seq FROM orders WHERE room_key = ${roomKey} AND base = ${base} AND quote = ${quote}`,
      (rows) => (rows[0]?.seq === null || rows[0]?.seq === undefined ? 0 : Number(rows[0].seq))))

export const countActiveOrders = (walletId: string) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(sql<{ n: bigint }>`SELECT count(*) AS n FROM orders WHERE wallet_id = ${walletId} AND state = 1`, (rows) => Number(rows[0].n)))

export interface OrderFilter {
  readonly walletId: string
  readonly fromCurrency: string | undefined
  readonly toCurrency: string | undefined
  readonly roomKey: string | undefined
  readonly start: Date
  readonly end: Date
  readonly beforeId: string | undefined
  readonly states: ReadonlyArray<number> | undefined
  readonly limit: number
}

/** Newest first; `beforeId` is exclusive (CONTRACT C14). */
export const listOrders = (f: OrderFilter) =>
  SqlClient.SqlClient.use((sql) =>
    sql<OrderRow>`SELECT ${sql.literal(columns)} FROM ${sql.literal(from)}
      WHERE o.wallet_id = ${f.walletId}
        AND o.created_at >= ${f.start} AND o.created_at < ${f.end}
        ${f.fromCurrency !== undefined ? sql`AND o.from_currency = ${f.fromCurrency}` : sql``}
        ${f.toCurrency !== undefined ? sql`AND o.to_currency = ${f.toCurrency}` : sql``}
        ${f.roomKey !== undefined ? sql`AND o.room_key = ${f.roomKey}` : sql``}
        ${f.beforeId !== undefined ? sql`AND o.id < ${f.beforeId}` : sql``}
        ${f.states !== undefined && f.states.length > 0 ? sql`AND o.state = ANY(${"{" + f.states.join(",") + "}"}::smallint[])` : sql``}
      ORDER BY o.id DESC LIMIT ${f.limit}`)

/** Aggregated open levels of one side of a book: (exact ratio, remaining lots), best first. */
export const bookLevels = (roomKey: string, base: string, quote: string, side: number, limit: number) =>
  SqlClient.SqlClient.use((sql) =>
    sql<{ price_num: string; price_den: string; lots: string }>`SELECT price_num::text AS price_num, price_den::text AS price_den,
        sum(remaining_lots)::text AS lots FROM orders
      WHERE room_key = ${roomKey} AND base = ${base} AND quote = ${quote} AND state = 1 AND seq IS NOT NULL AND side = ${side}
      GROUP BY price_num, price_den ORDER BY price_num / price_den ${sql.literal(side === 0 ? "DESC" : "ASC")} LIMIT ${limit}`)

export interface TradeRow {
  readonly base: string
  readonly quote: string
  readonly price: string
}

/** The last trade of every pair in the public rooms (book rates, CONTRACT C3/C14). */
export const lastTrades = SqlClient.SqlClient.use((sql) =>
  sql<TradeRow>`SELECT DISTINCT ON (base, quote) base, quote, price::text AS price FROM trades WHERE room_key = 0
    ORDER BY base, quote, at DESC, id DESC`)

export interface CandleRow {
  readonly bucket: Date
  readonly open: string
  readonly high: string
  readonly low: string
  readonly close: string
  readonly volume: string
  readonly total: string
  readonly trades: bigint
}

/** OHLC + volume per `intervalSeconds` bucket over [start, end), oldest first. */
export const candles = (base: string, quote: string, roomKey: string, intervalSeconds: number, start: Date, end: Date, limit: number) =>
  SqlClient.SqlClient.use((sql) =>
    sql<CandleRow>`SELECT to_timestamp(floor(extract(epoch FROM at) / ${intervalSeconds}) * ${intervalSeconds}) AS bucket,
        (array_agg(price ORDER BY at, id))[1]::text AS open, max(price)::text AS high, min(price)::text AS low,
        (array_agg(price ORDER BY at DESC, id DESC))[1]::text AS close,
        sum(amount)::text AS volume, sum(total)::text AS total, count(*) AS trades
      FROM trades WHERE base = ${base} AND quote = ${quote} AND room_key = ${roomKey} AND at >= ${start} AND at < ${end}
      GROUP BY 1 ORDER BY 1 LIMIT ${limit}`)

/** Free-balance credits received by a wallet from others since `since` (ChargeBackDays protection). */
export const recentCredits = (walletId: string, currency: string, since: Date) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(sql<{ total: string | null }>`SELECT sum(p.delta)::text AS total FROM transactions t JOIN postings p ON p.tx_id = t.id
      WHERE t.wallet_to = ${walletId} AND t.wallet_from <> ${walletId} AND t.created_at >= ${since}
        AND p.wallet_id = ${walletId} AND p.currency = ${currency} AND p.bucket = 0 AND p.delta > 0`,
      (rows) => BigInt(rows[0]?.total ?? "0")))

/** Mid price (quote per base) of every pair's public book with both sides, for rates where no trade exists. */
export const publicMidPrices = SqlClient.SqlClient.use((sql) =>
  sql<TradeRow>`SELECT b.base, b.quote, ((b.bid + b.ask) / 2.0 / 10 ^ LEAST(c.decimals, 8))::numeric::text AS price
    FROM (SELECT base, quote, max(price_ticks) FILTER (WHERE side = 0) AS bid, min(price_ticks) FILTER (WHERE side = 1) AS ask
          FROM orders WHERE room_key = 0 AND state = 1 AND seq IS NOT NULL GROUP BY base, quote) b
    JOIN currencies c ON c.code = b.quote
    WHERE b.bid IS NOT NULL AND b.ask IS NOT NULL`)

export interface OrderTradeRow {
  readonly taker_order: bigint
  readonly maker_order: bigint
  readonly price: string
  readonly amount: string
  readonly total: string
  readonly at: Date
}

/** The fills of some orders (as taker or maker), oldest first. */
export const tradesOfOrders = (ids: ReadonlyArray<string>) =>
  SqlClient.SqlClient.use((sql) => {
    const list = "{" + ids.join(",") + "}"
    return sql<OrderTradeRow>`SELECT taker_order, maker_order, price::text AS price, amount::text AS amount, total::text AS total, at
      FROM trades WHERE taker_order = ANY(${list}::bigint[]) OR maker_order = ANY(${list}::bigint[]) ORDER BY id`
  })

export const lastTradeOf = (roomKey: string, base: string, quote: string) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(sql<{ price: string }>`SELECT price::text AS price FROM trades WHERE room_key = ${roomKey} AND base = ${base} AND quote = ${quote}
      ORDER BY at DESC, id DESC LIMIT 1`, (rows) => rows[0]?.price))
