/**
 * The merchant's payment orders (payorders), the payment gate (payment) and the wallet user's side of it
 * (paymentSession), CONTRACT C16.
 */
import { Effect } from "effect"
import { HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../../../schema/Api.ts"
import { ok, okCursor, RequestId } from "../../../schema/Envelope.ts"
import { CurrentApp, CurrentSession } from "../../../schema/Security.ts"
import { longPollDefaultSeconds } from "../../services/ledger/Feeds.ts"
import { MerchantFeed } from "../../services/payments/MerchantFeed.ts"
import { PaymentOrders } from "../../services/payments/PaymentOrders.ts"
import { MerchantWebhooks } from "../../services/payments/MerchantWebhooks.ts"
import { PaymentRefunds } from "../../services/payments/PaymentRefunds.ts"
import { SecondFactorGate } from "../../services/wallets/SecondFactorGate.ts"
import { secondFactorCaller } from "../general/TwoStep.ts"

export const PayordersHandlers = HttpApiBuilder.group(
  Api,
  "payorders",
  Effect.fn(function* (handlers) {
    const feed = yield* MerchantFeed
    const orders = yield* PaymentOrders
    const refunds = yield* PaymentRefunds
    const hooks = yield* MerchantWebhooks
    return handlers
      .handle("get_webhook_deliveries", ({ query }) =>
        CurrentApp.use((app) =>
          Effect.flatMap(orders.get(app.appId, { code: query.code, id: query.id }), (order) =>
            Effect.flatMap(hooks.deliveriesOfOrder(order.id), ok)
          )
        )
      )
      .handle("redeliver_webhook", ({ query }) =>
        CurrentApp.use((app) => Effect.flatMap(hooks.redeliver(app.appId, query.eventId), ok))
      )
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
        CurrentApp.use((app) =>
          Effect.gen(function* () {
            const order = yield* orders.get(app.appId, { code: query.code, id: query.id })
            return yield* ok({ ...order, refunds: yield* refunds.ofOrder(order.id) })
          })
        )
      )
      .handle("refund_payment", ({ payload }) =>
        CurrentApp.use((app) => Effect.flatMap(refunds.refund(app.appId, payload), ok))
      )
      .handle("get_refund_status", ({ query }) =>
        CurrentApp.use((app) =>
          Effect.flatMap(refunds.status(app.appId, { refundId: query.refundId, externalId: query.externalId }), ok)
        )
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
        Effect.flatMap(
          query.code !== undefined ? orders.terminals(query.code) : orders.genericTerminals(query.currency),
          ok
        )
      )
  })
)

export const PaymentSessionHandlers = HttpApiBuilder.group(
  Api,
  "paymentSession",
  Effect.fn(function* (handlers) {
    const orders = yield* PaymentOrders
    const gate = yield* SecondFactorGate
    return handlers.handle("pay_internal", ({ query, headers }) =>
      CurrentSession.use((session) =>
        Effect.flatMap(
          // C19 §4: paying from the wallet takes the second factor under Require2FA.
          gate.guard(
            secondFactorCaller(session, { query, headers }),
            { action: "pay_internal", params: [query.code], required: true },
            orders.payInternal(query.code, session.walletId)
          ),
          ok
        )
      )
    )
  })
)
