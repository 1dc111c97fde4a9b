/**
 * Every response is the SPEC envelope (CONTRACT C4). Handlers build successful envelopes; this
 * global middleware numbers each request (envelope `id` and `X-Request-Id`), puts it through the
 * edge's rules (src/http/EdgeRules.ts: media type, browser origin, rate, input, deadline), and turns
 * every failure into an error envelope: declared errors keep their code and status, decode failures
 * become 400/10001 naming the field, unknown routes 404/10404, defects 500/10500 without internals.
 * Every answer is `X-Content-Type-Options: nosniff`, and `Cache-Control: no-store` unless it names its
 * own (the payment page's assets).
 */
import { ByteSize, Cause, Effect, Layer } from "effect"
import { HttpIncomingMessage, HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpApiError } from "effect/http-api"
import { RequestId } from "../../schema/Envelope.ts"
import { codeOf, errorCodes } from "../../schema/Errors.ts"
import { Metrics } from "../platform/monitoring/Metrics.ts"
import { limits } from "../platform/Config.ts"
import { EdgeRules } from "./EdgeRules.ts"
import { nextRequestNumber } from "./RequestNumbers.ts"

/** No request body may exceed this (limits.requestBodyBytesMax); a larger one is refused before it is parsed. */
const bodyBytesMax = ByteSize.bytes(limits.requestBodyBytesMax)

const envelope = (id: number, status: number, code: number, message: string) =>
  HttpServerResponse.jsonUnsafe({ result: null, error: { code, message }, id }, { status })

const decoder = new TextDecoder()

/** An HTML page (the payment page's 404 and 401: src/http/payments/pages/) is an answer for a browser, never an envelope. */
const isPage = (response: HttpServerResponse.HttpServerResponse): boolean =>
  response.body._tag !== "Empty" && (response.body.contentType ?? "").startsWith("text/html")

/** A declared error was encoded by HttpApi as `{ _tag, message }`; re-wrap it. */
const rewrite = (response: HttpServerResponse.HttpServerResponse, id: number) => {
  const body = response.body
  let parsed: any = undefined
  if (body._tag === "Uint8Array") {
    try {
      parsed = JSON.parse(decoder.decode(body.body))
    } catch {
      parsed = undefined
    }
  }
  if (parsed !== null && typeof parsed === "object" && "result" in parsed && "error" in parsed) return response
  const tag = typeof parsed?._tag === "string" ? parsed._tag : undefined
  const code = (tag !== undefined ? codeOf(tag) : undefined) ?? statusCode(response.status)
  const message = typeof parsed?.message === "string" ? parsed.message : defaultMessage(response.status)
  return envelope(id, response.status, code, message)
}

const statusCode = (status: number): number =>
  status === 401
    ? errorCodes.Unauthorized[0]
    : status === 403
      ? errorCodes.Forbidden[0]
      : status === 404
        ? errorCodes.NotFound[0]
        : status === 415
          ? errorCodes.UnsupportedMediaType[0]
          : status === 429
            ? errorCodes.RateLimited[0]
            : status >= 500
              ? errorCodes.InternalError[0]
              : errorCodes.InvalidRequest[0]

const defaultMessage = (status: number): string =>
  status === 401
    ? "missing or invalid credential"
    : status === 403
      ? "forbidden"
      : status === 404
        ? "not found"
        : status === 415
          ? "body: Content-Type must be application/json"
          : status >= 500
            ? "internal error"
            : "invalid request"

/** The schema issue path `[0]["amount"]` as `[0].amount`: keys after a dot, indices in brackets. */
const fieldPath = (at: string): string =>
  Array.from(at.matchAll(/\[(?:"((?:[^"\\]|\\.)*)"|([^\]]*))\]/g), (m) =>
    m[1] !== undefined ? "." + m[1] : `[${m[2]}]`
  ).join("")

/** One line naming the field: "body.walletId: Expected ...", "body[0].amount: ..." */
const describeSchemaError = (error: HttpApiError.HttpApiSchemaError): string => {
  const where = error.kind === "Payload" || error.kind === "Body" ? "body" : error.kind.toLowerCase()
  const text = String(error.cause?.message ?? "invalid").split("\n")
  const at = text.find((line) => line.trim().startsWith("at "))
  const path = at ? fieldPath(at.trim().slice(3)) : ""
  const first = text[0].trim()
  return `${where}${path}: ${first}`.slice(0, 500)
}

const fromCause = (cause: Cause.Cause<unknown>, id: number) => {
  for (const reason of cause.reasons) {
    const value: any = reason._tag === "Fail" ? reason.error : reason._tag === "Die" ? reason.defect : undefined
    if (value === undefined) continue
    if (HttpApiError.HttpApiSchemaError.is(value)) {
      if (value.kind === "Body" || value.kind === "ResponseHeaders") break
      return envelope(id, 400, errorCodes.InvalidRequest[0], describeSchemaError(value))
    }
    if (
      value?._tag === "HttpServerError" ||
      value?._tag === "RouteNotFound" ||
      value?.reason?._tag === "RouteNotFound"
    ) {
      const reasonTag = value.reason?._tag ?? value._tag
      if (reasonTag === "RouteNotFound") return envelope(id, 404, errorCodes.NotFound[0], "no such action")
      if (reasonTag === "RequestParseError") {
        return /maxBytes/.test(String(value.reason?.cause?.message ?? value.reason?.cause ?? value.cause ?? ""))
          ? envelope(id, 413, errorCodes.InvalidRequest[0], `body: larger than ${limits.requestBodyBytesMax} bytes`)
          : envelope(id, 400, errorCodes.InvalidRequest[0], "body: malformed request body")
      }
    }
    if (value?._tag === "HttpApiPayloadTooLarge")
      return envelope(id, 413, errorCodes.InvalidRequest[0], "body: too large")
  }
  if (Cause.hasInterruptsOnly(cause)) return envelope(id, 503, errorCodes.InternalError[0], "request interrupted")
  return undefined
}

/** A path as a metrics route: ids in the path (the sandbox checkout's session) collapse, so series stay bounded. */
const routeOf = (path: string): string =>
  path.startsWith("/acquirer/v1/checkout/") ? "/acquirer/v1/checkout/{acquiringId}" : path

export const EnvelopeMiddleware = HttpRouter.middleware(
  Effect.gen(function* () {
    const metrics = yield* Metrics
    const edge = yield* EdgeRules
    return ((app: Effect.Effect<HttpServerResponse.HttpServerResponse, any, any>) =>
      Effect.suspend(() => {
        const id = nextRequestNumber()
        const started = performance.now()
        return edge.guard(app, id).pipe(
          Effect.provideService(RequestId, id),
          Effect.provideService(HttpIncomingMessage.MaxBodySize, bodyBytesMax),
          Effect.map((response) => (response.status >= 400 && !isPage(response) ? rewrite(response, id) : response)),
          Effect.catchCause((cause) =>
            Effect.suspend(() => {
              const known = fromCause(cause, id)
              if (known !== undefined) return Effect.succeed(known)
              return Effect.as(
                Effect.logError("unexpected failure", cause),
                envelope(id, 500, errorCodes.InternalError[0], "internal error")
              )
            })
          ),
          Effect.flatMap((response) =>
            HttpServerRequest.HttpServerRequest.useSync((request) => {
              const path = request.url.split("?")[0]
              metrics.observeHttp(
                response.status === 404 ? "unmatched" : routeOf(path),
                response.status,
                performance.now() - started
              )
              return HttpServerResponse.setHeaders(response, {
                "x-request-id": String(id),
                "x-content-type-options": "nosniff",
                "cache-control": response.headers["cache-control"] ?? "no-store"
              })
            })
          )
        )
      })) as any
  }),
  { global: true }
)

export const EnvelopeLayer: Layer.Layer<never, never, HttpRouter.HttpRouter | Metrics | EdgeRules> =
  EnvelopeMiddleware as any
