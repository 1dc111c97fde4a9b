/** Private payment actions (CONTRACT C16 "Private payment actions"): thin calls into PaymentOrders (and PaymentRefunds for an order's refunds). */
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../../../schema/Api.ts"
import { ok } from "../../../schema/Envelope.ts"
import { MerchantWebhooks } from "../../services/payments/MerchantWebhooks.ts"
import { PaymentOrders } from "../../services/payments/PaymentOrders.ts"
import { PaymentRefunds } from "../../services/payments/PaymentRefunds.ts"

export const PrivatePaymentsHandlers = HttpApiBuilder.group(
  Api,
  "privatePayments",
  Effect.fn(function* (handlers) {
    const orders = yield* PaymentOrders
    const refunds = yield* PaymentRefunds
    const hooks = yield* MerchantWebhooks
    return handlers
      .handle("create_payment_order", ({ payload }) => {
        const { appId, ...input } = payload
        return Effect.flatMap(orders.create(String(appId), input), ok)
      })
      .handle("get_payment_order_info", ({ query }) =>
        Effect.gen(function* () {
          const order = yield* orders.detail({ code: query.code, id: query.id })
          return yield* ok({ ...order, refunds: yield* refunds.ofOrder(order.id) })
        })
      )
      .handle("get_payment_terminals", ({ query }) => Effect.flatMap(orders.terminals(query.code), ok))
      .handle("set_app_webhook", ({ payload }) => Effect.flatMap(hooks.setAppWebhook(payload), ok))
  })
)
