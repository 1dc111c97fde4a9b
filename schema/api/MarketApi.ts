/** Market (session) `/core/v1/market/`: rates, orders, rooms, the book view and the instant swap. */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { Envelope } from "../Envelope.ts"
import {
  BalanceNotEnough,
  ConfirmationExpired,
  ConfirmationFailed,
  CurrencyNotEnabled,
  InvalidAmount,
  InvalidRequest,
  MaxActiveOrdersExceeded,
  MaxRoomsExceeded,
  NonceExists,
  NotRoomOwner,
  OrderNotActive,
  OrderNotFound,
  OrderWouldMatch,
  RateLimited,
  RateNotFound,
  RoomNotFound,
  SwapDrift,
  TooManyDecimals,
  TransactionNotPending,
  UnknownCurrency,
  WalletBlocked,
  WalletNotFound
} from "../Errors.ts"
import {
  GetOrdersQuery,
  NewOrderInfo,
  RoomKey,
  OrderOut,
  PairQuery,
  RoomIn,
  RoomOut,
  SwapInfoOut,
  TradeInfoOut
} from "../Exchange.ts"
import { Int64String } from "../Ids.ts"
import { CurrencyCode, RateOut } from "../Reference.ts"
import { SessionAuth } from "../Security.ts"
import { ConfirmQuery, CreateTransactOut, TwoFactorHeaders } from "../Transfer.ts"

const PairErrors = [UnknownCurrency, CurrencyNotEnabled, InvalidRequest] as const

export class MarketApi extends HttpApiGroup.make("market")
  .add(
    HttpApiEndpoint.get("get_rates", "/get_rates", {
      query: {
        to: Schema.optional(CurrencyCode).annotate({ description: "Target currency, default EUR" }),
        from: Schema.optional(Schema.Array(CurrencyCode).check(Schema.isMaxLength(100))).annotate({
          description: "Repeated source currencies; omitted means all available"
        })
      },
      success: Envelope(Schema.Array(RateOut)),
      error: UnknownCurrency
    }),
    HttpApiEndpoint.get("get_trade_info", "/get_trade_info", {
      query: {
        ...PairQuery,
        room_key: Schema.optional(RoomKey),
        results_limit: Schema.optional(
          Schema.NumberFromString.check(Schema.isInt(), Schema.isBetween({ minimum: 1, maximum: 100 }))
        )
      },
      success: Envelope(TradeInfoOut),
      error: [...PairErrors, RoomNotFound]
    }).annotateMerge(
      OpenApi.annotations({
        description:
          "Aggregated book (CONTRACT C14): asks give currency_from, bids give currency_to; prices in currency_to per currency_from"
      })
    ),
    HttpApiEndpoint.get("get_orders", "/get_orders", {
      query: GetOrdersQuery,
      success: Envelope(Schema.Array(OrderOut)),
      error: InvalidRequest
    }).annotateMerge(
      OpenApi.annotations({
        description: "Newest first, at most 100; default window the last 90 days; from_order_id exclusive"
      })
    ),
    HttpApiEndpoint.post("create_order", "/create_order", {
      payload: NewOrderInfo,
      success: Envelope(OrderOut),
      error: [
        ...PairErrors,
        BalanceNotEnough,
        InvalidAmount,
        MaxActiveOrdersExceeded,
        NonceExists,
        OrderWouldMatch,
        RateLimited,
        RoomNotFound,
        TooManyDecimals,
        WalletBlocked,
        WalletNotFound
      ]
    }).annotateMerge(
      OpenApi.annotations({
        description:
          "Locks fromAmount (lock_orders), matches at the makers' prices, rests the remainder (Limit) or cancels it (Market)"
      })
    ),
    HttpApiEndpoint.post("cancel_order", "/cancel_order", {
      query: { id: Int64String },
      success: Envelope(OrderOut),
      error: [OrderNotFound, OrderNotActive, RateLimited]
    }),
    HttpApiEndpoint.get("list_rooms", "/list_rooms", { success: Envelope(Schema.Array(RoomOut)) }),
    HttpApiEndpoint.post("create_room", "/create_room", {
      payload: RoomIn,
      success: Envelope(RoomOut),
      error: [...PairErrors, MaxRoomsExceeded]
    }),
    HttpApiEndpoint.post("close_room", "/close_room", {
      query: { roomId: Int64String },
      success: Envelope(Schema.Struct({ roomKey: Schema.String, cancelledOrders: Schema.Int })),
      error: [RoomNotFound, NotRoomOwner, RateLimited]
    }),
    HttpApiEndpoint.post("create_swap", "/create_swap", {
      query: ConfirmQuery,
      headers: TwoFactorHeaders,
      payload: NewOrderInfo,
      success: Envelope(CreateTransactOut),
      error: [
        ...PairErrors,
        BalanceNotEnough,
        ConfirmationExpired,
        ConfirmationFailed,
        InvalidAmount,
        NonceExists,
        RateLimited,
        RateNotFound,
        SwapDrift,
        TooManyDecimals,
        TransactionNotPending,
        WalletBlocked,
        WalletNotFound
      ]
    }).annotateMerge(
      OpenApi.annotations({
        description:
          "Two-step. Step one reserves fromAmount and answers CreateTransactOut (fee in toCurrency); step two (confirmationTimetick, confirmationCode) executes against the Broker"
      })
    ),
    HttpApiEndpoint.get("swap_info", "/swap_info", {
      query: PairQuery,
      success: Envelope(SwapInfoOut),
      error: [...PairErrors, RateNotFound]
    })
  )
  .middleware(SessionAuth)
  .prefix("/core/v1/market")
  .annotateMerge(OpenApi.annotations({ title: "Market", description: "Session: rates, orders, rooms, swaps" })) {}
