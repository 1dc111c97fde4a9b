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
import type { OrderRow } from "../../sql/OrderRepo.ts"
import {
  Engine, KIND_LIMIT, KIND_LIMIT_ONLY, KIND_MARKET, RAW_CANCELLED, RAW_DONE, RAW_REJECT_WOULD_MATCH, RAW_RESTED
} from "./Engine.ts"
import { affordableLots, lotsAtPrice, type Pair, quoteMinorOf } from "./Pair.ts"
import type { OrderFigures } from "./Protocol.ts"
import {
  type BookOrder, cancelOrder, type FeeOf, type Fill, markPersisted, OrderState, OrderType, settleMatch, SIDE_SELL
} from "./Settlement.ts"

export const toBookOrder = (row: OrderRow): BookOrder => ({
  id: BigInt(row.id), walletId: BigInt(row.wallet_id), walletGroup: Number(row.wallet_group), side: Number(row.side),
  fromCurrency: row.from_currency, toCurrency: row.to_currency, typeTx: Number(row.type_tx),
  seq: row.seq === null ? 0 : Number(row.seq), remainingLots: BigInt(row.remaining_lots), locked: BigInt(row.locked),
  given: BigInt(row.given), received: BigInt(row.received), fee: BigInt(row.fee), state: Number(row.state),
  persisted: { remainingLots: BigInt(row.remaining_lots), seq: row.seq === null ? null : BigInt(row.seq) }
})

export const figuresOf = (o: { state: number; remainingLots: bigint; locked: bigint; given: bigint; received: bigint; fee: bigint }): OrderFigures => ({
  state: o.state, remainingLots: String(o.remainingLots), locked: String(o.locked), given: String(o.given),
  received: String(o.received), fee: String(o.fee)
})

export const figuresOfRow = (row: OrderRow): OrderFigures => figuresOf({
  state: Number(row.state), remainingLots: BigInt(row.remaining_lots), locked: BigInt(row.locked), given: BigInt(row.given),
  received: BigInt(row.received), fee: BigInt(row.fee)
})

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

  const keep = (order: BookOrder) => {
    bySeq.set(order.seq, order)
    byId.set(String(order.id), order)
  }
  const forget = (order: BookOrder) => {
    bySeq.delete(order.seq)
    byId.delete(String(order.id))
  }

  /** A resting order read back on activation (it never crosses: every match was committed in order). */
  const restore = (row: OrderRow) => {
    const order = toBookOrder(row)
    const code = engine.submitRaw(order.seq, order.side, KIND_LIMIT, Number(row.price_ticks), Number(order.remainingLots), 0)
    if (code !== RAW_RESTED) throw new Error(`room ${name}: order ${order.id} does not rest on rebuild (${code})`)
    keep(order)
  }

  /** Matches a placed order never processed before; `closed` rooms cancel it instead. */
  const place = (row: OrderRow, closed: boolean, feeOf: FeeOf, nextTradeId: () => bigint): Decision => {
    const order = toBookOrder(row)
    order.seq = ++seq
    const cancelled = (wouldMatch: boolean): Decision => {
      const operation = cancelOrder(order, BigInt(order.seq))
      markPersisted(order)
      return { operation, figures: figuresOf(order), wouldMatch }
    }
    if (closed) return cancelled(false)
    const orderType = Number(row.order_type)
    const kind = orderType === OrderType.Market ? KIND_MARKET : orderType === OrderType.LimitOnly ? KIND_LIMIT_ONLY : KIND_LIMIT
    const limit = row.price_ticks === null ? null : BigInt(row.price_ticks)
    const fills: Array<Fill> = []
    const submit = (k: number, ticks: bigint | null, lots: bigint) => {
      const code = engine.submitRaw(order.seq, order.side, k, Number(ticks ?? 0n), Number(lots), 0)
      if (code === RAW_DONE || code === RAW_RESTED) {
        for (let i = 0; i < engine.fillCount; i++) {
          const maker = bySeq.get(engine.fillMaker[i])
          if (maker === undefined) throw new Error(`room ${name}: unknown maker ${engine.fillMaker[i]}`)
          fills.push({ maker, ticks: BigInt(engine.fillPrice[i]), lots: BigInt(engine.fillQty[i]) })
        }
      }
      return code
    }
    let code: number
    if (order.side === SIDE_SELL) {
      // A sell gives exactly its lots; makers paying more than its limit give it more than toAmount.
      code = submit(kind, limit, order.remainingLots)
    } else if (kind === KIND_LIMIT_ONLY) {
      const lots = lotsAtPrice(pair, limit!, order.locked)
      code = lots === 0n ? RAW_DONE : submit(kind, limit, lots)
    } else {
      // A buy gives at most its locked fromAmount (C14): take every ask it can pay for at or
      // below its limit, then rest what the rest of its budget buys at the limit price.
      const taken = affordableLots(pair, order.locked, null, (visit) => engine.walkLevels("sell", visit), limit)
      code = taken === 0n ? RAW_DONE : submit(KIND_MARKET, null, taken)
      if (limit !== null && code === RAW_DONE) {
        const spent = fills.reduce((sum, f) => sum + quoteMinorOf(pair, f.ticks, f.lots), 0n)
        // The budget ran out while asks at or below the limit remain: what is left is rounding
        // dust (affordableLots prices lots exactly, each fill rounds down), which returns to free
        // with the completed order. Resting it would cross the book (and kill the room on every rebuild).
        let askAtLimit = false
        engine.walkLevels("sell", (price) => {
          askAtLimit = BigInt(price) <= limit
          return false
        })
        // A spent budget rests nothing: lotsAtPrice(…, 0) is the up to 10^k/ticks − 1 lots whose
        // rounded-down price is 0, which would rest an Active order locking nothing.
        const left = order.locked - spent
        const rest = askAtLimit || left <= 0n ? 0n : lotsAtPrice(pair, limit, left)
        if (rest > 0n) {
          code = engine.submitRaw(order.seq, order.side, KIND_LIMIT, Number(limit), Number(rest), 0)
          if (engine.fillCount > 0) throw new Error(`room ${name}: a buy's rest crossed the book`)
        }
      }
    }
    if (code === RAW_REJECT_WOULD_MATCH) return cancelled(true)
    if (code !== RAW_DONE && code !== RAW_RESTED) throw new Error(`room ${name}: engine refused order ${order.id} (${code})`)
    const rested = code === RAW_RESTED
    order.remainingLots = rested ? BigInt(engine.restRemaining) : 0n
    // Nothing rests: Completed when it filled at all (what it could not use returns to free),
    // Canceled when nothing filled (a market order facing an empty book).
    const outcome = rested ? "rested" : fills.length > 0 ? "filled" : "remainderCancelled"
    const operation = settleMatch({ pair, roomKey, taker: order, fills, outcome, feeOf, nextTradeId })
    // The rows will hold these figures once the operation commits; later decisions build on them
    // (and fail their conditional updates, should this one fail).
    markPersisted(order)
    for (const fill of fills) {
      markPersisted(fill.maker)
      if (fill.maker.state !== OrderState.Active) forget(fill.maker)
    }
    if (rested) keep(order)
    return { operation, figures: figuresOf(order), wouldMatch: false }
  }

  /** The owner's cancel of a resting order, or undefined when it is not in the book. */
  const cancel = (orderId: string): { readonly order: BookOrder; readonly operation: LedgerOperation } | undefined => {
    const order = byId.get(orderId)
    if (order === undefined) return undefined
    if (engine.cancelRaw(order.seq) !== RAW_CANCELLED) throw new Error(`room ${name}: order ${order.id} missing from the book`)
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
    restore, place, cancel, cancelAll,
    resting: (orderId: string) => byId.get(orderId),
    validate: () => engine.validateInternalState()
  }
}
