/**
 * POST /auth/v1/app/federation_webhook?partner=<partnerId> (CONTRACT C18): a partner's signed C16
 * merchant webhook. A plain route, not an HttpApi endpoint, because the signature covers the raw body
 * bytes as sent; the checks and the outcome are FederationWebhook.accept's.
 */
import { Effect } from "effect"
import { HttpRouter, HttpServerRequest } from "effect/http"
import { FederationWebhook } from "../../services/federation/FederationWebhook.ts"
import { answer } from "../payments/acquirer/Responses.ts"

const header = (request: HttpServerRequest.HttpServerRequest, name: string): string | undefined => {
  const value = request.headers[name]
  return typeof value === "string" ? value : undefined
}

export const FederationWebhookRoute = HttpRouter.use((router) =>
  Effect.gen(function* () {
    const hooks = yield* FederationWebhook
    yield* router.add("POST", "/auth/v1/app/federation_webhook", (request) =>
      Effect.gen(function* () {
        const body = yield* request.text
        const partner = new URL(request.url, "http://localhost").searchParams.get("partner")
        return yield* answer(
          hooks.accept({
            partnerId: partner ?? undefined,
            timestamp: header(request, "x-webhook-timestamp"),
            signature: header(request, "x-webhook-signature"),
            body
          })
        )
      })
    )
  })
)
