/**
 * The room actor: holds one order book in memory (the pure Engine), rebuilt from SQL on activation,
 * matches each placed order, and commits the whole match (taker, every maker, trades) as one ledger
 * operation before it replies. If a commit fails the in-memory book no longer matches SQL, so the
 * actor dies and is rebuilt from SQL on its next message: nothing acknowledged is lost or doubled.
 *
 * Engine ids are the room's arrival sequence numbers (`seq`, safe integers); order ids (timeticks)
 * are too large for the engine's float slots.
 */
import { Effect } from "effect"
import { Entity } from "effect/cluster"
import type { LedgerOperation } from "../../sql/LedgerCommit.ts"
import { findOrder, maxSeqOfRoom, type OrderRow, openOrdersOfRoom } from "../../sql/OrderRepo.ts"
import { findRoom } from "../../sql/RoomRepo.ts"
import { OrderNotActive, OrderNotFound, OrderWouldMatch } from "../../schema/Errors.ts"
import { limits } from "../../src/Config.ts"
import { makeDb } from "../../src/db/Sql.ts"
import { Currencies } from "../../src/services/Currencies.ts"
import { LedgerWriter } from "../../src/services/LedgerWriter.ts"
import { quoteFee, Tariffs } from "../../src/services/Tariffs.ts"
import { TimeTicks } from "../../src/TimeTicks.ts"
import {
  Engine, KIND_LIMIT, KIND_LIMIT_ONLY, KIND_MARKET, RAW_CANCELLED, RAW_DONE, RAW_REJECT_WOULD_MATCH, RAW_RESTED
} from "./Engine.ts"
import { affordableLots, lotsAtPrice, makePair, quoteMinorOf } from "./Pair.ts"
import { RoomEntity } from "./Protocol.ts"
import { type BookOrder, cancelOrder, type FeeOf, type Fill, markPersisted, OrderState, OrderType, settleMatch, SIDE_SELL } from "./Settlement.ts"

const toBookOrder = (row: OrderRow): BookOrder => ({
  id: BigInt(row.id), walletId: BigInt(row.wallet_id), walletGroup: Number(row.wallet_group), side: Number(row.side),
  fromCurrency: row.from_currency, toCurrency: row.to_currency, typeTx: Number(row.type_tx),
  seq: row.seq === null ? 0 : Number(row.seq), remainingLots: BigInt(row.remaining_lots), locked: BigInt(row.locked),
  given: BigInt(row.given), received: BigInt(row.received), fee: BigInt(row.fee), state: Number(row.state),
  persisted: { remainingLots: BigInt(row.remaining_lots), seq: row.seq === null ? null : BigInt(row.seq) }
})

const figuresOf = (o: { state: number; remainingLots: bigint; locked: bigint; given: bigint; received: bigint; fee: bigint }) => ({
  state: o.state, remainingLots: String(o.remainingLots), locked: String(o.locked), given: String(o.given),
  received: String(o.received), fee: String(o.fee)
})

const figuresOfRow = (row: OrderRow) => figuresOf({
  state: Number(row.state), remainingLots: BigInt(row.remaining_lots), locked: BigInt(row.locked), given: BigInt(row.given),
  received: BigInt(row.received), fee: BigInt(row.fee)
})

export const RoomEntityLayer = RoomEntity.toLayer(
  Effect.gen(function*() {
    const address = yield* Entity.CurrentAddress
    const [roomKeyText, base, quote] = address.entityId.split(":")
    const roomKey = BigInt(roomKeyText)
    const db = yield* makeDb
    const ledger = yield* LedgerWriter
    const tariffs = yield* Tariffs
    const ticks = yield* TimeTicks
    const currencies = yield* Currencies
    const decimalsOf = (code: string) => currencies.find(code)?.decimals ?? 0
    const pair = makePair(base, quote, decimalsOf(base), decimalsOf(quote))
    const engine = new Engine()
    const bySeq = new Map<number, BookOrder>()
    const byId = new Map<string, BookOrder>()
    let seq = yield* db(maxSeqOfRoom(roomKeyText, base, quote))
    let closed = roomKey !== 0n && (yield* db(findRoom(roomKeyText)))?.closed_at != null

    /** A failed commit leaves the book ahead of SQL: die, and be rebuilt from SQL. */
    const commitOrDie = (operation: LedgerOperation) =>
      Effect.catch(ledger.commit(operation), (failure) =>
        Effect.die(new Error(`room ${address.entityId}: commit failed (${failure._tag}: ${failure.constraint}); rebuilding`)))

    const feeOfWith = (rules: Effect.Success<ReturnType<typeof tariffs.list>>): FeeOf => (order, gross) =>
      quoteFee(rules, {
        txClass: "Exchange", currency: order.toCurrency, decimals: decimalsOf(order.toCurrency), amount: gross,
        walletGroup: order.walletGroup, typeTx: order.typeTx
      })

    const forget = (order: BookOrder) => {
      bySeq.delete(order.seq)
      byId.delete(String(order.id))
    }

    /** Matches a placed order (never processed before) and commits the outcome. */
    const processNew = Effect.fnUntraced(function*(row: OrderRow) {
      const order = toBookOrder(row)
      order.seq = ++seq
      if (closed) {
        yield* commitOrDie(cancelOrder(order, BigInt(order.seq)))
        return { figures: figuresOf(order), wouldMatch: false }
      }
      const orderType = Number(row.order_type)
      const kind = orderType === OrderType.Market ? KIND_MARKET : orderType === OrderType.LimitOnly ? KIND_LIMIT_ONLY : KIND_LIMIT
      const limit = row.price_ticks === null ? null : BigInt(row.price_ticks)
      const fills: Array<Fill> = []
      const collect = () => {
        for (let i = 0; i < engine.fillCount; i++) {
          const maker = bySeq.get(engine.fillMaker[i])
          if (maker === undefined) throw new Error(`room ${address.entityId}: unknown maker ${engine.fillMaker[i]}`)
          fills.push({ maker, ticks: BigInt(engine.fillPrice[i]), lots: BigInt(engine.fillQty[i]) })
        }
      }
      const submit = (k: number, ticks: bigint | null, lots: bigint) => {
        const code = engine.submitRaw(order.seq, order.side, k, Number(ticks ?? 0n), Number(lots), 0)
        if (code === RAW_DONE || code === RAW_RESTED) collect()
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
            if (engine.fillCount > 0) return yield* Effect.die(new Error(`room ${address.entityId}: a buy's rest crossed the book`))
          }
        }
      }
      if (code === RAW_REJECT_WOULD_MATCH) {
        yield* commitOrDie(cancelOrder(order, BigInt(order.seq)))
        return { figures: figuresOf(order), wouldMatch: true }
      }
      if (code !== RAW_DONE && code !== RAW_RESTED) return yield* Effect.die(new Error(`room ${address.entityId}: engine refused order ${order.id} (${code})`))
      const rested = code === RAW_RESTED
      order.remainingLots = rested ? BigInt(engine.restRemaining) : 0n
      // Nothing rests: Completed when it filled at all (what it could not use returns to free),
      // Canceled when nothing filled (a market order facing an empty book).
      const outcome = rested ? "rested" : fills.length > 0 ? "filled" : "remainderCancelled"
      const operation = settleMatch({
        pair, roomKey, taker: order, fills, outcome, feeOf: feeOfWith(yield* tariffs.list()), nextTradeId: ticks.next
      })
      yield* commitOrDie(operation)
      markPersisted(order)
      for (const fill of fills) {
        markPersisted(fill.maker)
        if (fill.maker.state !== OrderState.Active) forget(fill.maker)
      }
      if (rested) {
        bySeq.set(order.seq, order)
        byId.set(String(order.id), order)
      }
      return { figures: figuresOf(order), wouldMatch: false }
    })

    // Rebuild: resting orders back into the book in arrival order (they never cross: every match
    // was committed before the next order was taken), then orders placed but never matched.
    const open = yield* db(openOrdersOfRoom(roomKeyText, base, quote))
    for (const row of open) {
      if (row.seq === null) continue
      const order = toBookOrder(row)
      const code = engine.submitRaw(order.seq, order.side, KIND_LIMIT, Number(row.price_ticks), Number(order.remainingLots), 0)
      if (code !== RAW_RESTED) return yield* Effect.die(new Error(`room ${address.entityId}: order ${order.id} does not rest on rebuild (${code})`))
      bySeq.set(order.seq, order)
      byId.set(String(order.id), order)
    }
    engine.validateInternalState()
    for (const row of open) if (row.seq === null) yield* processNew(row)

    return RoomEntity.of({
      Match: Effect.fnUntraced(function*({ payload }) {
        const resting = byId.get(payload.orderId)
        if (resting !== undefined) return figuresOf(resting)
        const row = yield* Effect.orDie(db(findOrder(payload.orderId)))
        if (row === undefined) return yield* Effect.die(new Error(`room ${address.entityId}: order ${payload.orderId} does not exist`))
        // Already processed (a rebuild got to it first): the same answer again.
        if (row.seq !== null || Number(row.state) !== OrderState.Active) return figuresOfRow(row)
        const result = yield* processNew(row)
        if (result.wouldMatch) {
          return yield* new OrderWouldMatch({ message: "postOnly: the order would match on arrival; it was cancelled and its amount unlocked" })
        }
        return result.figures
      }),
      Cancel: Effect.fnUntraced(function*({ payload }) {
        let order = byId.get(payload.orderId)
        if (order === undefined) {
          const row = yield* Effect.orDie(db(findOrder(payload.orderId)))
          if (row === undefined || String(row.wallet_id) !== payload.walletId) {
            return yield* new OrderNotFound({ message: `id: no order ${payload.orderId} of this wallet` })
          }
          if (Number(row.state) !== OrderState.Active) return yield* new OrderNotActive({ message: `id: order ${payload.orderId} is no longer open` })
          // Placed but not matched yet: match it first, as its placement would.
          if (row.seq === null) yield* processNew(row)
          order = byId.get(payload.orderId)
          if (order === undefined) return yield* new OrderNotActive({ message: `id: order ${payload.orderId} is no longer open` })
        }
        if (String(order.walletId) !== payload.walletId) return yield* new OrderNotFound({ message: `id: no order ${payload.orderId} of this wallet` })
        if (engine.cancelRaw(order.seq) !== RAW_CANCELLED) return yield* Effect.die(new Error(`room ${address.entityId}: order ${order.id} missing from the book`))
        yield* commitOrDie(cancelOrder(order, null))
        forget(order)
        return figuresOf(order)
      }),
      Close: Effect.fnUntraced(function*() {
        closed = true
        const orders = [...bySeq.values()]
        if (orders.length === 0) return { cancelled: 0 }
        const operations = orders.map((order) => {
          engine.cancelRaw(order.seq)
          return cancelOrder(order, null)
        })
        const [first, ...rest] = operations
        yield* commitOrDie({ ...first, extra: rest })
        for (const order of orders) forget(order)
        return { cancelled: orders.length }
      })
    })
  }),
  { maxIdleTime: `${limits.roomIdleSeconds} seconds`, mailboxCapacity: limits.roomMailboxMax }
)
