/**
 * Market reads (SQL only): the aggregated book (get_trade_info, CONTRACT C14), candles from trades,
 * and order-linked details (order_tx_info). Prices are shown in currency_to per currency_from; a
 * pair stored the other way round is inverted for display only (BigNumber, never in matching).
 * A price shown has at most 12 significant digits (CONTRACT C14): a book level's from its exact
 * ratio, a trade's from the maker's ratio stored to 30 digits (inverted first, then rounded once).
 */
import { baseMinorOf, levelTotal, type Pair, priceOfRatio } from "../../../actors/room/Protocol.ts"
import { BigNumber } from "bignumber.js"
import { Context, Effect, Layer } from "effect"
import { bookLevels, type BookLevel, candles, lastTradeOf, tradesOfOrders } from "../../../sql/OrderRepo.ts"
import { findRoom, isMember } from "../../../sql/RoomRepo.ts"
import { walletById } from "../../../sql/WalletRepo.ts"
import { type CandleOut, type OrderOut, type TradeInfoOut } from "../../../schema/Exchange.ts"
import {
  CurrencyNotEnabled,
  InvalidRequest,
  RoomNotFound,
  TooManyItems,
  UnknownCurrency
} from "../../../schema/Errors.ts"
import { fromMinorUnits } from "../../../schema/Money.ts"
import { limits } from "../../platform/Config.ts"
import { makeDb } from "../../platform/db/Sql.ts"
import { Currencies } from "../../platform/Currencies.ts"
import { dateParam, ExchangeOrders } from "./ExchangeOrders.ts"
import { Rates } from "./Rates.ts"
import { ruleFor, Tariffs } from "../../platform/Tariffs.ts"

const PRICE_DIGITS_SHOWN = 12
// Divided at 40 places, then rounded once to what is shown (no double rounding at the last place).
const Precise = BigNumber.clone({ DECIMAL_PLACES: 40 })
const shown = (price: BigNumber.Value) =>
  new Precise(price).precision(PRICE_DIGITS_SHOWN, BigNumber.ROUND_HALF_EVEN).toFixed()
const invert = (price: string) => shown(new Precise(1).div(price))

export interface OrderTxInfo extends OrderOut {
  readonly fills: ReadonlyArray<{
    readonly role: "taker" | "maker"
    readonly price: string
    readonly amount: string
    readonly total: string
    readonly at: string
  }>
}

type PairError = UnknownCurrency | CurrencyNotEnabled | InvalidRequest

/** A candles query: the pair, its room, the interval in seconds and an optional window. */
export interface CandleQuery {
  readonly from: string
  readonly to: string
  readonly roomKey: string
  readonly interval: number
  readonly start?: string | undefined
  readonly end?: string | undefined
}

export class MarketData extends Context.Service<
  MarketData,
  {
    readonly tradeInfo: (
      walletId: string,
      from: string,
      to: string,
      roomKey: string,
      levels: number
    ) => Effect.Effect<TradeInfoOut, PairError | RoomNotFound>
    readonly candles: (
      walletId: string,
      q: CandleQuery
    ) => Effect.Effect<ReadonlyArray<CandleOut>, PairError | RoomNotFound>
    readonly orderTxInfo: (
      walletId: string,
      ids: ReadonlyArray<string>
    ) => Effect.Effect<ReadonlyArray<OrderTxInfo>, TooManyItems>
  }
>()("core/MarketData") {
  static readonly layer = Layer.effect(
    MarketData,
    Effect.gen(function* () {
      const db = yield* makeDb
      const currencies = yield* Currencies
      const rates = yield* Rates
      const tariffs = yield* Tariffs
      const orders = yield* ExchangeOrders
      const dec = (code: string) => currencies.find(code)?.decimals ?? 0

      const visibleRoom = Effect.fnUntraced(function* (walletId: string, roomKey: string, pair: Pair) {
        if (roomKey === "0") return
        const room = yield* db(findRoom(roomKey))
        const traded =
          room === undefined
            ? false
            : new Set([room.currency1, room.currency2]).has(pair.base) &&
              room.currency1 !== room.currency2 &&
              new Set([room.currency1, room.currency2]).has(pair.quote)
        if (room === undefined || !traded || !(yield* db(isMember(roomKey, walletId)))) {
          return yield* new RoomNotFound({
            message: `room_key: no open room ${roomKey} of this pair this wallet belongs to`
          })
        }
      })

      const tradeInfo = Effect.fn("MarketData.tradeInfo")(function* (
        walletId: string,
        from: string,
        to: string,
        roomKey: string,
        count: number
      ) {
        const pair = yield* orders.pairOf(from, to)
        yield* visibleRoom(walletId, roomKey, pair)
        const forward = from === pair.base
        // Levels of the side giving `from` (asks) and of the side giving `to` (bids).
        const askSide = forward ? 1 : 0,
          bidSide = forward ? 0 : 1
        // A level's total is what one fill of the whole level moves (sells round up, buys down): exact.
        const level =
          (sells: boolean) =>
          ({ priceNum: n, priceDen: d, lots }: BookLevel) => {
            const baseAmount = fromMinorUnits(baseMinorOf(pair, lots), pair.baseMinorDecimals)
            const quoteAmount = fromMinorUnits(levelTotal(pair, n, d, lots, sells), pair.quoteMinorDecimals)
            return forward
              ? { price: priceOfRatio(pair, n, d), amount: baseAmount, total: quoteAmount }
              : { price: priceOfRatio(pair, n, d, true), amount: quoteAmount, total: baseAmount }
          }
        const asks = (yield* db(bookLevels(roomKey, pair.base, pair.quote, askSide, count))).map(level(askSide === 1))
        const bids = (yield* db(bookLevels(roomKey, pair.base, pair.quote, bidSide, count))).map(level(bidSide === 1))
        const rate = yield* rates.rate(from, to)
        const last = yield* db(lastTradeOf(roomKey, pair.base, pair.quote))
        const wallet = yield* db(walletById(walletId))
        const rule = ruleFor(yield* tariffs.list(), {
          txClass: "Exchange",
          currency: to,
          decimals: dec(to),
          amount: 0n,
          walletGroup: wallet?.walletGroup ?? 0
        })
        return {
          currencyFrom: from,
          currencyTo: to,
          roomKey,
          asks,
          bids,
          rate: rate === undefined ? null : rate.rate.toFixed(),
          lastPrice: last === undefined ? null : forward ? shown(last) : invert(last),
          fee: {
            currency: to,
            feePercent: rule === undefined ? "0" : new BigNumber(rule.feePercent).toFixed(),
            feeFixed: rule === undefined ? "0" : new BigNumber(rule.feeFixed).toFixed()
          }
        }
      })

      const candlesOf = Effect.fn("MarketData.candles")(function* (walletId: string, q: CandleQuery) {
        const pair = yield* orders.pairOf(q.from, q.to)
        yield* visibleRoom(walletId, q.roomKey, pair)
        const end = (yield* dateParam(q.end, "end")) ?? new Date()
        const start = (yield* dateParam(q.start, "start")) ?? new Date(end.getTime() - q.interval * 1000 * 100)
        if (start.getTime() >= end.getTime()) return yield* new InvalidRequest({ message: "start: must be before end" })
        if ((end.getTime() - start.getTime()) / 1000 / q.interval > limits.candlesMax) {
          return yield* new InvalidRequest({
            message: `start: the range spans more than ${limits.candlesMax} candles of ${q.interval} s`
          })
        }
        const rows = yield* db(candles(pair.base, pair.quote, q.roomKey, q.interval, start, end, limits.candlesMax))
        const forward = q.from === pair.base
        return rows.map((row): CandleOut => {
          const volume = fromMinorUnits(row.volume, pair.baseMinorDecimals)
          const total = fromMinorUnits(row.total, pair.quoteMinorDecimals)
          const p = shown
          return forward
            ? {
                time: row.bucket.toISOString(),
                open: p(row.open),
                high: p(row.high),
                low: p(row.low),
                close: p(row.close),
                volume,
                total,
                trades: Number(row.trades)
              }
            : {
                time: row.bucket.toISOString(),
                open: invert(row.open),
                high: invert(row.low),
                low: invert(row.high),
                close: invert(row.close),
                volume: total,
                total: volume,
                trades: Number(row.trades)
              }
        })
      })

      const orderTxInfo = Effect.fn("MarketData.orderTxInfo")(function* (walletId: string, ids: ReadonlyArray<string>) {
        if (ids.length > 100) return yield* new TooManyItems({ message: "body: at most 100 ids" })
        const found: Array<OrderOut> = []
        for (const id of ids) {
          const order = yield* orders.find(walletId, id)
          if (order !== undefined) found.push(order)
        }
        const trades = found.length === 0 ? [] : yield* db(tradesOfOrders(found.map((o) => o.id)))
        return found.map((order): OrderTxInfo => {
          const pair = { base: order.base, quote: order.quote }
          return {
            ...order,
            fills: trades
              .filter((t) => String(t.takerOrder) === order.id || String(t.makerOrder) === order.id)
              .map((t) => ({
                role: String(t.takerOrder) === order.id ? ("taker" as const) : ("maker" as const),
                price: shown(t.price),
                amount: fromMinorUnits(t.amount, dec(pair.base)),
                total: fromMinorUnits(t.total, dec(pair.quote)),
                at: t.at.toISOString()
              }))
          }
        })
      })

      return MarketData.of({ tradeInfo: tradeInfo as any, candles: candlesOf as any, orderTxInfo: orderTxInfo as any })
    })
  )
}
