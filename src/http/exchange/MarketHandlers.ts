/** Market (session): thin handlers over the exchange services (orders, rooms, book view, swaps). */
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../../../schema/Api.ts"
import { ok } from "../../../schema/Envelope.ts"
import { CurrentSession } from "../../../schema/Security.ts"
import { Currencies } from "../../platform/Currencies.ts"
import { ExchangeOrders } from "../../services/exchange/ExchangeOrders.ts"
import { MarketData } from "../../services/exchange/MarketData.ts"
import { crossRate, Rates } from "../../services/exchange/Rates.ts"
import { Rooms } from "../../services/exchange/Rooms.ts"
import { Swaps } from "../../services/exchange/Swaps.ts"
import { rateOut } from "../general/PrivateHandlers.ts"
import { twoStep } from "../general/TwoStep.ts"

export const MarketHandlers = HttpApiBuilder.group(
  Api,
  "market",
  Effect.fn(function* (handlers) {
    const currencies = yield* Currencies
    const rates = yield* Rates
    const orders = yield* ExchangeOrders
    const rooms = yield* Rooms
    const market = yield* MarketData
    const swaps = yield* Swaps
    return handlers
      .handle("get_rates", ({ query }) =>
        Effect.gen(function* () {
          const to = yield* currencies.require(query.to ?? currencies.base().code, "to")
          const from =
            query.from ??
            currencies
              .all()
              .filter((c) => c.code !== to.code)
              .map((c) => c.code)
          for (const code of from) yield* currencies.require(code, "from")
          const table = yield* rates.table()
          return yield* ok(
            from.flatMap((code) => {
              const rate = crossRate(table, code, to.code)
              return rate === undefined ? [] : [rateOut(rate)]
            })
          )
        })
      )
      .handle("get_trade_info", ({ query }) =>
        CurrentSession.use((s) =>
          Effect.flatMap(
            market.tradeInfo(
              s.walletId,
              query.currency_from,
              query.currency_to,
              query.room_key ?? "0",
              query.results_limit ?? 20
            ),
            ok
          )
        )
      )
      .handle("get_orders", ({ query }) =>
        CurrentSession.use((s) =>
          Effect.flatMap(
            orders.list(s.walletId, {
              currencyFrom: query.currency_from,
              currencyTo: query.currency_to,
              roomKey: query.room_key,
              start: query.start,
              end: query.end,
              fromOrderId: query.from_order_id,
              limit: query.limit,
              states:
                query.ord_states === undefined
                  ? undefined
                  : typeof query.ord_states === "string"
                    ? [query.ord_states]
                    : query.ord_states
            }),
            ok
          )
        )
      )
      .handle("create_order", ({ payload }) =>
        CurrentSession.use((s) => Effect.flatMap(orders.create(s.walletId, payload), ok))
      )
      .handle("cancel_order", ({ query }) =>
        CurrentSession.use((s) => Effect.flatMap(orders.cancel(s.walletId, query.id), ok))
      )
      .handle("list_rooms", () => CurrentSession.use((s) => Effect.flatMap(rooms.list(s.walletId), ok)))
      .handle("create_room", ({ payload }) =>
        CurrentSession.use((s) => Effect.flatMap(rooms.create(s.walletId, payload), ok))
      )
      .handle("close_room", ({ query }) =>
        CurrentSession.use((s) => Effect.flatMap(rooms.close(s.walletId, query.roomId), ok))
      )
      .handle("create_swap", ({ payload, query, headers }) =>
        CurrentSession.use((s) =>
          Effect.flatMap(
            twoStep(s, { query, headers }, (sender) => swaps.begin(sender, payload), swaps.confirm),
            ok
          )
        )
      )
      .handle("swap_info", ({ query }) =>
        CurrentSession.use((s) => Effect.flatMap(swaps.info(s.walletId, query.currency_from, query.currency_to), ok))
      )
  })
)
