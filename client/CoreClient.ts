/**
 * The typed client (issue #28): derived from the same `schema/` HttpApi the server serves, so a renamed
 * field or endpoint is a compile error on both sides. `CoreClient.layer(options)` gives the Effect client
 * (one property per area group, one method per endpoint, typed errors); client/PromiseClient.ts wraps it
 * in promises for callers who do not use Effect.
 *
 * The wire envelope (`{ result, error, id }`, CONTRACT C4) is the endpoints' declared success shape, so a
 * success decodes as declared. An error answer carries `{ code, message }`; the client turns the code back
 * into the error's tag (schema/Errors.ts holds one code per tag) so it decodes into the endpoint's typed
 * error (`WalletNotFound`, `BalanceNotEnough`, …) with the server's message.
 */
import { Context, Effect, Layer } from "effect"
import { FetchHttpClient, HttpClient, HttpClientRequest, HttpClientResponse } from "effect/http"
import { HttpApiClient, HttpApiMiddleware } from "effect/http-api"
import { Api } from "../schema/Api.ts"
import { errorCodes } from "../schema/Errors.ts"
import { MerchantAuth, ServiceAuth, SessionAuth } from "../schema/Security.ts"

/** Where the service is and who is calling; each credential is used by the areas that take it. */
export interface ClientOptions {
  /** The service's base URL, e.g. `http://127.0.0.1:8080`. */
  readonly baseUrl: string
  /** A wallet user's session (the `sid` cookie): `/core/v1/`. */
  readonly sid?: string | undefined
  /** A merchant's app key (the `pkey` header; `app_id` goes in each call's query): `/payorders/v1/`. */
  readonly pkey?: string | undefined
  /** A service key (`Authorization: Bearer`): `/private/v1/`. */
  readonly serviceKey?: string | undefined
  /** Sent as `Origin` (C19 §3 lets a non-browser caller omit it; a front end names its own). */
  readonly origin?: string | undefined
}

const tagOfCode = new Map<number, string>(
  Object.entries(errorCodes as Record<string, readonly [number, number]>).map(([tag, [code]]) => [code, tag])
)

/** An error envelope as the `{ _tag, message }` body HttpApi's decoder reads; anything else unchanged. */
export const untagEnvelope = (body: unknown): unknown => {
  if (body === null || typeof body !== "object" || !("error" in body)) return body
  const error = (body as { error: unknown }).error
  if (error === null || typeof error !== "object") return body
  const { code, message } = error as { code?: unknown; message?: unknown }
  const tag = typeof code === "number" ? tagOfCode.get(code) : undefined
  return tag === undefined ? body : { _tag: tag, message: typeof message === "string" ? message : "" }
}

const decoder = new TextDecoder()

const untagErrors = (response: HttpClientResponse.HttpClientResponse) =>
  response.status < 400
    ? Effect.succeed(response)
    : Effect.map(response.arrayBuffer, (bytes) => {
        let body: unknown
        try {
          body = JSON.parse(decoder.decode(bytes))
        } catch {
          body = undefined
        }
        const headers = new Headers(response.headers as Record<string, string>)
        headers.set("content-type", "application/json")
        const text = body === undefined ? decoder.decode(bytes) : JSON.stringify(untagEnvelope(body))
        return HttpClientResponse.fromWeb(response.request, new Response(text, { status: response.status, headers }))
      })

const middlewareLayers = (options: ClientOptions) =>
  Layer.mergeAll(
    HttpApiMiddleware.layerClient(SessionAuth, ({ next, request }) =>
      next(options.sid === undefined ? request : HttpClientRequest.setHeader(request, "cookie", `sid=${options.sid}`))
    ),
    HttpApiMiddleware.layerClient(MerchantAuth, ({ next, request }) =>
      next(options.pkey === undefined ? request : HttpClientRequest.setHeader(request, "pkey", options.pkey))
    ),
    HttpApiMiddleware.layerClient(ServiceAuth, ({ next, request }) =>
      next(options.serviceKey === undefined ? request : HttpClientRequest.bearerToken(request, options.serviceKey))
    )
  )

const makeClient = (options: ClientOptions) =>
  HttpApiClient.make(Api, {
    baseUrl: options.baseUrl,
    transformClient: (client) =>
      client.pipe(
        HttpClient.mapRequest((request) =>
          options.origin === undefined ? request : HttpClientRequest.setHeader(request, "origin", options.origin)
        ),
        HttpClient.transformResponse(Effect.flatMap(untagErrors))
      )
  })

export type CoreApi = Effect.Success<ReturnType<typeof makeClient>>

export class CoreClient extends Context.Service<CoreClient, CoreApi>()("core-wallet/CoreClient") {
  /** The client for these options, over the platform's fetch. */
  static readonly layer = (options: ClientOptions): Layer.Layer<CoreClient> =>
    Layer.effect(CoreClient, makeClient(options)).pipe(
      Layer.provide(middlewareLayers(options)),
      Layer.provide(FetchHttpClient.layer)
    )
}
