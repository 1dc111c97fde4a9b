/**
 * The public node:http server, with two duties in front of the Effect router.
 *
 * 1. It holds requests that arrive after `listen` but before the API's handler is attached (Node
 *    would otherwise never answer them), and hands them over once the handler exists.
 * 2. It answers the public health route `GET /core/v1/get_info` itself. That route reads no input
 *    and no state; through the router each request costs ~37 µs of CPU, mostly the framework's
 *    per-request fibers and context (measured in bench/), so the hottest, stateless route is
 *    served directly: same envelope, same request numbering, same metrics, same answer, same edge
 *    (C19: the client address's token bucket, no-store and nosniff).
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import { errorCodes } from "../../schema/Errors.ts"
import { envelopeJson, publicInfo } from "./general/PublicInfo.ts"
import { nextRequestNumber } from "./RequestNumbers.ts"

export interface FastPathLimits {
  readonly byAddress: (address: string | undefined) => number
}

export interface FastPathMetrics {
  readonly observeHttp: (route: string, status: number, millis: number) => void
}

const getInfoPath = "/core/v1/get_info"

const isGetInfo = (request: IncomingMessage): boolean => {
  if (request.method !== "GET" && request.method !== "HEAD") return false
  const url = request.url ?? ""
  return (
    url === getInfoPath ||
    (url.startsWith(getInfoPath) &&
      (url[getInfoPath.length] === "?" || url[getInfoPath.length] === "#") &&
      // A NUL in the query is refused by the router's edge rules (C19 §7), like on every route.
      !url.includes("%00"))
  )
}

const [rateLimitedCode, rateLimitedStatus] = errorCodes.RateLimitExceeded

export const makePublicServer = (metrics: FastPathMetrics, limits: FastPathLimits) => () => {
  const server = createServer()
  let held: Array<readonly [IncomingMessage, ServerResponse]> | undefined = []
  const answerGetInfo = (request: IncomingMessage, response: ServerResponse) => {
    const started = performance.now()
    const id = nextRequestNumber()
    const wait = limits.byAddress(request.socket.remoteAddress)
    const status = wait > 0 ? rateLimitedStatus : 200
    const body =
      wait > 0
        ? JSON.stringify({
            result: null,
            error: { code: rateLimitedCode, message: `too many requests: retry after ${wait} s` },
            id
          })
        : envelopeJson(publicInfo(), id)
    if (wait > 0) response.setHeader("retry-after", String(wait))
    response.writeHead(status, {
      "content-type": "application/json",
      "content-length": Buffer.byteLength(body),
      "x-request-id": String(id),
      "cache-control": "no-store",
      "x-content-type-options": "nosniff"
    })
    response.end(request.method === "HEAD" ? undefined : body)
    metrics.observeHttp(getInfoPath, status, performance.now() - started)
  }
  const emit = server.emit.bind(server) as (event: string | symbol, ...args: Array<any>) => boolean
  server.emit = ((event: string | symbol, ...args: Array<any>) => {
    if (event === "request") {
      const [request, response] = args as [IncomingMessage, ServerResponse]
      if (isGetInfo(request)) {
        answerGetInfo(request, response)
        return true
      }
      if (held !== undefined) {
        held.push([request, response])
        return true
      }
    }
    return emit(event, ...args)
  }) as typeof server.emit
  server.on("newListener", (event: string | symbol) => {
    if (event !== "request" || held === undefined) return
    const early = held
    held = undefined
    setImmediate(() => {
      for (const [request, response] of early) emit("request", request, response)
    })
  })
  return server
}
