/**
 * Orders (SPEC "Market (session)", CONTRACT C14). Placement is two messages: the wallet's actor
 * locks fromAmount and records the order (Active) in one commit, then the room's actor matches it
 * and commits the fills. A crash between the two leaves an Active order the room matches when it is
 * next activated, so an acknowledged placement is never lost; reads come straight from SQL.
 */
import { Context, Effect, Layer } from "effect"
import {
  canonicalPair,
  makePair,
  mapOrderForm,
  OrderType,
  type Pair,
  priceOfRatio,
  RoomEntity,
  roomEntityId,
  SIDE_SELL,
  ticksOfRatio
} from "../../../actors/room/Protocol.ts"
import { WalletEntity } from "../../../actors/wallet/Protocol.ts"
import { findOrder, listOrders, type Order } from "../../../sql/OrderRepo.ts"
import { findRoom, isMember } from "../../../sql/RoomRepo.ts"
import { walletById } from "../../../sql/WalletRepo.ts"
import { type NewOrderInfo, orderStateCodes, type orderStateNames, type OrderOut } from "../../../schema/Exchange.ts"
import {
  BalanceNotEnough,
  CurrencyNotEnabled,
  InvalidAmount,
  InvalidRequest,
  MaxActiveOrdersExceeded,
  NonceExists,
  OrderNotActive,
  OrderNotFound,
  OrderWouldMatch,
  RateLimited,
  RoomNotFound,
  TooManyDecimals,
  UnknownCurrency,
  WalletBlocked,
  WalletNotFound
} from "../../../schema/Errors.ts"
import { asTxId, asWalletId } from "../../../schema/Ids.ts"
import { fromMinorUnits } from "../../../schema/Money.ts"
import { TxType } from "../../../schema/Transfer.ts"
import { WalletFlag } from "../../../schema/Wallet.ts"
import { AppConfigService, limits } from "../../platform/Config.ts"
import { makeDb } from "../../platform/db/Sql.ts"
import { dateOfTimetick, TimeTicks } from "../../platform/TimeTicks.ts"
import { type Currency, Currencies } from "../../platform/Currencies.ts"
import { delivered } from "../../platform/Delivery.ts"

export type OrderError =
  | BalanceNotEnough
  | CurrencyNotEnabled
  | InvalidAmount
  | InvalidRequest
  | MaxActiveOrdersExceeded
  | NonceExists
  | OrderWouldMatch
  | RateLimited
  | RoomNotFound
  | TooManyDecimals
  | UnknownCurrency
  | WalletBlocked
  | WalletNotFound

/** A market buy without toAmount buys as much as fromAmount pays for: no quantity bound of its own. */
const UNBOUNDED_LOTS = BigInt(Number.MAX_SAFE_INTEGER)
const exchangeBlockingFlags = WalletFlag.WalletBlock | WalletFlag.Deleted

/** An ISO date (UTC midnight) or date-time query parameter. */
export const dateParam = (text: string | undefined, field: string): Effect.Effect<Date | undefined, InvalidRequest> => {
  if (text === undefined) return Effect.succeed(undefined)
  const date = new Date(text.length === 10 ? `${text}T00:00:00Z` : text)
  return Number.isNaN(date.getTime())
    ? Effect.fail(new InvalidRequest({ message: `${field}: not a valid date` }))
    : Effect.succeed(date)
}

const typeName = (orderType: number): OrderOut["orderType"] =>
  orderType === OrderType.Market ? "Market" : orderType === OrderType.LimitOnly ? "LimitOnly" : "Limit"
const stateName = (code: number): OrderOut["state"] =>
  (Object.entries(orderStateCodes).find(([, value]) => value === code)?.[0] ?? "Failed") as OrderOut["state"]

export interface OrderQuery {
  readonly currencyFrom?: string | undefined
  readonly currencyTo?: string | undefined
  readonly roomKey?: string | undefined
  readonly start?: string | undefined
  readonly end?: string | undefined
  readonly fromOrderId?: string | undefined
  readonly limit?: number | undefined
  readonly states?: ReadonlyArray<(typeof orderStateNames)[number]> | undefined
}

export class ExchangeOrders extends Context.Service<
  ExchangeOrders,
  {
    readonly create: (walletId: string, input: NewOrderInfo) => Effect.Effect<OrderOut, OrderError>
    readonly cancel: (
      walletId: string,
      orderId: string
    ) => Effect.Effect<OrderOut, OrderNotFound | OrderNotActive | RateLimited>
    readonly list: (walletId: string, query: OrderQuery) => Effect.Effect<ReadonlyArray<OrderOut>, InvalidRequest>
    readonly find: (walletId: string, orderId: string) => Effect.Effect<OrderOut | undefined>
    /** The pair of two exchange-enabled currencies, or the reason it is not tradable. */
    readonly pairOf: (
      from: string,
      to: string
    ) => Effect.Effect<Pair, UnknownCurrency | CurrencyNotEnabled | InvalidRequest>
  }
>()("core/ExchangeOrders") {
  static readonly layer = Layer.effect(
    ExchangeOrders,
    Effect.gen(function* () {
      const db = yield* makeDb
      const ticks = yield* TimeTicks
      const currencies = yield* Currencies
      const config = yield* AppConfigService
      const walletActor = yield* WalletEntity.client
      const roomActor = yield* RoomEntity.client

      const pairOf = Effect.fnUntraced(function* (from: string, to: string) {
        const a = yield* currencies.requireExchange(from, "fromCurrency")
        const b = yield* currencies.requireExchange(to, "toCurrency")
        if (a.code === b.code)
          return yield* new InvalidRequest({ message: "toCurrency: must differ from fromCurrency" })
        const { base, quote } = canonicalPair(a.code, b.code)
        return makePair(base, quote, currencies.find(base)!.decimals, currencies.find(quote)!.decimals)
      })

      const units = (minor: bigint, code: string) => fromMinorUnits(minor, currencies.find(code)?.decimals ?? 0)

      const toOut = (order: Order): OrderOut => {
        const pair = makePair(
          order.base,
          order.quote,
          currencies.find(order.base)?.decimals ?? 0,
          currencies.find(order.quote)?.decimals ?? 0
        )
        return {
          id: String(order.id),
          roomKey: String(order.roomKey),
          fromCurrency: order.fromCurrency,
          toCurrency: order.toCurrency,
          fromAmount: units(order.fromAmount, order.fromCurrency),
          toAmount: order.toAmount === null ? null : units(order.toAmount, order.toCurrency),
          orderType: typeName(order.orderType),
          price:
            order.priceNum === null || order.priceDen === null
              ? null
              : priceOfRatio(pair, order.priceNum, order.priceDen),
          base: order.base,
          quote: order.quote,
          given: units(order.given, order.fromCurrency),
          received: units(order.received, order.toCurrency),
          fee: units(order.fee, order.toCurrency),
          locked: units(order.locked, order.fromCurrency),
          state: stateName(order.state),
          stateCode: order.state,
          typeTx: order.typeTx,
          tag: order.tag,
          createdAt: order.createdAt.toISOString(),
          updatedAt: order.updatedAt.toISOString()
        }
      }

      const requireRoom = Effect.fnUntraced(function* (walletId: string, roomKey: string, pair: Pair) {
        if (roomKey === "0") return
        const room = yield* db(findRoom(roomKey))
        if (room === undefined || room.closedAt !== null || !(yield* db(isMember(roomKey, walletId)))) {
          return yield* new RoomNotFound({ message: `roomKey: no open room ${roomKey} this wallet belongs to` })
        }
        const traded = new Set([room.currency1, room.currency2])
        if (!traded.has(pair.base) || !traded.has(pair.quote)) {
          return yield* new InvalidRequest({
            message: `roomKey: room ${roomKey} trades ${room.currency1}/${room.currency2}`
          })
        }
      })

      const create = Effect.fn("ExchangeOrders.create")(function* (walletId: string, input: NewOrderInfo) {
        if (input.clientNonce === undefined || input.clientNonce === null) {
          return yield* new InvalidRequest({ message: "clientNonce: required (fresh per request)" })
        }
        const wallet = yield* db(walletById(walletId))
        if (wallet === undefined)
          return yield* new WalletNotFound({ message: "sid: the session's wallet no longer exists" })
        if ((wallet.flags & exchangeBlockingFlags) !== 0) {
          return yield* new WalletBlocked({ message: "wallet: blocked (WalletBlock or Deleted)" })
        }
        const pair = yield* pairOf(input.fromCurrency, input.toCurrency)
        const from = currencies.find(input.fromCurrency) as Currency,
          to = currencies.find(input.toCurrency) as Currency
        const fromMinor = yield* currencies.toMinor(input.fromAmount, from, "fromAmount")
        const toMinor =
          input.toAmount === undefined || input.toAmount === null
            ? null
            : yield* currencies.toMinor(input.toAmount, to, "toAmount")
        const isLimit = input.isLimit ?? true
        if (isLimit && toMinor === null)
          return yield* new InvalidAmount({
            message: "toAmount: required for a limit order (price = toAmount / fromAmount)"
          })
        const roomKey = input.roomKey ?? "0"
        yield* requireRoom(walletId, roomKey, pair)
        // A market buy without toAmount spends fromAmount at the makers' prices (no lot bound of its own).
        const mapped = mapOrderForm(pair, {
          fromCurrency: from.code,
          toCurrency: to.code,
          fromAmount: input.fromAmount,
          toAmount: input.toAmount ?? null,
          isLimit,
          postOnly: input.postOnly ?? false
        })
        if (!mapped.ok) {
          return yield* new InvalidAmount({
            message: `fromAmount: amounts trade in whole steps (${pair.base} 10^-${pair.baseDecimals}, ${pair.quote} 10^-${pair.priceDecimals}), fewer than 2^53 of them`
          })
        }
        const priceNum = mapped.num === undefined ? null : BigInt(mapped.num)
        const priceDen = mapped.den === undefined ? null : BigInt(mapped.den)
        const priceTicks =
          priceNum === null || priceDen === null ? null : ticksOfRatio(pair, priceNum, priceDen, mapped.side === "sell")
        const side = mapped.side === "sell" ? SIDE_SELL : 0
        const orderType = !isLimit ? OrderType.Market : input.postOnly === true ? OrderType.LimitOnly : OrderType.Limit
        const quantity = mapped.quantity !== undefined ? BigInt(mapped.quantity) : UNBOUNDED_LOTS
        const id = ticks.next()
        const typeTx = side === SIDE_SELL ? TxType.ExchangeToBroker : TxType.ExchangeFromBroker
        const wid = BigInt(walletId)
        yield* walletActor(walletId)
          .LockForOrder({
            order: {
              orderId: asTxId(id),
              roomKey: BigInt(roomKey),
              base: pair.base,
              quote: pair.quote,
              side,
              orderType,
              priceNum,
              priceDen,
              priceTicks,
              quantityLots: quantity,
              fromCurrency: from.code,
              toCurrency: to.code,
              fromAmount: fromMinor,
              toAmount: toMinor,
              tag: input.tag ?? null,
              clientNonce: BigInt(input.clientNonce)
            },
            maxActive: config.maxActiveOrdersPerWallet
          })
          .pipe(delivered)
        const figures = yield* roomActor(roomEntityId(roomKey, pair.base, pair.quote))
          .Match({ orderId: asTxId(id) })
          .pipe(delivered)
        // The answer is built from what was placed and the room's figures: no read back.
        const now = new Date()
        return toOut({
          id,
          walletId: wid,
          walletGroup: wallet.walletGroup,
          typeTx,
          roomKey: BigInt(roomKey),
          base: pair.base,
          quote: pair.quote,
          side,
          orderType,
          priceTicks,
          priceNum,
          priceDen,
          quantityLots: quantity,
          remainingLots: figures.remainingLots,
          fromCurrency: from.code,
          toCurrency: to.code,
          fromAmount: fromMinor,
          toAmount: toMinor,
          locked: figures.locked,
          given: figures.given,
          received: figures.received,
          fee: figures.fee,
          state: figures.state,
          seq: null,
          tag: input.tag ?? null,
          createdAt: dateOfTimetick(id),
          updatedAt: now
        })
      })

      const cancel = Effect.fn("ExchangeOrders.cancel")(function* (walletId: string, orderId: string) {
        const row = yield* db(findOrder(orderId))
        if (row === undefined || String(row.walletId) !== walletId)
          return yield* new OrderNotFound({ message: `id: no order ${orderId} of this wallet` })
        if (row.state !== 1) return yield* new OrderNotActive({ message: `id: order ${orderId} is no longer open` })
        yield* roomActor(roomEntityId(String(row.roomKey), row.base, row.quote))
          .Cancel({ orderId: asTxId(row.id), walletId: asWalletId(walletId) })
          .pipe(delivered)
        return toOut((yield* db(findOrder(orderId)))!)
      })

      const list = Effect.fn("ExchangeOrders.list")(function* (walletId: string, query: OrderQuery) {
        const endGiven = yield* dateParam(query.end, "end")
        const startGiven = yield* dateParam(query.start, "start")
        const end = endGiven ?? new Date(Date.now() + 1000)
        const start = startGiven ?? new Date(end.getTime() - limits.ordersWindowDays * 86_400_000)
        if (start.getTime() > end.getTime())
          return yield* new InvalidRequest({ message: "start: must not be after end" })
        const rows = yield* db(
          listOrders({
            walletId,
            fromCurrency: query.currencyFrom,
            toCurrency: query.currencyTo,
            roomKey: query.roomKey,
            start,
            end,
            beforeId: query.fromOrderId,
            states: query.states?.map((name) => orderStateCodes[name]),
            limit: Math.min(query.limit ?? limits.ordersPageMax, limits.ordersPageMax)
          })
        )
        return rows.map(toOut)
      })

      const find = (walletId: string, orderId: string) =>
        Effect.map(db(findOrder(orderId)), (row) =>
          row === undefined || String(row.walletId) !== walletId ? undefined : toOut(row)
        )

      return ExchangeOrders.of({
        create: create as any,
        cancel: cancel as any,
        list: list as any,
        find,
        pairOf: pairOf as any
      })
    })
  )
}
