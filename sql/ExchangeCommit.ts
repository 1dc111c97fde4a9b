/**
 * The exchange's rows written inside a ledger batch: new orders (with their placement lock),
 * order progress (fills, completion, cancellation) and trades. Multi-row statements, like the rest
 * of the batch, so a match with many makers costs a fixed number of statements.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { numberArray, textArray } from "./ArrayLiterals.ts"
import { foldOrderUpdates } from "./Folding.ts"

export interface OrderInsert {
  readonly id: bigint
  readonly walletId: bigint
  readonly roomKey: bigint
  readonly base: string
  readonly quote: string
  readonly side: number
  readonly orderType: number
  readonly priceTicks: bigint | null
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
  /** Decimal string, quote per base. */
  readonly price: string
  readonly amount: bigint
  readonly total: bigint
  readonly takerOrder: bigint
  readonly makerOrder: bigint
  readonly takerSide: number
}

interface WithOrders {
  readonly orderInsert?: OrderInsert
  readonly orderUpdates?: ReadonlyArray<OrderUpdate>
  readonly trades?: ReadonlyArray<TradeInsert>
}

/** Writes the order rows; answers the ids of updates whose row had moved on (none when all applied). */
export const applyOrderChanges = (operations: ReadonlyArray<WithOrders>) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.gen(function*() {
      const inserts = operations.flatMap((op) => (op.orderInsert !== undefined ? [op.orderInsert] : []))
      if (inserts.length > 0) {
        yield* sql`INSERT INTO orders (id, wallet_id, room_key, base, quote, side, order_type, price_ticks, quantity_lots, remaining_lots,
            from_currency, to_currency, from_amount, to_amount, locked, state, tag)
          SELECT id, wallet_id, room_key, base, quote, side, order_type, price_ticks, quantity_lots, quantity_lots,
            from_currency, to_currency, from_amount, to_amount, locked, state, tag
          FROM unnest(${numberArray(inserts.map((o) => o.id))}::bigint[], ${numberArray(inserts.map((o) => o.walletId))}::bigint[],
            ${numberArray(inserts.map((o) => o.roomKey))}::bigint[], ${textArray(inserts.map((o) => o.base))}::text[],
            ${textArray(inserts.map((o) => o.quote))}::text[], ${numberArray(inserts.map((o) => o.side))}::smallint[],
            ${numberArray(inserts.map((o) => o.orderType))}::smallint[], ${numberArray(inserts.map((o) => o.priceTicks))}::bigint[],
            ${numberArray(inserts.map((o) => o.quantityLots))}::bigint[], ${textArray(inserts.map((o) => o.fromCurrency))}::text[],
            ${textArray(inserts.map((o) => o.toCurrency))}::text[], ${numberArray(inserts.map((o) => o.fromAmount))}::numeric[],
            ${numberArray(inserts.map((o) => o.toAmount))}::numeric[], ${numberArray(inserts.map((o) => o.locked))}::numeric[],
            ${numberArray(inserts.map((o) => o.state))}::smallint[], ${textArray(inserts.map((o) => o.tag))}::text[])
            AS o (id, wallet_id, room_key, base, quote, side, order_type, price_ticks, quantity_lots, from_currency, to_currency,
              from_amount, to_amount, locked, state, tag)`
      }
      const updates = foldOrderUpdates(operations.flatMap((op) => op.orderUpdates ?? []))
      let stale: ReadonlyArray<bigint> = []
      if (updates.length > 0) {
        const updated = yield* sql<{ id: bigint }>`UPDATE orders AS o SET remaining_lots = u.remaining, locked = u.locked, given = u.given,
            received = u.received, fee = u.fee, state = u.state, seq = COALESCE(u.seq, o.seq), updated_at = now()
          FROM unnest(${numberArray(updates.map((u) => u.id))}::bigint[], ${numberArray(updates.map((u) => u.remainingLots))}::bigint[],
            ${numberArray(updates.map((u) => u.locked))}::numeric[], ${numberArray(updates.map((u) => u.given))}::numeric[],
            ${numberArray(updates.map((u) => u.received))}::numeric[], ${numberArray(updates.map((u) => u.fee))}::numeric[],
            ${numberArray(updates.map((u) => u.state))}::smallint[], ${numberArray(updates.map((u) => u.seq))}::bigint[],
            ${numberArray(updates.map((u) => u.prevRemainingLots))}::bigint[], ${numberArray(updates.map((u) => u.prevSeq))}::bigint[])
            AS u (id, remaining, locked, given, received, fee, state, seq, prev_remaining, prev_seq)
          WHERE o.id = u.id AND o.state = 1 AND o.remaining_lots = u.prev_remaining AND o.seq IS NOT DISTINCT FROM u.prev_seq
          RETURNING o.id`
        if (updated.length !== updates.length) {
          const done = new Set(updated.map((row) => BigInt(row.id)))
          stale = updates.map((u) => u.id).filter((id) => !done.has(id))
        }
      }
      const trades = operations.flatMap((op) => op.trades ?? [])
      if (trades.length > 0) {
        yield* sql`INSERT INTO trades (id, room_key, base, quote, price_ticks, price, amount, total, taker_order, maker_order, taker_side)
          SELECT * FROM unnest(${numberArray(trades.map((t) => t.id))}::bigint[], ${numberArray(trades.map((t) => t.roomKey))}::bigint[],
            ${textArray(trades.map((t) => t.base))}::text[], ${textArray(trades.map((t) => t.quote))}::text[],
            ${numberArray(trades.map((t) => t.priceTicks))}::bigint[], ${textArray(trades.map((t) => t.price))}::numeric[],
            ${numberArray(trades.map((t) => t.amount))}::numeric[], ${numberArray(trades.map((t) => t.total))}::numeric[],
            ${numberArray(trades.map((t) => t.takerOrder))}::bigint[], ${numberArray(trades.map((t) => t.makerOrder))}::bigint[],
            ${numberArray(trades.map((t) => t.takerSide))}::smallint[])`
      }
      return stale
    }))
