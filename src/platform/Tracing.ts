/**
 * OpenTelemetry traces (issue #28): with `OTEL_EXPORTER_OTLP_ENDPOINT` (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`)
 * set, every span the runtime makes — each HTTP request (the router's server span), each actor message
 * (effect/cluster's entity spans, the caller's span propagated into the actor), each ledger batch
 * (LedgerWriter), each SQL statement, each outbound call (`webhook.deliver`, `federation.partner_call`,
 * `acquirer.webhook`) — is exported over OTLP/HTTP JSON by effect's own exporter to `<endpoint>/v1/traces`,
 * as `OTEL_SERVICE_NAME` (default `core-wallet`), with `OTEL_EXPORTER_OTLP_HEADERS` (`k=v,k2=v2`) and
 * `OTEL_BSP_SCHEDULE_DELAY` (ms between exports). Unset: no exporter exists and nothing is sent or kept.
 * (effect's `layerFromConfig` also waits for `OTEL_TRACES_EXPORTER=otlp`; the endpoint alone turns it on here.)
 *
 * One payment is one trace: an incoming W3C `traceparent` parents a request's server span (effect's router);
 * an order's Create keeps its `payment.create` span's traceparent (sql/migrations/0037_payment_traces.sql), and
 * every later message of the order's actor and every webhook delivery of the order opens its span under it
 * (`inStoredTrace`), linked to the span that caused it; a ledger batch links every operation's span it commits.
 */
import { Config, Context, Duration, Effect, type Fiber, Layer, Option, Tracer } from "effect"
import { FetchHttpClient, Headers, HttpTraceContext } from "effect/http"
import { OtlpSerialization, OtlpTracer } from "effect/observability"

const optionalText = (name: string) =>
  Config.String(name).pipe(Config.option, Config.map(Option.filter((text) => text.trim() !== "")))

/** `k=v,k2=v2` (values URL-encoded, as the OpenTelemetry specification has them). */
const parseHeaders = (text: string): Record<string, string> =>
  Object.fromEntries(
    text
      .split(",")
      .map((pair) => pair.split("="))
      .filter((parts) => parts.length >= 2 && parts[0].trim() !== "")
      .map(([key, ...value]) => [key.trim(), decodeURIComponent(value.join("=").trim())])
  )

export const TracingLayer = Layer.unwrap(
  Effect.gen(function* () {
    const traces = yield* optionalText("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
    const base = yield* optionalText("OTEL_EXPORTER_OTLP_ENDPOINT")
    const url = Option.isSome(traces)
      ? Option.some(traces.value)
      : Option.map(base, (endpoint) => endpoint.replace(/\/+$/, "") + "/v1/traces")
    if (Option.isNone(url)) return Layer.empty
    const serviceName = yield* Config.String("OTEL_SERVICE_NAME").pipe(Config.withDefault("core-wallet"))
    const headers = yield* optionalText("OTEL_EXPORTER_OTLP_HEADERS")
    const delay = yield* Config.Int("OTEL_BSP_SCHEDULE_DELAY").pipe(Config.option)
    return OtlpTracer.layer({
      url: url.value,
      resource: { serviceName },
      headers: Option.match(headers, { onNone: () => undefined, onSome: parseHeaders }),
      exportInterval: Option.getOrUndefined(Option.map(delay, Duration.millis))
    }).pipe(Layer.provide(OtlpSerialization.layerJson), Layer.provide(FetchHttpClient.layer))
  }).pipe(Effect.orDie)
)

/** The current span when traces are exported; undefined when they are not (an untraced service pays nothing). */
export const exportedSpanOf = (fiber: Fiber.Fiber<unknown, unknown>): Tracer.Span | undefined => {
  if (fiber.getRef(Tracer.Tracer) === Tracer.nativeTracer) return undefined
  const current = Context.getOption(fiber.context, Tracer.ParentSpan)
  return Option.isSome(current) && current.value._tag === "Span" ? current.value : undefined
}

/** The current span when traces are exported (`exportedSpanOf` as an effect). */
export const exportedSpan: Effect.Effect<Tracer.Span | undefined> = Effect.withFiber((fiber) =>
  Effect.succeed(exportedSpanOf(fiber))
)

/** True when a tracing backend is installed (OTEL_EXPORTER_OTLP_ENDPOINT set). */
export const tracingOn: Effect.Effect<boolean> = Effect.withFiber((fiber) =>
  Effect.succeed(fiber.getRef(Tracer.Tracer) !== Tracer.nativeTracer)
)

/** A span's W3C traceparent (`00-<trace>-<span>-<flags>`). */
export const traceparentOf = (span: Tracer.Span): string => HttpTraceContext.toHeaders(span).traceparent

/** A stored W3C traceparent as a parent span (undefined: not a valid traceparent). */
export const spanOfTraceparent = (text: string): Tracer.ExternalSpan | undefined =>
  Option.getOrUndefined(HttpTraceContext.w3c(Headers.fromInput({ traceparent: text })))

/**
 * Runs `effect` in span `name` whose parent is a stored traceparent (a payment's trace), linked to the caller's
 * own span (its request or job). Without a stored trace the span is the caller's child; with tracing off, `effect`
 * as it is.
 */
export const inStoredTrace =
  (
    name: string,
    traceParent: string | undefined,
    attributes: Record<string, unknown> = {},
    kind: Tracer.SpanKind = "internal"
  ) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.flatMap(tracingOn, (on) => {
      if (!on) return effect
      const parent = traceParent === undefined ? undefined : spanOfTraceparent(traceParent)
      if (parent === undefined) return Effect.withSpan(effect, name, { attributes, kind })
      return Effect.flatMap(exportedSpan, (caller) =>
        Effect.withSpan(effect, name, {
          parent,
          attributes,
          kind,
          links: caller === undefined ? [] : [{ span: caller, attributes: { "link.reason": "caused by" } }]
        })
      )
    })
