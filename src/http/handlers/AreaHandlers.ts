/** Handlers of the areas whose full capability arrives with later issues: market rates, investments' reads, merchant feed, gate terminals. */
import { BigNumber } from "bignumber.js"
import { Effect } from "effect"
import { HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../../../schema/Api.ts"
import { ok, okCursor, RequestId } from "../../../schema/Envelope.ts"
import { FieldRuleViolated } from "../../../schema/Errors.ts"
import { TerminalFlag } from "../../../schema/Reference.ts"
import { CurrentApp, CurrentSession } from "../../../schema/Security.ts"
import { Currencies } from "../../platform/Currencies.ts"
import { crossRate, Rates } from "../../services/Rates.ts"
import { Tariffs } from "../../platform/Tariffs.ts"
import { Terminals } from "../../services/Terminals.ts"
import { Investments } from "../../services/Investments.ts"
import { longPollDefaultSeconds } from "../../services/Feeds.ts"
import { MerchantFeed } from "../../services/MerchantFeed.ts"
import { PaymentOrders } from "../../services/PaymentOrders.ts"
import { rateOut } from "./PrivateHandlers.ts"

const DAY_MS = 86_400_000
const investmentTypes: Record<string, number> = { None: 0, interest_on_balance: 1 }

export const InvestHandlers = HttpApiBuilder.group(
  Api,
  "invest",
  Effect.fn(function* (handlers) {
    const investments = yield* Investments
    return handlers
      .handle("get_investments", ({ query }) =>
        Effect.gen(function* () {
          const session = yield* CurrentSession
          const end =
            query.end !== undefined ? new Date(`${query.end}T00:00:00Z`).getTime() + DAY_MS : Date.now() + DAY_MS
          const start = query.start !== undefined ? new Date(`${query.start}T00:00:00Z`).getTime() : end - 366 * DAY_MS
          if (!(start < end) || end - start > 3660 * DAY_MS) {
            return yield* new FieldRuleViolated({
              message: "start/end: start must be before end, at most ten years apart"
            })
          }
          const types = query.investment_types?.map((name) => investmentTypes[name])
          return yield* ok(yield* investments.ofWallet(session.walletId, new Date(start), new Date(end), types))
        })
      )
      .handle("get_investment_info", ({ query }) =>
        CurrentSession.use((session) =>
          Effect.flatMap(investments.ofWalletById(session.walletId, query.investment_id), ok)
        )
      )
  })
)

export const PayordersHandlers = HttpApiBuilder.group(
  Api,
  "payorders",
  Effect.fn(function* (handlers) {
    const feed = yield* MerchantFeed
    const orders = yield* PaymentOrders
    return handlers
      .handle("get_app_payments", ({ query }) =>
        CurrentApp.use((app) =>
          Effect.flatMap(feed.page(app.appId, query.cursor), (page) => okCursor(page.rows, page.cursor))
        )
      )
      .handle("wait_app_payment", ({ query }) =>
        CurrentApp.use((app) =>
          Effect.gen(function* () {
            const page = yield* feed.wait(app.appId, query.cursor, query.timeout ?? longPollDefaultSeconds)
            const id = yield* RequestId.useSync((n) => n)
            return HttpServerResponse.jsonUnsafe(
              { result: page.rows, error: null, id, cursor: page.cursor },
              { status: page.moved ? 200 : 202 }
            )
          })
        )
      )
      .handle("put_payment_order", ({ payload }) =>
        CurrentApp.use((app) => Effect.flatMap(orders.put(app, payload), ok))
      )
      .handle("get_app_payment", ({ query }) =>
        CurrentApp.use((app) => Effect.flatMap(orders.get(app.appId, { code: query.code, id: query.id }), ok))
      )
      .handle("cancel_payment_order", ({ query }) =>
        CurrentApp.use((app) => Effect.flatMap(orders.cancel(app.appId, { code: query.code, id: query.id }), ok))
      )
  })
)

export const PaymentHandlers = HttpApiBuilder.group(
  Api,
  "payment",
  Effect.fn(function* (handlers) {
    const terminals = yield* Terminals
    const tariffs = yield* Tariffs
    const currencies = yield* Currencies
    const orders = yield* PaymentOrders
    return handlers
      .handle("get_order_info", ({ query }) => Effect.flatMap(orders.info(query.code), ok))
      .handle("order_start", ({ query, payload }) =>
        Effect.flatMap(orders.start(query.code, String(payload.tokenNetworkId)), ok)
      )
      .handle("payment_order_start", ({ query, payload }) =>
        Effect.flatMap(orders.start(query.code, String(payload.tokenNetworkId)), ok)
      )
      .handle("get_terminals", ({ query }) =>
        Effect.gen(function* () {
          const rows = (yield* terminals.all()).filter(
            (row) => !row.builtIn && (row.flags & TerminalFlag.Hidden) === 0 && (row.flags & TerminalFlag.Deposit) !== 0
          )
          const rules = yield* tariffs.list()
          return yield* ok(
            rows.map((row) => {
              const rule = rules.find(
                (r) => r.txClass === "Payment" && r.currency === row.currency && r.walletGroup === null
              )
              const decimals = currencies.find(row.currency ?? "")?.decimals ?? 0
              const num = (text: string | null) =>
                text === null ? null : Number(new BigNumber(text).decimalPlaces(decimals).toFixed())
              return {
                id: String(row.id) as any,
                displayName: row.displayName ?? row.currency ?? "",
                iconCode: row.iconCode,
                currency: row.currency ?? "",
                typeNetwork: row.typeNetwork,
                feeFixed: num(rule?.feeFixed ?? "0") ?? 0,
                feePercent: Number(rule?.feePercent ?? 0),
                minAmount: num(rule?.minAmount ?? null),
                maxAmount: num(rule?.maxAmount ?? null),
                available: true,
                sameAsOrderCurrency: query.currency !== undefined && query.currency === row.currency,
                requiresAuth: false
              }
            })
          )
        })
      )
  })
)

export const PaymentSessionHandlers = HttpApiBuilder.group(
  Api,
  "paymentSession",
  Effect.fn(function* (handlers) {
    const orders = yield* PaymentOrders
    return handlers.handle("pay_internal", ({ query }) =>
      CurrentSession.use((session) => Effect.flatMap(orders.payInternal(query.code, session.walletId), ok))
    )
  })
)
