/**
 * The room actor: one order book (Matching.ts) rebuilt from SQL on activation. Messages are taken
 * concurrently but decided one at a time under a gate; each decision queues its ledger operation
 * before the gate opens (so operations commit in decision order) and the reply waits for that
 * commit outside the gate, so a room matches its next order while the previous match is still
 * being made durable (pipelining). Nothing is answered before it is durable. If a commit fails,
 * the book has run ahead of SQL: the room dies and is rebuilt from SQL, and every later decision
 * that built on the failed one fails its conditional order update too.
 */
import { Effect, Semaphore } from "effect"
import { Entity } from "effect/cluster"
import type { LedgerOperation } from "../../sql/Ledger.ts"
import { findOrder, maxSeqOfRoom, openOrdersOfRoom } from "../../sql/OrderRepo.ts"
import { findRoom } from "../../sql/RoomRepo.ts"
import { OrderNotActive, OrderNotFound, OrderWouldMatch } from "../../schema/Errors.ts"
import { limits } from "../../src/platform/Config.ts"
import { makeDb } from "../../src/platform/db/Sql.ts"
import { Currencies } from "../../src/platform/Currencies.ts"
import { LedgerWriter } from "../../src/platform/LedgerWriter.ts"
import { quoteFee, Tariffs } from "../../src/platform/Tariffs.ts"
import { TimeTicks } from "../../src/platform/TimeTicks.ts"
import { figuresOf, figuresOfRow, makeBook } from "./Matching.ts"
import { makePair } from "./Pair.ts"
import { type OrderFigures, RoomEntity } from "./Protocol.ts"
import type { FeeOf } from "./Settlement.ts"
import { OrderState } from "./Settlement.ts"

/** How many decided orders a room remembers (a repeated Match answers from here). */
const rememberedMax = 10_000

interface Placed {
  readonly figures: OrderFigures
  readonly wouldMatch: boolean
  readonly committed: Effect.Effect<void>
}

export const RoomEntityLayer = RoomEntity.toLayer(
  Effect.gen(function* () {
    const address = yield* Entity.CurrentAddress
    const name = address.entityId
    const [roomKeyText, base, quote] = name.split(":")
    const roomKey = BigInt(roomKeyText)
    const db = yield* makeDb
    const ledger = yield* LedgerWriter
    const tariffs = yield* Tariffs
    const ticks = yield* TimeTicks
    const currencies = yield* Currencies
    const decimalsOf = (code: string) => currencies.find(code)?.decimals ?? 0
    const pair = makePair(base, quote, decimalsOf(base), decimalsOf(quote))
    const book = makeBook(pair, roomKey, name, yield* db(maxSeqOfRoom(roomKeyText, base, quote)))
    let closed = roomKey !== 0n && (yield* db(findRoom(roomKeyText)))?.closedAt != null
    const gate = yield* Semaphore.make(1)
    const placed = new Map<string, Placed>()

    /** Queues now (decision order); the effect returned waits for the commit, and kills the room if it fails. */
    const enqueue = (operation: LedgerOperation) =>
      Effect.map(ledger.enqueue(operation), (wait) =>
        Effect.catch(Effect.asVoid(wait), (failure) =>
          Effect.die(
            new Error(
              `room ${name}: commit failed (${failure._tag}: ${failure._tag === "StateConflict" ? failure.txIds.join(",") : failure._tag === "LedgerRefused" ? failure.message : failure.constraint}); rebuilding from SQL`
            )
          )
        )
      )

    const feeOf =
      (rules: Effect.Success<ReturnType<typeof tariffs.list>>): FeeOf =>
      (order, gross, withFixed) =>
        quoteFee(
          rules,
          {
            txClass: "Exchange",
            currency: order.toCurrency,
            decimals: decimalsOf(order.toCurrency),
            amount: gross,
            walletGroup: order.walletGroup,
            typeTx: order.typeTx
          },
          withFixed
        )

    /** Decides a placed order (under the gate) and remembers the answer. */
    const place = Effect.fnUntraced(function* (row: Parameters<typeof book.place>[0]) {
      const decision = book.place(row, closed, feeOf(yield* tariffs.list()), ticks.next)
      const committed = yield* enqueue(decision.operation)
      const result: Placed = { figures: decision.figures, wouldMatch: decision.wouldMatch, committed }
      placed.set(String(row.id), result)
      if (placed.size > rememberedMax) placed.delete(placed.keys().next().value!)
      return result
    })

    // Rebuild: resting orders back into the book in arrival order, then orders placed but never matched.
    // A resting order that crosses the book (rested on decimal ticks before exact ratios) is matched
    // as a taker first, in arrival order.
    const open = yield* db(openOrdersOfRoom(roomKeyText, base, quote))
    const crossing = open.filter((row) => row.seq !== null && !book.restore(row))
    book.validate()
    const replayed: Array<Effect.Effect<void>> = []
    for (const row of crossing) replayed.push((yield* place(row)).committed)
    for (const row of open) if (row.seq === null) replayed.push((yield* place(row)).committed)
    yield* Effect.all(replayed, { discard: true })

    const wouldMatch = () =>
      new OrderWouldMatch({
        message: "postOnly: the order would match on arrival; it was cancelled and its amount unlocked"
      })

    return RoomEntity.of({
      Match: Effect.fnUntraced(function* ({ payload }) {
        const known = placed.get(payload.orderId)
        const row =
          known !== undefined || book.resting(payload.orderId) !== undefined
            ? undefined
            : yield* Effect.orDie(db(findOrder(payload.orderId)))
        const result = yield* gate.withPermits(1)(
          Effect.gen(function* () {
            const again = placed.get(payload.orderId)
            if (again !== undefined) return again
            const resting = book.resting(payload.orderId)
            if (resting !== undefined) return { figures: figuresOf(resting), wouldMatch: false, committed: Effect.void }
            const current = row ?? (yield* Effect.orDie(db(findOrder(payload.orderId))))
            if (current === undefined)
              return yield* Effect.die(new Error(`room ${name}: order ${payload.orderId} does not exist`))
            // Processed before this activation: the same answer again.
            if (current.seq !== null || current.state !== OrderState.Active) {
              return { figures: figuresOfRow(current), wouldMatch: false, committed: Effect.void }
            }
            return yield* place(current)
          })
        )
        yield* result.committed
        if (result.wouldMatch) return yield* wouldMatch()
        return result.figures
      }),
      Cancel: Effect.fnUntraced(function* ({ payload }) {
        const notFound = new OrderNotFound({ message: `id: no order ${payload.orderId} of this wallet` })
        const notActive = new OrderNotActive({ message: `id: order ${payload.orderId} is no longer open` })
        const result = yield* gate.withPermits(1)(
          Effect.gen(function* () {
            const waits: Array<Effect.Effect<void>> = []
            if (book.resting(payload.orderId) === undefined && placed.get(payload.orderId) === undefined) {
              const row = yield* Effect.orDie(db(findOrder(payload.orderId)))
              if (row === undefined || String(row.walletId) !== payload.walletId) return yield* notFound
              if (row.state !== OrderState.Active) return yield* notActive
              // Placed but not matched yet: match it first, as its placement would.
              if (row.seq === null) waits.push((yield* place(row)).committed)
            }
            const resting = book.resting(payload.orderId)
            if (resting === undefined) return yield* notActive
            if (String(resting.walletId) !== payload.walletId) return yield* notFound
            const { order, operation } = book.cancel(payload.orderId)!
            waits.push(yield* enqueue(operation))
            return { figures: figuresOf(order), committed: Effect.all(waits, { discard: true }) }
          })
        )
        yield* result.committed
        return result.figures
      }),
      Close: Effect.fnUntraced(function* () {
        const result = yield* gate.withPermits(1)(
          Effect.gen(function* () {
            closed = true
            const { count, operation } = book.cancelAll()
            return { count, committed: operation === undefined ? Effect.void : yield* enqueue(operation) }
          })
        )
        yield* result.committed
        return { cancelled: result.count }
      })
    })
  }),
  // No mailbox bound: a Match is sent only after its order's money is locked, so it must be
  // delivered; back-pressure is applied before that, at the wallet's actor (whose mailbox is bounded).
  { maxIdleTime: `${limits.roomIdleSeconds} seconds`, mailboxCapacity: "unbounded", concurrency: "unbounded" }
)
