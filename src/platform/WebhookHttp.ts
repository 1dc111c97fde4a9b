/**
 * One webhook attempt over node:http(s) (docs/WEBHOOKS.md "SSRF guard"): the host is resolved here,
 * every address it resolves to must be public unicast (ipaddr.js, as src/platform/WebhookUrls.ts) unless
 * private addresses are allowed, and the connection goes to the address that was checked (the request's
 * `lookup` answers with it), so a second, different DNS answer (rebinding) cannot redirect it. No
 * redirect is followed (a 3xx is a failed attempt); the whole attempt is bounded by `timeoutMs`.
 */
import { lookup as dnsLookup } from "node:dns/promises"
import http from "node:http"
import https from "node:https"
import type { LookupFunction } from "node:net"
import ipaddr from "ipaddr.js"

export interface AttemptResult {
  readonly httpStatus: number | null
  readonly error: string | null
  readonly durationMs: number
}

const responseBytesMax = 65_536

/** C19 §6: what the delivery history says of a destination the guard refused, whatever its address. */
export const destinationRefused = "destination refused"

/** Why `address` may not be reached (null: it may). */
const addressProblem = (address: string): string | null => {
  if (!ipaddr.isValid(address)) return `unparsable address ${address}`
  const range = ipaddr.process(address).range()
  return range === "unicast" ? null : `address ${address} refused (${range})`
}

/** Resolves `host` once and judges every address; the first one is where the attempt connects. */
const resolve = async (host: string, allowPrivate: boolean): Promise<{ address: string; family: number }> => {
  const bare = host.replace(/^\[(.*)\]$/, "$1")
  const found = ipaddr.isValid(bare)
    ? [{ address: bare, family: bare.includes(":") ? 6 : 4 }]
    : await dnsLookup(bare, { all: true, verbatim: true })
  if (found.length === 0) throw new Error(`${host} does not resolve`)
  if (!allowPrivate)
    for (const entry of found) {
      // C19 §6: the history never shows a resolved address (it would map the merchant's network).
      if (addressProblem(entry.address) !== null) throw new Error(destinationRefused)
    }
  return found[0]!
}

/** POSTs `body` to `url` with `headers`; never throws. */
export const postWebhook = async (
  url: string,
  body: string,
  headers: Record<string, string>,
  timeoutMs: number,
  allowPrivate: boolean
): Promise<AttemptResult> => {
  const started = Date.now()
  const done = (httpStatus: number | null, error: string | null): AttemptResult => ({
    httpStatus,
    error,
    durationMs: Date.now() - started
  })
  let target: URL
  try {
    target = new URL(url)
  } catch {
    return done(null, "invalid URL")
  }
  let pinned: { address: string; family: number }
  try {
    pinned = await withTimeout(resolve(target.hostname, allowPrivate), timeoutMs)
  } catch (error) {
    return done(null, messageOf(error))
  }
  const pinnedLookup: LookupFunction = (_host, options, callback) => {
    if ((options as { all?: boolean }).all === true)
      (callback as any)(null, [{ address: pinned.address, family: pinned.family }])
    else callback(null, pinned.address, pinned.family)
  }
  const left = Math.max(1, timeoutMs - (Date.now() - started))
  return new Promise<AttemptResult>((resolvePromise) => {
    let settled = false
    const finish = (httpStatus: number | null, error: string | null) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      resolvePromise(done(httpStatus, error))
    }
    const client = target.protocol === "https:" ? https : http
    const bytes = Buffer.from(body, "utf8")
    const request = client.request(
      target,
      {
        method: "POST",
        lookup: pinnedLookup,
        agent: false,
        headers: { ...headers, "content-type": "application/json", "content-length": String(bytes.length) }
      },
      (response) => {
        let read = 0
        response.on("data", (chunk: Buffer) => {
          read += chunk.length
          if (read > responseBytesMax) response.destroy()
        })
        const status = response.statusCode ?? 0
        const outcome = () => finish(status, status >= 200 && status < 300 ? null : `HTTP ${status}`)
        response.on("end", outcome)
        response.on("close", outcome)
        response.on("error", outcome)
      }
    )
    const timer = setTimeout(() => {
      request.destroy()
      finish(null, `timeout after ${timeoutMs} ms`)
    }, left)
    // A connection error names its code only (node's message carries the resolved address).
    request.on("error", (error) => finish(null, connectionError(error)))
    request.end(bytes)
  })
}

const connectionError = (error: unknown): string => {
  const code = (error as NodeJS.ErrnoException | undefined)?.code
  return typeof code === "string" && /^[A-Z_]{2,40}$/.test(code) ? `connection failed (${code})` : "connection failed"
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error)).slice(0, 500)

const withTimeout = <A>(promise: Promise<A>, ms: number): Promise<A> =>
  new Promise<A>((resolvePromise, reject) => {
    const timer = setTimeout(() => reject(new Error(`timeout after ${ms} ms resolving the host`)), ms)
    promise.then(
      (value) => {
        clearTimeout(timer)
        resolvePromise(value)
      },
      (error) => {
        clearTimeout(timer)
        reject(error)
      }
    )
  })

/** Seconds between attempt n (1-based, within one budget) and attempt n + 1 (C16: base × 2^(n−1), at most the cap). */
export const retryDelaySeconds = (attempt: number, baseSeconds: number, maxDelaySeconds: number): number =>
  Math.min(maxDelaySeconds, baseSeconds * 2 ** Math.min(attempt - 1, 40))
