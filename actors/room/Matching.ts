/**
 * One room's in-memory book and the decision for each message, synchronous and without I/O: the
 * room actor feeds it SQL rows, gets the ledger operation to commit, and queues that operation in
 * decision order. The book runs ahead of SQL only by operations already queued; the room dies and
 * is rebuilt from SQL if one of them fails.
 *
 * Engine ids are the room's arrival sequence numbers (`seq`, safe integers); order ids (timeticks)
 * are too large for the engine's float slots.
 */
import type { LedgerOperation } from "../../sql/Ledger.ts"
import type { Order } from "../../sql/OrderRepo.ts"
import {
  Engine,
  KIND_LIMIT,
  KIND_LIMIT_ONLY,
  KIND_MARKET,
  RAW_CANCELLED,
  RAW_DONE,
  RAW_REJECT_WOULD_MATCH,
  RAW_RESTED,
  REMOVED_SELF_TRADE
} from "./Engine.ts"
import { lotsOf, type Pair, quoteUnitsFloor } from "./Pair.ts"
import type { OrderFigures } from "./Protocol.ts"
import { gcdBig } from "./Ratio.ts"
import {
  type BookOrder,
  cancelOrder,
  type Ended,
  type FeeOf,
  type Fill,
  markPersisted,
  OrderState,
  OrderType,
  settleMatch,
  SIDE_SELL
} from "./Settlement.ts"

/** A limit order's exact ratio (quote units per lot): stored, or — rows placed before 0014 — from its amounts. */
export const ratioOfRow = (pair: Pair, row: Order): readonly [number, number] | null => {
  if (row.priceNum !== null && row.priceDen !== null) return [Number(row.priceNum), Number(row.priceDen)]
  if (row.toAmount === null || row.orderType === OrderType.Market) return null
  const sell = row.side === SIDE_SELL
  const n = quoteUnitsFloor(pair, sell ? row.toAmount : row.fromAmount)
  const d = sell ? row.quantityLots : (lotsOf(pair, row.toAmount) ?? 0n)
  if (n <= 0n || d <= 0n) return null
  const g = gcdBig(n, d)
  return [Number(n / g), Number(d / g)]
}

export const toBookOrder = (row: Order): BookOrder => ({
  id: row.id,
  walletId: row.walletId,
  walletGroup: row.walletGroup,
  side: row.side,
  fromCurrency: row.fromCurrency,
  toCurrency: row.toCurrency,
  typeTx: row.typeTx,
  seq: row.seq === null ? 0 : Number(row.seq),
  remainingLots: row.remainingLots,
  locked: row.locked,
  given: row.given,
  received: row.received,
  fee: row.fee,
  state: row.state,
  persisted: { remainingLots: row.remainingLots, seq: row.seq }
})

/** A copy of the figures (a book order changes as it fills; an answer must not). */
export const figuresOf = (o: OrderFigures): OrderFigures => ({
  state: o.state,
  remainingLots: o.remainingLots,
  locked: o.locked,
  given: o.given,
  received: o.received,
  fee: o.fee
})

export const figuresOfRow = (row: Order): OrderFigures => figuresOf(row)

export interface Decision {
  readonly operation: LedgerOperation
  readonly figures: OrderFigures
  readonly wouldMatch: boolean
}

export const makeBook = (pair: Pair, roomKey: bigint, name: string, firstSeq: number) => {
  const engine = new Engine()
  const bySeq = new Map<number, BookOrder>()
  const byId = new Map<string, BookOrder>()
  let seq = firstSeq
  // Wallets as the engine's small owner numbers (self-trade prevention).
  const owners = new Map<bigint, number>()
  const ownerOf = (walletId: bigint) => {
    let o = owners.get(walletId)
    if (o === undefined) owners.set(walletId, (o = owners.size + 1))
    return o
  }

  const keep = (order: BookOrder) => {
    bySeq.set(order.seq, order)
    byId.set(String(order.id), order)
  }
  const forget = (order: BookOrder) => {
    bySeq.delete(order.seq)
    byId.delete(String(order.id))
  }

  /**
   * A resting order read back on activation. False when it would cross the book (rows rested on
   * decimal ticks before exact ratios): the caller then matches it as a taker instead.
   */
  const restore = (row: Order): boolean => {
    const order = toBookOrder(row)
    const ratio = ratioOfRow(pair, row)
    if (ratio === null) throw new Error(`room ${name}: resting order ${order.id} has no limit ratio`)
    const code = engine.restoreRaw(
      order.seq,
      order.side,
      ratio[0],
      ratio[1],
      Number(order.remainingLots),
      ownerOf(order.walletId)
    )
    if (code === RAW_REJECT_WOULD_MATCH) return false
    if (code !== RAW_RESTED) throw new Error(`room ${name}: order ${order.id} does not rest on rebuild (${code})`)
    keep(order)
    return true
  }

  /** Matches an order (placed and never processed, or a crossing one read back); `closed` rooms cancel it instead. */
  const place = (row: Order, closed: boolean, feeOf: FeeOf, nextTradeId: () => bigint): Decision => {
    const order = toBookOrder(row)
    order.seq = ++seq
    const cancelled = (wouldMatch: boolean): Decision => {
      const operation = cancelOrder(order, BigInt(order.seq))
      markPersisted(order)
      return { operation, figures: figuresOf(order), wouldMatch }
    }
    if (closed) return cancelled(false)
    const orderType = row.orderType
    const kind =
      orderType === OrderType.Market ? KIND_MARKET : orderType === OrderType.LimitOnly ? KIND_LIMIT_ONLY : KIND_LIMIT
    const ratio = kind === KIND_MARKET ? ([0, 0] as const) : ratioOfRow(pair, row)
    if (ratio === null) throw new Error(`room ${name}: limit order ${order.id} has no ratio`)
    // A sell gives exactly its lots; a buy spends at most what is still locked for it (C14): it takes
    // all its budget buys at or under its ratio (makers asking less give it more than toAmount; a
    // market buy's toAmount is informational) and a limit buy rests what the rest of it buys.
    const sell = order.side === SIDE_SELL
    const budget = sell ? 0n : quoteUnitsFloor(pair, order.locked)
    const quantity = sell ? order.remainingLots : 0n
    const code =
      !sell && budget === 0n
        ? RAW_DONE
        : engine.submitRaw(
            order.seq,
            order.side,
            kind,
            ratio[0],
            ratio[1],
            Number(quantity),
            Number(budget),
            ownerOf(order.walletId)
          )
    if (code === RAW_REJECT_WOULD_MATCH) return cancelled(true)
    if (code !== RAW_DONE && code !== RAW_RESTED)
      throw new Error(`room ${name}: engine refused order ${order.id} (${code})`)
    const makerOf = (id: number) => {
      const maker = bySeq.get(id)
      if (maker === undefined) throw new Error(`room ${name}: unknown maker ${id}`)
      return maker
    }
    const fills: Array<Fill> = []
    const ended: Array<Ended> = []
    if (!sell && budget === 0n) {
      // nothing to spend: the order completes or cancels below
    } else {
      for (let i = 0; i < engine.fillCount; i++) {
        fills.push({
          maker: makerOf(engine.fillMaker[i]),
          num: BigInt(engine.fillNum[i]),
          den: BigInt(engine.fillDen[i]),
          lots: BigInt(engine.fillQty[i]),
          quoteUnits: BigInt(engine.fillQuote[i])
        })
      }
      for (let i = 0; i < engine.removedCount; i++) {
        ended.push({
          maker: makerOf(engine.removedId[i]),
          reason: engine.removedReason[i] === REMOVED_SELF_TRADE ? "selfTrade" : "dust"
        })
      }
    }
    const rested = code === RAW_RESTED
    order.remainingLots = rested ? BigInt(engine.restRemaining) : 0n
    // Nothing rests: Completed when it filled at all (what it could not use returns to free),
    // Canceled when nothing filled (a market order facing an empty book, a dust remainder).
    const outcome = rested ? "rested" : fills.length > 0 ? "filled" : "remainderCancelled"
    const operation = settleMatch({ pair, roomKey, taker: order, fills, ended, outcome, feeOf, nextTradeId })
    // The rows will hold these figures once the operation commits; later decisions build on them
    // (and fail their conditional updates, should this one fail).
    markPersisted(order)
    for (const maker of [...fills.map((f) => f.maker), ...ended.map((e) => e.maker)]) {
      markPersisted(maker)
      if (maker.state !== OrderState.Active) forget(maker)
    }
    if (rested) keep(order)
    return { operation, figures: figuresOf(order), wouldMatch: false }
  }

  /** The owner's cancel of a resting order, or undefined when it is not in the book. */
  const cancel = (orderId: string): { readonly order: BookOrder; readonly operation: LedgerOperation } | undefined => {
    const order = byId.get(orderId)
    if (order === undefined) return undefined
    if (engine.cancelRaw(order.seq) !== RAW_CANCELLED)
      throw new Error(`room ${name}: order ${order.id} missing from the book`)
    const operation = cancelOrder(order, null)
    forget(order)
    return { order, operation }
  }

  /** Cancels every resting order (the room closed): one operation, or undefined when the book is empty. */
  const cancelAll = (): { readonly count: number; readonly operation?: LedgerOperation } => {
    const orders = [...bySeq.values()]
    if (orders.length === 0) return { count: 0 }
    const operations = orders.map((order) => {
      engine.cancelRaw(order.seq)
      forget(order)
      return cancelOrder(order, null)
    })
    const [first, ...rest] = operations
    return { count: orders.length, operation: { ...first, extra: rest } }
  }

  return {
    restore,
    place,
    cancel,
    cancelAll,
    resting: (orderId: string) => byId.get(orderId),
    validate: () => engine.validateInternalState()
  }
}
