/** The exchange's shapes: orders (NewOrderInfo), rooms, the book view, swaps and candles. */
import { Schema } from "effect"
import { Cursor, Int64, Int64String, isInt64String } from "./Ids.ts"
import { decimalInput, PositiveAmount } from "./Money.ts"
import { CurrencyCode } from "./Reference.ts"

/** Checked against the int64 range too: 19 digits alone would let a key past it reach SQL's bigint. */
export const RoomKey = Schema.String.check(
  Schema.makeFilter<string>(
    (text) =>
      (/^(0|[1-9][0-9]{0,18})$/.test(text) && isInt64String(text)) ||
      "must be 0 or a room's timetick (a 64-bit integer from 1 up)",
    { expected: "a room key" }
  )
).annotate({
  description: "Room key: `0` is the public room of the pair; a private room's key is its timetick"
})

/** SPEC "Order request" (create_order, create_swap). */
export const NewOrderInfo = Schema.Struct({
  fromCurrency: CurrencyCode,
  toCurrency: CurrencyCode,
  fromAmount: PositiveAmount,
  toAmount: Schema.optional(Schema.NullOr(PositiveAmount)).annotate({
    description: "Optional for market orders; required for limit orders and swaps"
  }),
  clientNonce: Schema.optional(Schema.NullOr(Int64)).annotate({
    description: "Fresh per request; unique per wallet (10130 on reuse). Required by create_order"
  }),
  isLimit: Schema.optional(Schema.Boolean).annotate({ description: "Default true" }),
  postOnly: Schema.optional(Schema.Boolean).annotate({ description: "Default false" }),
  roomKey: Schema.optional(RoomKey),
  tag: Schema.optional(Schema.NullOr(Schema.String.check(Schema.isMaxLength(100))))
}).annotate({ identifier: "NewOrderInfo" })
export type NewOrderInfo = typeof NewOrderInfo.Type

export const orderStateNames = ["Active", "Completed", "Canceled", "Finished", "Failed"] as const
export const OrderStateName = Schema.Literals(orderStateNames)
export const orderStateCodes: Record<(typeof orderStateNames)[number], number> = {
  Active: 1,
  Completed: 198,
  Canceled: 199,
  Finished: 200,
  Failed: 255
}

export const OrderOut = Schema.Struct({
  id: Int64String.annotate({ description: "Order timetick; also its transaction id (typeTx 16/17)" }),
  roomKey: Schema.String,
  fromCurrency: Schema.String,
  toCurrency: Schema.String,
  fromAmount: Schema.String,
  toAmount: Schema.NullOr(Schema.String),
  orderType: Schema.Literals(["Limit", "LimitOnly", "Market"]),
  price: Schema.NullOr(Schema.String).annotate({
    description: "Limit price, in quote per base of the pair (see `base`, `quote`)"
  }),
  base: Schema.String,
  quote: Schema.String,
  given: Schema.String.annotate({ description: "fromCurrency given so far" }),
  received: Schema.String.annotate({ description: "toCurrency received so far, net of fee" }),
  fee: Schema.String.annotate({ description: "Fees paid so far, in toCurrency" }),
  locked: Schema.String.annotate({ description: "fromCurrency still locked for this order (lock_orders)" }),
  state: OrderStateName,
  stateCode: Schema.Int,
  typeTx: Schema.Int,
  tag: Schema.NullOr(Schema.String),
  createdAt: Schema.String,
  updatedAt: Schema.String
}).annotate({ identifier: "OrderOut" })
export type OrderOut = typeof OrderOut.Type

const DateText = Schema.String.check(Schema.isPattern(/^\d{4}-\d{2}-\d{2}(T[0-9:.]+(Z|[+-]\d{2}:\d{2})?)?$/)).annotate({
  description: "ISO-8601 date or date-time (UTC when no offset)"
})
const IntParam = (min: number, max: number) =>
  Schema.NumberFromString.check(Schema.isInt(), Schema.isBetween({ minimum: min, maximum: max }))

export const GetOrdersQuery = {
  currency_from: Schema.optional(CurrencyCode),
  currency_to: Schema.optional(CurrencyCode),
  room_key: Schema.optional(RoomKey),
  start: Schema.optional(DateText),
  end: Schema.optional(DateText),
  from_order_id: Schema.optional(Cursor),
  limit: Schema.optional(IntParam(1, 100)),
  ord_states: Schema.optional(Schema.Union([OrderStateName, Schema.Array(OrderStateName).check(Schema.isMaxLength(5))]))
}

export const RoomIn = Schema.Struct({
  currency1: CurrencyCode,
  currency2: CurrencyCode,
  flags: Schema.optional(Schema.Literals([0, 1])).annotate({ description: "RoomFlags: None = 0, IcoMode = 1" }),
  toBalanceLimit: Schema.optional(
    Schema.NullOr(
      decimalInput({ allowZero: true, fractionDigitsMax: 18, description: "Destination-balance cap; persisted only" })
    )
  )
}).annotate({ identifier: "RoomIn" })
export type RoomIn = typeof RoomIn.Type

export const RoomOut = Schema.Struct({
  roomKey: Schema.String,
  currency1: Schema.String,
  currency2: Schema.String,
  flags: Schema.Int,
  toBalanceLimit: Schema.NullOr(Schema.String),
  isOwner: Schema.Boolean,
  shareCode: Schema.String.annotate({ description: "apply_code with this code joins the room" }),
  createdAt: Schema.String
}).annotate({ identifier: "RoomOut" })
export type RoomOut = typeof RoomOut.Type

export const BookLevel = Schema.Struct({ price: Schema.String, amount: Schema.String, total: Schema.String })

export const TradeInfoOut = Schema.Struct({
  currencyFrom: Schema.String,
  currencyTo: Schema.String,
  roomKey: Schema.String,
  asks: Schema.Array(BookLevel).annotate({
    description: "Orders giving currencyFrom for currencyTo, price ascending (currencyTo per currencyFrom)"
  }),
  bids: Schema.Array(BookLevel).annotate({
    description: "Orders giving currencyTo for currencyFrom, price descending"
  }),
  rate: Schema.NullOr(Schema.String).annotate({
    description: "currencyTo per currencyFrom (SPEC rule 7), null when none"
  }),
  lastPrice: Schema.NullOr(Schema.String),
  fee: Schema.Struct({ currency: Schema.String, feePercent: Schema.String, feeFixed: Schema.String })
}).annotate({ identifier: "TradeInfoOut" })
export type TradeInfoOut = typeof TradeInfoOut.Type

export const SwapInfoOut = Schema.Struct({
  currencyFrom: Schema.String,
  currencyTo: Schema.String,
  rate: Schema.String.annotate({ description: "currencyTo per currencyFrom" }),
  minAmount: Schema.String.annotate({ description: "Smallest fromAmount" }),
  maxAmount: Schema.NullOr(Schema.String).annotate({
    description: "Largest fromAmount (tariff bound, and what the session may spend); null = unbounded"
  }),
  feeCurrency: Schema.String,
  feePercent: Schema.String,
  feeFixed: Schema.String,
  driftPct: Schema.String,
  chargebackDays: Schema.Int
}).annotate({ identifier: "SwapInfoOut" })
export type SwapInfoOut = typeof SwapInfoOut.Type

export const PairQuery = { currency_from: CurrencyCode, currency_to: CurrencyCode }

export const candleIntervals = [60, 300, 900, 3600, 14400, 86400] as const
export const CandlesQuery = {
  currency_from: CurrencyCode,
  currency_to: CurrencyCode,
  room_key: Schema.optional(RoomKey),
  interval: Schema.optional(Schema.Literals(candleIntervals.map(String) as ["60"])).annotate({
    description: "Seconds per candle: 60, 300, 900, 3600, 14400, 86400 (default 3600)"
  }),
  start: Schema.optional(DateText),
  end: Schema.optional(DateText)
}

export const CandleOut = Schema.Struct({
  time: Schema.String,
  open: Schema.String,
  high: Schema.String,
  low: Schema.String,
  close: Schema.String,
  volume: Schema.String.annotate({ description: "Traded amount of currency_from" }),
  total: Schema.String.annotate({ description: "Traded amount of currency_to" }),
  trades: Schema.Int
}).annotate({ identifier: "CandleOut" })
export type CandleOut = typeof CandleOut.Type

export const OrderFill = Schema.Struct({
  role: Schema.Literals(["taker", "maker"]),
  price: Schema.String,
  amount: Schema.String,
  total: Schema.String,
  at: Schema.String
})
export const OrderTxInfoOut = Schema.Struct({ ...OrderOut.fields, fills: Schema.Array(OrderFill) }).annotate({
  identifier: "OrderTxInfo"
})
