/**
 * POST /payment/v1/acquiring_webhook (CONTRACT C16): the acquirer's signed outcome. A plain route, not an
 * HttpApi endpoint, because the signature covers the raw body bytes as sent; the verification and the
 * outcome are PaymentCards.acceptWebhook's.
 */
import { Effect } from "effect"
import { HttpRouter, HttpServerRequest } from "effect/http"
import { PaymentCards } from "../../../services/payments/acquiring/PaymentCards.ts"
import { answer } from "./Responses.ts"

const header = (request: HttpServerRequest.HttpServerRequest, name: string): string | undefined => {
  const value = request.headers[name]
  return typeof value === "string" ? value : undefined
}

export const AcquiringWebhookRoute = HttpRouter.use((router) =>
  Effect.gen(function* () {
    const cards = yield* PaymentCards
    yield* router.add("POST", "/payment/v1/acquiring_webhook", (request) =>
      Effect.gen(function* () {
        const body = yield* request.text
        return yield* answer(
          cards.acceptWebhook({
            timestamp: header(request, "x-acquirer-timestamp"),
            signature: header(request, "x-acquirer-signature"),
            body
          })
        )
      })
    )
  })
)
