/**
 * The rules every request meets before the router (CONTRACT C19 §3, §7, §8), in this order:
 *
 * 1. Media type: a POST, PUT, PATCH or DELETE with a body, or naming a Content-Type, must be
 *    application/json (parameters allowed), else 415 10407. A body without a Content-Type is never
 *    taken for JSON.
 * 2. Browser requests: a non-GET request carrying the `sid` cookie whose Sec-Fetch-Site is present and not
 *    same-origin or none, or whose Origin is present and is neither PUBLIC_BASE_URL's origin nor one of
 *    ALLOWED_ORIGINS, is 403 10406. Neither header (servers, curl): judged by its credential alone.
 * 3. Rate: a route that takes no credential spends a token of the client address (429 10408 with
 *    Retry-After); credentialed routes are counted by the credential middleware (src/http/Auth.ts). A
 *    request any rule here refuses spends one too (its credential was never checked), so refusals are
 *    no way around the limit.
 * 4. Input: a NUL in the path or query, and a JSON body nested too deep or holding a NUL or a lone
 *    surrogate, are 400 10001 naming the field (src/http/InputLimits.ts).
 * 5. Deadline: a request other than a long-poll with no answer within REQUEST_TIMEOUT_SECONDS is 503
 *    10410 (its work is interrupted; a money action may still complete and is read back by its key).
 *
 * Which routes take a credential and which long-poll is read once from the HttpApi definition: an
 * endpoint behind a security middleware is credentialed; one with a `timeout` query parameter long-polls.
 */
import { Context, Effect, Layer, Option } from "effect"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpApi, HttpApiMiddleware } from "effect/http-api"
import { Api } from "../../schema/Api.ts"
import { errorCodes, type ErrorTag } from "../../schema/Errors.ts"
import { AppConfigService } from "../platform/Config.ts"
import { jsonBodyProblem, targetProblem } from "./InputLimits.ts"
import { RateLimits } from "./RateLimits.ts"

/** An envelope refusal with the code and status of `tag` in the one error table. */
export const refusal = (id: number, tag: ErrorTag, message: string, headers?: Record<string, string>) =>
  HttpServerResponse.jsonUnsafe(
    { result: null, error: { code: errorCodes[tag][0], message }, id },
    { status: errorCodes[tag][1], headers }
  )

/** 429 10408 with Retry-After in whole seconds. */
export const rateLimited = (id: number, seconds: number) =>
  refusal(id, "RateLimitExceeded", `too many requests: retry after ${seconds} s`, { "retry-after": String(seconds) })

const bodyMethods: ReadonlySet<string> = new Set(["POST", "PUT", "PATCH", "DELETE"])

type Headers = Readonly<Record<string, string | undefined>>

const hasBody = (headers: Headers): boolean => {
  const length = headers["content-length"]
  return (length !== undefined && length !== "0") || headers["transfer-encoding"] !== undefined
}

const isJson = (contentType: string): boolean => {
  const semicolon = contentType.indexOf(";")
  const essence = semicolon < 0 ? contentType : contentType.slice(0, semicolon)
  return essence.trim().toLowerCase() === "application/json"
}

/** Rule 1: undefined, or why the request is 415. */
export const mediaTypeProblem = (method: string, headers: Headers): string | undefined => {
  if (!bodyMethods.has(method)) return undefined
  const contentType = headers["content-type"]
  if (contentType === undefined)
    return hasBody(headers) ? "Content-Type: a body must be sent as application/json" : undefined
  return isJson(contentType) ? undefined : "Content-Type: must be application/json"
}

/** Whether a Cookie header carries a cookie named `sid` (not merely a name ending in it). */
export const carriesSid = (cookie: string | undefined): boolean => {
  if (cookie === undefined) return false
  for (let at = cookie.indexOf("sid="); at >= 0; at = cookie.indexOf("sid=", at + 1)) {
    const before = at === 0 ? ";" : cookie[at - 1]
    if (before === ";" || before === " ") return true
  }
  return false
}

/** Rule 2: undefined, or why the request is 403 10406. */
export const crossSiteProblem = (
  method: string,
  headers: Headers,
  allowedOrigins: ReadonlySet<string>
): string | undefined => {
  if (method === "GET" || !carriesSid(headers.cookie)) return undefined
  const site = headers["sec-fetch-site"]
  if (site !== undefined && site !== "same-origin" && site !== "none")
    return "Sec-Fetch-Site: a request from another site may not use the sid cookie"
  const origin = headers.origin
  if (origin !== undefined && !allowedOrigins.has(origin))
    return "Origin: a request with the sid cookie must come from PUBLIC_BASE_URL's origin or one of ALLOWED_ORIGINS"
  return undefined
}

/** `METHOD /path` of the routes behind a credential, and of the long-polls. */
export const routeClasses = (() => {
  const credentialed = new Set<string>()
  const longPolls = new Set<string>()
  HttpApi.reflect(Api, {
    onGroup: () => {},
    onEndpoint: ({ endpoint, middleware }) => {
      const route = `${endpoint.method} ${endpoint.path}`
      if ([...middleware].some((service) => HttpApiMiddleware.isSecurity(service))) credentialed.add(route)
      const query = endpoint.query?.ast as
        { readonly propertySignatures?: ReadonlyArray<{ name: unknown }> } | undefined
      if ((query?.propertySignatures ?? []).some((field) => field.name === "timeout")) longPolls.add(route)
    }
  })
  return { credentialed: credentialed as ReadonlySet<string>, longPolls: longPolls as ReadonlySet<string> }
})()

/** The origin of a base URL, or none when it is not a URL. */
const originOf = (url: string): ReadonlyArray<string> => {
  try {
    const origin = new URL(url).origin
    return origin === "null" ? [] : [origin]
  } catch {
    return []
  }
}

/**
 * Runs `self` with a deadline: past it the answer is `late()` and `self` is interrupted. One child fiber
 * and one timer per request (Effect.timeout would fork two).
 */
const withDeadline = <E, R>(
  self: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>,
  millis: number,
  late: () => HttpServerResponse.HttpServerResponse
): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R> =>
  Effect.flatMap(Effect.forkChild(self, { startImmediately: true }), (fiber) =>
    Effect.callback<HttpServerResponse.HttpServerResponse, E>((resume) => {
      const timer = setTimeout(() => {
        resume(Effect.succeed(late()))
        fiber.interruptUnsafe()
      }, millis)
      const stop = fiber.addObserver((exit) => {
        clearTimeout(timer)
        resume(exit)
      })
      return Effect.sync(() => {
        clearTimeout(timer)
        stop()
      })
    })
  )

export class EdgeRules extends Context.Service<
  EdgeRules,
  {
    /** The request's answer under the rules: a refusal, or `app`'s answer (within the deadline). */
    readonly guard: <E, R>(
      app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>,
      id: number
    ) => Effect.Effect<HttpServerResponse.HttpServerResponse, E | unknown, R | HttpServerRequest.HttpServerRequest>
  }
>()("core/EdgeRules") {
  static readonly layer = Layer.effect(
    EdgeRules,
    Effect.gen(function* () {
      const config = yield* AppConfigService
      const limits = yield* RateLimits
      const origins: ReadonlySet<string> = new Set([...originOf(config.publicBaseUrl), ...config.allowedOrigins])
      const deadlineMs = config.requestTimeoutSeconds * 1000
      const late = (id: number) => () =>
        refusal(id, "RequestTimeout", `no answer within ${config.requestTimeoutSeconds} s; read the outcome back`)

      const guard = <E, R>(app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>, id: number) =>
        HttpServerRequest.HttpServerRequest.use((request) => {
          const { method, headers, url } = request
          // A request refused here never had its credential checked: it spends a token of its address,
          // once, and past the limit its answer is the 429.
          let spent = false
          const spend = () => {
            spent = true
            return limits.byAddress(Option.getOrUndefined(request.remoteAddress))
          }
          const refuse = (tag: ErrorTag, message: string) => {
            const wait = spent ? 0 : spend()
            return Effect.succeed(wait > 0 ? rateLimited(id, wait) : refusal(id, tag, message))
          }
          const media = mediaTypeProblem(method, headers)
          if (media !== undefined) return refuse("UnsupportedMediaType", media)
          const site = crossSiteProblem(method, headers, origins)
          if (site !== undefined) return refuse("CrossSiteRequest", site)
          const mark = url.indexOf("?")
          const route = `${method} ${mark < 0 ? url : url.slice(0, mark)}`
          if (!routeClasses.credentialed.has(route)) {
            const wait = spend()
            if (wait > 0) return Effect.succeed(rateLimited(id, wait))
          }
          const target = targetProblem(url)
          if (target !== undefined) return refuse("InvalidRequest", target)
          const checked =
            bodyMethods.has(method) && hasBody(headers)
              ? Effect.flatMap(request.text, (text) => {
                  const problem = jsonBodyProblem(text)
                  return problem === undefined ? app : refuse("InvalidRequest", problem)
                })
              : app
          return routeClasses.longPolls.has(route) ? checked : withDeadline(checked, deadlineMs, late(id))
        })

      return EdgeRules.of({ guard: guard as any })
    })
  )
}
