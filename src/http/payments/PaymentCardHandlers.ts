/** Card payments' API actions (C16 pay_card, create_acquiring_order, pending_acquiring_txs): thin calls into PaymentCards. */
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../../../schema/Api.ts"
import { ok } from "../../../schema/Envelope.ts"
import { InvalidRequest } from "../../../schema/Errors.ts"
import { PaymentCards } from "../../services/payments/acquiring/PaymentCards.ts"

export const PaymentCardHandlers = HttpApiBuilder.group(
  Api,
  "paymentCard",
  Effect.fn(function* (handlers) {
    const cards = yield* PaymentCards
    return handlers.handle("pay_card", ({ query, payload }) =>
      Effect.flatMap(cards.payCard(query.code, String(payload.tokenNetworkId)), ok)
    )
  })
)

export const PrivateAcquiringHandlers = HttpApiBuilder.group(
  Api,
  "privateAcquiring",
  Effect.fn(function* (handlers) {
    const cards = yield* PaymentCards
    return handlers
      .handle("create_acquiring_order", ({ payload }) => Effect.flatMap(cards.createAcquiringOrder(payload), ok))
      .handle("pending_acquiring_txs", ({ query }) => {
        const limit = query.limit === undefined ? 100 : /^[0-9]{1,4}$/.test(query.limit) ? Number(query.limit) : 0
        if (limit < 1 || limit > 1000) return Effect.fail(new InvalidRequest({ message: "limit: 1 to 1000" }))
        return Effect.flatMap(cards.pending(limit), ok)
      })
  })
)
