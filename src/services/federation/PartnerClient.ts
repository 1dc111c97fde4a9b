/**
 * The one outbound HTTP client of federation (CONTRACT C18): every call A makes on a partner B, as an
 * ordinary C16 merchant (`pkey` header, `app_id` query) or on B's payment gate. A call — all its attempts
 * and the pauses between them — is bounded by ONE deadline, FEDERATION_HTTP_TIMEOUT_SECONDS from its
 * start (C18: no answer within it is 10177): each attempt's AbortSignal gets what is left of it. Only
 * idempotent calls (reads, and puts keyed by externalId) are retried, at most `retriedAttempts` times and
 * only when no answer came and time is left. Outcomes:
 * - the partner's result;
 * - `PartnerAnswered`: B answered an error envelope (its code and message, carried into 10176);
 * - `PartnerSilent`: no usable answer. `reached` is false only when the connection was refused (nothing
 *   reached B, so a payout certainly did not happen); a timeout, a 5xx or a non-envelope may have acted.
 * The credentials travel only in headers and are never logged (Redacted until the request is built).
 * C19 §6: no redirect is followed and at most 1 MiB of an answer is read; a 3xx or a longer answer is a
 * partner that did not answer (10177). Every answer is decoded with its schema/ shape
 * (schema/FederationWire.ts) before a caller sees it: one that does not decode is `PartnerSilent` with
 * `reached` true and the failing field in `reason` (10177; nothing moves on it, the read-back decides later).
 */
import { Data, Effect, Redacted, Result, type Schema } from "effect"
import {
  PartnerErrorEnvelope,
  PartnerOrder,
  PartnerPayAnswer,
  PartnerResultEnvelope
} from "../../../schema/FederationWire.ts"
import { decodeJson, decodeValue } from "../../platform/ForeignJson.ts"

export class PartnerAnswered extends Data.TaggedError("PartnerAnswered")<{
  readonly code: number
  readonly message: string
}> {}

export class PartnerSilent extends Data.TaggedError("PartnerSilent")<{
  readonly reached: boolean
  readonly reason: string
}> {}

export type PartnerCallError = PartnerAnswered | PartnerSilent

export interface PartnerEndpoint {
  readonly partnerId: string
  readonly baseUrl: string
  readonly appId: bigint
  readonly pkey: Redacted.Redacted<string>
}

/** Attempts of a retried (idempotent) call, all within the call's one deadline. */
export const retriedAttempts = 3
const retryPauseMs = 200
/** An attempt with less time left than this is not started (it could not be answered in time). */
const attemptMinimumMs = 50

const refusedCodes = new Set(["ECONNREFUSED", "EHOSTUNREACH", "ENETUNREACH", "ENOTFOUND", "EAI_AGAIN"])

/** A network failure's errno code (fetch wraps it: TypeError → cause → the socket's error). */
const causeCode = (error: unknown): string | undefined => {
  let current: unknown = error
  for (let depth = 0; current !== null && typeof current === "object" && depth < 5; depth++) {
    const link = current as { readonly code?: unknown; readonly cause?: unknown }
    if (typeof link.code === "string") return link.code
    current = link.cause
  }
  return undefined
}

/** C19 §6: a partner's answer is read up to this many bytes; a longer one is a partner that did not answer. */
export const partnerAnswerBytesMax = 1_048_576

class AnswerTooLong extends Error {}
class Redirected extends Error {}

/** The body as text, refused past `partnerAnswerBytesMax` (read no further than that). */
const boundedText = async (response: Response): Promise<string> => {
  const declared = Number(response.headers.get("content-length") ?? "NaN")
  if (Number.isFinite(declared) && declared > partnerAnswerBytesMax) {
    await response.body?.cancel().catch(() => {})
    throw new AnswerTooLong()
  }
  if (response.body === null) return ""
  const reader = response.body.getReader()
  const chunks: Array<Uint8Array> = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > partnerAnswerBytesMax) {
      await reader.cancel().catch(() => {})
      throw new AnswerTooLong()
    }
    chunks.push(value)
  }
  return Buffer.concat(chunks).toString("utf8")
}

const decodeErrorEnvelope = decodeJson(PartnerErrorEnvelope)
const decodeResultEnvelope = decodeJson(PartnerResultEnvelope)

const once = <A>(
  method: "GET" | "POST",
  url: string,
  headers: Record<string, string>,
  body: unknown,
  deadline: number,
  answer: Schema.ConstraintDecoder<A>
): Effect.Effect<A, PartnerCallError> =>
  Effect.tryPromise<{ status: number; text: string }, PartnerSilent>({
    try: async () => {
      const response = await fetch(url, {
        method,
        headers: body === undefined ? headers : { ...headers, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(Math.max(1, deadline - Date.now())),
        // C19 §6: a redirect is never followed (it could point the pkey-carrying call anywhere).
        redirect: "manual"
      })
      if (response.status >= 300 && response.status < 400) {
        await response.body?.cancel().catch(() => {})
        throw new Redirected()
      }
      const text = await boundedText(response)
      return { status: response.status, text }
    },
    catch: (error) => {
      if (error instanceof Redirected) return new PartnerSilent({ reached: true, reason: "a redirect (not followed)" })
      if (error instanceof AnswerTooLong)
        return new PartnerSilent({ reached: true, reason: `an answer over ${partnerAnswerBytesMax} bytes` })
      const code = causeCode(error)
      const refused = code !== undefined && refusedCodes.has(code)
      return new PartnerSilent({
        reached: !refused,
        reason: refused
          ? `connection refused (${code})`
          : error instanceof Error && error.name === "TimeoutError"
            ? "timeout"
            : "no answer"
      })
    }
  }).pipe(
    Effect.flatMap(({ status, text }): Effect.Effect<A, PartnerCallError> => {
      const notEnvelope = new PartnerSilent({ reached: true, reason: `HTTP ${status}, not an envelope` })
      const refusal = decodeErrorEnvelope(text)
      if (Result.isSuccess(refusal)) {
        // A 5xx envelope (B's internal error, overload) says nothing certain about the outcome.
        if (status >= 500) return Effect.fail(new PartnerSilent({ reached: true, reason: `HTTP ${status}` }))
        const { code, message } = refusal.success.error
        return Effect.fail(new PartnerAnswered({ code, message: message ?? "" }))
      }
      if (status !== 200) return Effect.fail(notEnvelope)
      const envelope = decodeResultEnvelope(text)
      if (Result.isFailure(envelope)) return Effect.fail(notEnvelope)
      const result = decodeValue(answer, "result")(envelope.success.result)
      return Result.isSuccess(result)
        ? Effect.succeed(result.success)
        : Effect.fail(new PartnerSilent({ reached: true, reason: `a malformed answer (${result.failure})` }))
    }),
    // One client span per call to a partner (exported with OTEL_EXPORTER_OTLP_ENDPOINT: src/platform/Tracing.ts).
    Effect.withSpan("federation.partner_call", {
      kind: "client",
      attributes: { "http.request.method": method, "url.path": new URL(url).pathname }
    })
  )

export const makePartnerClient = (timeoutSeconds: number) => {
  const timeoutMs = timeoutSeconds * 1000
  const call = <A>(
    answer: Schema.ConstraintDecoder<A>,
    endpoint: PartnerEndpoint,
    method: "GET" | "POST",
    path: string,
    query: Record<string, string>,
    body: unknown,
    options: { readonly merchant: boolean; readonly retry: boolean }
  ) => {
    const params = new URLSearchParams(query)
    if (options.merchant) params.set("app_id", String(endpoint.appId))
    const url = `${endpoint.baseUrl}${path}?${params}`
    const headers: Record<string, string> = options.merchant ? { pkey: Redacted.value(endpoint.pkey) } : {}
    return Effect.suspend(() => {
      const deadline = Date.now() + timeoutMs
      const attempt = once(method, url, headers, body, deadline, answer)
      if (!options.retry) return attempt
      const loop = (left: number): Effect.Effect<A, PartnerCallError> =>
        attempt.pipe(
          Effect.catchTag("PartnerSilent", (silent) =>
            left <= 1 || deadline - Date.now() < retryPauseMs + attemptMinimumMs
              ? Effect.fail(silent)
              : Effect.andThen(Effect.sleep(retryPauseMs), loop(left - 1))
          )
        )
      return loop(retriedAttempts)
    })
  }
  return {
    /** put_payment_order: idempotent per externalId (B answers the same order on a replay), so retried. */
    putPaymentOrder: (endpoint: PartnerEndpoint, body: Record<string, unknown>) =>
      call(PartnerOrder, endpoint, "POST", "/payorders/v1/put_payment_order", {}, body, {
        merchant: true,
        retry: true
      }),
    /** put_transfer_order: idempotent per externalId, retried. */
    putTransferOrder: (endpoint: PartnerEndpoint, body: Record<string, unknown>) =>
      call(PartnerOrder, endpoint, "POST", "/payorders/v1/put_transfer_order", {}, body, {
        merchant: true,
        retry: true
      }),
    /** The read-back every decision rests on. */
    getAppPayment: (endpoint: PartnerEndpoint, id: string) =>
      call(PartnerOrder, endpoint, "GET", "/payorders/v1/get_app_payment", { id }, undefined, {
        merchant: true,
        retry: true
      }),
    /** Not retried blindly: its caller reads the order back when no answer came. */
    cancelPaymentOrder: (endpoint: PartnerEndpoint, id: string) =>
      call(PartnerOrder, endpoint, "POST", "/payorders/v1/cancel_payment_order", { id }, undefined, {
        merchant: true,
        retry: false
      }),
    /** The gate's payout: once (a second attempt could only be answered "already paid"; the read-back decides). */
    payTransfer: (endpoint: PartnerEndpoint, code: string, recipient: string) =>
      call(
        PartnerPayAnswer,
        endpoint,
        "POST",
        "/payment/v1/pay_transfer",
        { code },
        { recipient },
        { merchant: false, retry: false }
      )
  }
}

export type PartnerClient = ReturnType<typeof makePartnerClient>

/** The 10176 message: the partner's own code and message. */
export const refusedMessage = (partnerId: string, answered: PartnerAnswered): string =>
  `partner ${partnerId} refused: ${answered.code} ${answered.message}`
