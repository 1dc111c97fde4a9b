/**
 * The exchange's rows written inside a ledger batch: new orders (with their placement lock),
 * order progress (fills, completion, cancellation) and trades. Multi-row, like the rest of the
 * batch, so a match with many makers costs no more statements than a match with one.
 */
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

/** A group of rows as the columns `ledger_commit` takes: one PostgreSQL array literal per column, null when empty. */
export type Columns = Array<string> | null

/**
 * The order rows of a batch as `ledger_commit`'s column groups (migration 0009): inserts, folded
 * updates (with the ids asked for, so the caller can tell which ones found their row moved on) and trades.
 */
export const orderColumns = (operations: ReadonlyArray<WithOrders>) => {
  const inserts = operations.flatMap((op) => (op.orderInsert !== undefined ? [op.orderInsert] : []))
  const updates = foldOrderUpdates(operations.flatMap((op) => op.orderUpdates ?? []))
  const trades = operations.flatMap((op) => op.trades ?? [])
  const insertColumns: Columns = inserts.length === 0 ? null : [
    numberArray(inserts.map((o) => o.id)), numberArray(inserts.map((o) => o.walletId)), numberArray(inserts.map((o) => o.roomKey)),
    textArray(inserts.map((o) => o.base)), textArray(inserts.map((o) => o.quote)), numberArray(inserts.map((o) => o.side)),
    numberArray(inserts.map((o) => o.orderType)), numberArray(inserts.map((o) => o.priceTicks)), numberArray(inserts.map((o) => o.quantityLots)),
    textArray(inserts.map((o) => o.fromCurrency)), textArray(inserts.map((o) => o.toCurrency)), numberArray(inserts.map((o) => o.fromAmount)),
    numberArray(inserts.map((o) => o.toAmount)), numberArray(inserts.map((o) => o.locked)), numberArray(inserts.map((o) => o.state)),
    textArray(inserts.map((o) => o.tag))
  ]
  const updateColumns: Columns = updates.length === 0 ? null : [
    numberArray(updates.map((u) => u.id)), numberArray(updates.map((u) => u.remainingLots)), numberArray(updates.map((u) => u.locked)),
    numberArray(updates.map((u) => u.given)), numberArray(updates.map((u) => u.received)), numberArray(updates.map((u) => u.fee)),
    numberArray(updates.map((u) => u.state)), numberArray(updates.map((u) => u.seq)), numberArray(updates.map((u) => u.prevRemainingLots)),
    numberArray(updates.map((u) => u.prevSeq))
  ]
  const tradeColumns: Columns = trades.length === 0 ? null : [
    numberArray(trades.map((t) => t.id)), numberArray(trades.map((t) => t.roomKey)), textArray(trades.map((t) => t.base)),
    textArray(trades.map((t) => t.quote)), numberArray(trades.map((t) => t.priceTicks)), textArray(trades.map((t) => t.price)),
    numberArray(trades.map((t) => t.amount)), numberArray(trades.map((t) => t.total)), numberArray(trades.map((t) => t.takerOrder)),
    numberArray(trades.map((t) => t.makerOrder)), numberArray(trades.map((t) => t.takerSide))
  ]
  return { insertColumns, updateColumns, updateIds: updates.map((u) => u.id), tradeColumns }
}
