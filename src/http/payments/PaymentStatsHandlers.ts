/** Daily payment statistics: the session's own app (my_payment_stats) and any or all apps (payment_stat_get). */
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../../../schema/Api.ts"
import { ok } from "../../../schema/Envelope.ts"
import { CurrentSession } from "../../../schema/Security.ts"
import { PaymentStats } from "../../services/payments/PaymentStats.ts"

export const PaymentStatsHandlers = HttpApiBuilder.group(
  Api,
  "paymentStats",
  Effect.fn(function* (handlers) {
    const stats = yield* PaymentStats
    return handlers.handle("my_payment_stats", ({ query }) =>
      CurrentSession.use((session) => Effect.flatMap(stats.ofOwnApp(session.walletId, query.appId, query), ok))
    )
  })
)

export const PrivatePaymentStatsHandlers = HttpApiBuilder.group(
  Api,
  "privatePaymentStats",
  Effect.fn(function* (handlers) {
    const stats = yield* PaymentStats
    return handlers.handle("payment_stat_get", ({ query }) => Effect.flatMap(stats.ofApps(query.appId, query), ok))
  })
)
