/** Handlers of payout orders (schema/api/PayoutsApi.ts): put_transfer_order and pay_transfer. */
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../../../schema/Api.ts"
import { ok } from "../../../schema/Envelope.ts"
import { CurrentApp } from "../../../schema/Security.ts"
import { PaymentPayouts } from "../../services/payments/PaymentPayouts.ts"

export const PayoutsHandlers = HttpApiBuilder.group(
  Api,
  "payouts",
  Effect.fn(function* (handlers) {
    const payouts = yield* PaymentPayouts
    return handlers.handle("put_transfer_order", ({ payload }) =>
      CurrentApp.use((app) => Effect.flatMap(payouts.put(app, payload), ok))
    )
  })
)

export const PayoutGateHandlers = HttpApiBuilder.group(
  Api,
  "payoutGate",
  Effect.fn(function* (handlers) {
    const payouts = yield* PaymentPayouts
    return handlers.handle("pay_transfer", ({ query, payload }) =>
      Effect.flatMap(
        payouts.payTransfer(query.code, {
          tokenNetworkId: payload.tokenNetworkId === undefined ? undefined : String(payload.tokenNetworkId),
          recipient: payload.recipient,
          meta: payload.meta
        }),
        ok
      )
    )
  })
)
