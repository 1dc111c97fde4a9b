/** Orders and trades: reads for the room actors (rebuild), get_orders, the book view, rates and candles. */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import {
  DecimalText,
  decodeAll,
  decodeFirst,
  decodeOne,
  Int,
  Int8,
  MinorUnits,
  Nullable,
  record,
  Text,
  Timestamp
} from "./Decoding.ts"

/**
 * An order as repositories hand it out: ids, lots, ticks and sequence numbers as bigints, money
 * (NUMERIC(78,0) minor units) and the exact ratio terms as exact bigints, the small enums as numbers.
 */
export const Order = record({
  id: Int8,
  walletId: Int8,
  walletGroup: Int,
  typeTx: Int,
  roomKey: Int8,
  base: Text,
  quote: Text,
  side: Int,
  orderType: Int,
  priceTicks: Nullable(Int8),
  /** The exact limit ratio in quote units per lot, reduced (null for market orders and rows from before 0014). */
  priceNum: Nullable(MinorUnits),
  priceDen: Nullable(MinorUnits),
  quantityLots: Int8,
  remainingLots: Int8,
  fromCurrency: Text,
  toCurrency: Text,
  fromAmount: MinorUnits,
  toAmount: Nullable(MinorUnits),
  locked: MinorUnits,
  given: MinorUnits,
  received: MinorUnits,
  fee: MinorUnits,
  state: Int,
  seq: Nullable(Int8),
  tag: Nullable(Text),
  createdAt: Timestamp,
  updatedAt: Timestamp
})
export type Order = typeof Order.Type

const orders = decodeAll(Order)
const firstOrder = decodeFirst(Order)

const columns = `o.id, o.wallet_id, w.wallet_group, t.type_tx, o.room_key, o.base, o.quote, o.side, o.order_type, o.price_ticks,
  o.price_num::text AS price_num, o.price_den::text AS price_den,
  o.quantity_lots, o.remaining_lots, o.from_currency, o.to_currency, o.from_amount::text AS from_amount, o.to_amount::text AS to_amount,
  o.locked::text AS locked, o.given::text AS given, o.received::text AS received, o.fee::text AS fee, o.state, o.seq, o.tag,
  o.created_at, o.updated_at`
const from = `orders o JOIN wallets w ON w.id = o.wallet_id JOIN transactions t ON t.id = o.id`

export const findOrder = (id: string) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(sql`SELECT ${sql.literal(columns)} FROM ${sql.literal(from)} WHERE o.id = ${id}`, firstOrder)
  )

/** A room's open orders: the resting ones in arrival order, then those locked but never matched. */
export const openOrdersOfRoom = (roomKey: string, base: string, quote: string) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(
      sql`SELECT ${sql.literal(columns)} FROM ${sql.literal(from)}
      WHERE o.room_key = ${roomKey} AND o.base = ${base} AND o.quote = ${quote} AND o.state = 1
      ORDER BY o.seq NULLS LAST, o.id`,
      orders
    )
  )

const maxSeq = decodeOne(record({ seq: Nullable(Int8) }))
const count = decodeOne(record({ n: Int8 }))

export const maxSeqOfRoom = (roomKey: string, base: string, quote: string) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(
      sql`SELECT max(seq) AS seq FROM orders WHERE room_key = ${roomKey} AND base = ${base} AND quote = ${quote}`,
      (rows) => Number(maxSeq(rows).seq ?? 0n)
    )
  )

export const countActiveOrders = (walletId: string) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(sql`SELECT count(*) AS n FROM orders WHERE wallet_id = ${walletId} AND state = 1`, (rows) =>
      Number(count(rows).n)
    )
  )

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
    Effect.map(
      sql`SELECT ${sql.literal(columns)} FROM ${sql.literal(from)}
      WHERE o.wallet_id = ${f.walletId}
        AND o.created_at >= ${f.start} AND o.created_at < ${f.end}
        ${f.fromCurrency !== undefined ? sql`AND o.from_currency = ${f.fromCurrency}` : sql``}
        ${f.toCurrency !== undefined ? sql`AND o.to_currency = ${f.toCurrency}` : sql``}
        ${f.roomKey !== undefined ? sql`AND o.room_key = ${f.roomKey}` : sql``}
        ${f.beforeId !== undefined ? sql`AND o.id < ${f.beforeId}` : sql``}
        ${f.states !== undefined && f.states.length > 0 ? sql`AND o.state = ANY(${"{" + f.states.join(",") + "}"}::smallint[])` : sql``}
      ORDER BY o.id DESC LIMIT ${f.limit}`,
      orders
    )
  )

/** An aggregated open level of one side of a book: an exact ratio (quote units per lot) and its remaining lots. */
export const BookLevel = record({ priceNum: MinorUnits, priceDen: MinorUnits, lots: MinorUnits })
export type BookLevel = typeof BookLevel.Type
const bookLevelRecords = decodeAll(BookLevel)

/** Aggregated open levels of one side of a book, best first. */
export const bookLevels = (roomKey: string, base: string, quote: string, side: number, limit: number) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(
      sql`SELECT price_num::text AS price_num, price_den::text AS price_den,
        sum(remaining_lots)::text AS lots FROM orders
      WHERE room_key = ${roomKey} AND base = ${base} AND quote = ${quote} AND state = 1 AND seq IS NOT NULL AND side = ${side}
      GROUP BY price_num, price_den ORDER BY price_num / price_den ${sql.literal(side === 0 ? "DESC" : "ASC")} LIMIT ${limit}`,
      bookLevelRecords
    )
  )

/** A pair's price, quote per base, as exact decimal text (a last trade or a mid price). */
export const PairPrice = record({ base: Text, quote: Text, price: DecimalText })
export type PairPrice = typeof PairPrice.Type
const pairPrices = decodeAll(PairPrice)

/** The last trade of every pair in the public rooms (book rates, CONTRACT C3/C14). */
export const lastTrades = SqlClient.SqlClient.use((sql) =>
  Effect.map(
    sql`SELECT DISTINCT ON (base, quote) base, quote, price::text AS price FROM trades WHERE room_key = 0
    ORDER BY base, quote, at DESC, id DESC`,
    pairPrices
  )
)

/** One candle: prices as exact decimal text (quote per base), volume (base) and total (quote) in minor units. */
export const Candle = record({
  bucket: Timestamp,
  open: DecimalText,
  high: DecimalText,
  low: DecimalText,
  close: DecimalText,
  volume: MinorUnits,
  total: MinorUnits,
  trades: Int8
})
export type Candle = typeof Candle.Type
const candleRecords = decodeAll(Candle)

/** OHLC + volume per `intervalSeconds` bucket over [start, end), oldest first. */
export const candles = (
  base: string,
  quote: string,
  roomKey: string,
  intervalSeconds: number,
  start: Date,
  end: Date,
  limit: number
) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(
      sql`SELECT to_timestamp(floor(extract(epoch FROM at) / ${intervalSeconds}) * ${intervalSeconds}) AS bucket,
        (array_agg(price ORDER BY at, id))[1]::text AS open, max(price)::text AS high, min(price)::text AS low,
        (array_agg(price ORDER BY at DESC, id DESC))[1]::text AS close,
        sum(amount)::text AS volume, sum(total)::text AS total, count(*) AS trades
      FROM trades WHERE base = ${base} AND quote = ${quote} AND room_key = ${roomKey} AND at >= ${start} AND at < ${end}
      GROUP BY 1 ORDER BY 1 LIMIT ${limit}`,
      candleRecords
    )
  )

const creditTotal = decodeOne(record({ total: Nullable(MinorUnits) }))

/** Free-balance credits received by a wallet from others since `since` (ChargeBackDays protection). */
export const recentCredits = (walletId: string, currency: string, since: Date) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(
      sql`SELECT sum(p.delta)::text AS total FROM transactions t JOIN postings p ON p.tx_id = t.id
      WHERE t.wallet_to = ${walletId} AND t.wallet_from <> ${walletId} AND t.created_at >= ${since}
        AND p.wallet_id = ${walletId} AND p.currency = ${currency} AND p.bucket = 0 AND p.delta > 0`,
      (rows) => creditTotal(rows).total ?? 0n
    )
  )

/** Mid price (quote per base) of every pair's public book with both sides, for rates where no trade exists. */
export const publicMidPrices = SqlClient.SqlClient.use((sql) =>
  Effect.map(
    sql`SELECT b.base, b.quote, ((b.bid + b.ask) / 2.0 / 10 ^ LEAST(c.decimals, 8))::numeric::text AS price
    FROM (SELECT base, quote, max(price_ticks) FILTER (WHERE side = 0) AS bid, min(price_ticks) FILTER (WHERE side = 1) AS ask
          FROM orders WHERE room_key = 0 AND state = 1 AND seq IS NOT NULL GROUP BY base, quote) b
    JOIN currencies c ON c.code = b.quote
    WHERE b.bid IS NOT NULL AND b.ask IS NOT NULL`,
    pairPrices
  )
)

/** A fill of an order: price (quote per base, exact decimal text), amount (base) and total (quote) in minor units. */
export const OrderTrade = record({
  takerOrder: Int8,
  makerOrder: Int8,
  price: DecimalText,
  amount: MinorUnits,
  total: MinorUnits,
  at: Timestamp
})
export type OrderTrade = typeof OrderTrade.Type
const orderTrades = decodeAll(OrderTrade)

/** The fills of some orders (as taker or maker), oldest first. */
export const tradesOfOrders = (ids: ReadonlyArray<string>) =>
  SqlClient.SqlClient.use((sql) => {
    const list = "{" + ids.join(",") + "}"
    return Effect.map(
      sql`SELECT taker_order, maker_order, price::text AS price, amount::text AS amount, total::text AS total, at
      FROM trades WHERE taker_order = ANY(${list}::bigint[]) OR maker_order = ANY(${list}::bigint[]) ORDER BY id`,
      orderTrades
    )
  })

export const lastTradeOf = (roomKey: string, base: string, quote: string) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(
      sql`SELECT price::text AS price FROM trades WHERE room_key = ${roomKey} AND base = ${base} AND quote = ${quote}
      ORDER BY at DESC, id DESC LIMIT 1`,
      (rows) => lastPrice(rows)?.price
    )
  )

const lastPrice = decodeFirst(record({ price: DecimalText }))
