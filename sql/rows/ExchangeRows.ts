/**
 * The exchange's rows in a ledger commit (sql/migrations/0013_exchange_rows.sql writes them): new
 * orders (with their placement lock), order progress (fills, completion, cancellation) and trades.
 * Multi-row, like the rest of the batch, so a match with many makers costs no more statements than
 * a match with one.
 */
import { Schema } from "effect"
import { numberArray, textArray } from "../ArrayLiterals.ts"

const Big = Schema.BigIntFromString
const BigOrNull = Schema.NullOr(Schema.BigIntFromString)
import type { RowKind } from "../Ledger.ts"

export interface OrderInsert {
  readonly id: bigint
  readonly walletId: bigint
  readonly roomKey: bigint
  readonly base: string
  readonly quote: string
  readonly side: number
  readonly orderType: number
  readonly priceTicks: bigint | null
  /** The exact limit ratio, quote units per lot, reduced (null for market orders). */
  readonly priceNum: bigint | null
  readonly priceDen: bigint | null
  readonly quantityLots: bigint
  readonly fromCurrency: string
  readonly toCurrency: string
  readonly fromAmount: bigint
  readonly toAmount: bigint | null
  readonly locked: bigint
  readonly state: number
  readonly tag: string | null
}

/**
 * The absolute figures of an order after an operation, applied only if the row still holds the
 * figures the room last knew (`prevRemainingLots`, `prevSeq`, state Active): a room whose memory is
 * stale (another process matched meanwhile) fails its commit and rebuilds instead of overwriting.
 */
export interface OrderUpdate {
  readonly id: bigint
  readonly prevRemainingLots: bigint
  readonly prevSeq: bigint | null
  readonly remainingLots: bigint
  readonly locked: bigint
  readonly given: bigint
  readonly received: bigint
  readonly fee: bigint
  readonly state: number
  readonly seq: bigint | null
}

export interface TradeInsert {
  readonly id: bigint
  readonly roomKey: bigint
  readonly base: string
  readonly quote: string
  readonly priceTicks: bigint
  /** Decimal string, quote per base (the maker's ratio to 30 significant digits). */
  readonly price: string
  /** The maker's exact ratio, quote units per lot. */
  readonly priceNum: bigint
  readonly priceDen: bigint
  readonly amount: bigint
  readonly total: bigint
  readonly takerOrder: bigint
  readonly makerOrder: bigint
  readonly takerSide: number
}

export const OrderInserts: RowKind<OrderInsert> = {
  name: "order_insert",
  rank: 10,
  schema: Schema.Struct({
    id: Big,
    walletId: Big,
    roomKey: Big,
    base: Schema.String,
    quote: Schema.String,
    side: Schema.Int,
    orderType: Schema.Int,
    priceTicks: BigOrNull,
    quantityLots: Big,
    fromCurrency: Schema.String,
    toCurrency: Schema.String,
    fromAmount: Big,
    toAmount: BigOrNull,
    locked: Big,
    state: Schema.Int,
    tag: Schema.NullOr(Schema.String),
    priceNum: BigOrNull,
    priceDen: BigOrNull
  }),
  columns: (items) => {
    const o = items.map((i) => i.row)
    return [
      numberArray(o.map((x) => x.id)),
      numberArray(o.map((x) => x.walletId)),
      numberArray(o.map((x) => x.roomKey)),
      textArray(o.map((x) => x.base)),
      textArray(o.map((x) => x.quote)),
      numberArray(o.map((x) => x.side)),
      numberArray(o.map((x) => x.orderType)),
      numberArray(o.map((x) => x.priceTicks)),
      numberArray(o.map((x) => x.quantityLots)),
      textArray(o.map((x) => x.fromCurrency)),
      textArray(o.map((x) => x.toCurrency)),
      numberArray(o.map((x) => x.fromAmount)),
      numberArray(o.map((x) => x.toAmount)),
      numberArray(o.map((x) => x.locked)),
      numberArray(o.map((x) => x.state)),
      textArray(o.map((x) => x.tag)),
      numberArray(o.map((x) => x.priceNum)),
      numberArray(o.map((x) => x.priceDen))
    ]
  }
}

/**
 * Several operations of one batch may change the same order in turn (a pipelining room rests an
 * order, then fills it with its next decision). A multi-row UPDATE applies only one source row per
 * target row, so consecutive changes of one order are folded into one: the first change's
 * precondition with the last change's result. A change that does not continue the previous one is
 * kept apart; the batch then fails its precondition and is retried one operation at a time.
 */
export const foldOrderUpdates = (updates: ReadonlyArray<OrderUpdate>): Array<OrderUpdate> => {
  const out: Array<OrderUpdate> = []
  const last = new Map<bigint, number>()
  for (const update of updates) {
    const at = last.get(update.id)
    if (at !== undefined) {
      const prev = out[at]
      const continues =
        prev.state === 1 &&
        update.prevRemainingLots === prev.remainingLots &&
        update.prevSeq === (prev.seq ?? prev.prevSeq)
      if (continues) {
        out[at] = {
          ...update,
          prevRemainingLots: prev.prevRemainingLots,
          prevSeq: prev.prevSeq,
          seq: update.seq ?? prev.seq
        }
        continue
      }
    }
    last.set(update.id, out.length)
    out.push(update)
  }
  return out
}

export const OrderUpdates: RowKind<OrderUpdate> = {
  name: "order_update",
  rank: 20,
  schema: Schema.Struct({
    id: Big,
    prevRemainingLots: Big,
    prevSeq: BigOrNull,
    remainingLots: Big,
    locked: Big,
    given: Big,
    received: Big,
    fee: Big,
    state: Schema.Int,
    seq: BigOrNull
  }),
  columns: (items) => {
    const u = foldOrderUpdates(items.map((i) => i.row))
    return [
      numberArray(u.map((x) => x.id)),
      numberArray(u.map((x) => x.remainingLots)),
      numberArray(u.map((x) => x.locked)),
      numberArray(u.map((x) => x.given)),
      numberArray(u.map((x) => x.received)),
      numberArray(u.map((x) => x.fee)),
      numberArray(u.map((x) => x.state)),
      numberArray(u.map((x) => x.seq)),
      numberArray(u.map((x) => x.prevRemainingLots)),
      numberArray(u.map((x) => x.prevSeq))
    ]
  }
}

export const Trades: RowKind<TradeInsert> = {
  name: "trade_insert",
  rank: 30,
  schema: Schema.Struct({
    id: Big,
    roomKey: Big,
    base: Schema.String,
    quote: Schema.String,
    priceTicks: Big,
    price: Schema.String,
    amount: Big,
    total: Big,
    takerOrder: Big,
    makerOrder: Big,
    takerSide: Schema.Int,
    priceNum: Big,
    priceDen: Big
  }),
  columns: (items) => {
    const t = items.map((i) => i.row)
    return [
      numberArray(t.map((x) => x.id)),
      numberArray(t.map((x) => x.roomKey)),
      textArray(t.map((x) => x.base)),
      textArray(t.map((x) => x.quote)),
      numberArray(t.map((x) => x.priceTicks)),
      textArray(t.map((x) => x.price)),
      numberArray(t.map((x) => x.amount)),
      numberArray(t.map((x) => x.total)),
      numberArray(t.map((x) => x.takerOrder)),
      numberArray(t.map((x) => x.makerOrder)),
      numberArray(t.map((x) => x.takerSide)),
      numberArray(t.map((x) => x.priceNum)),
      numberArray(t.map((x) => x.priceDen))
    ]
  }
}
