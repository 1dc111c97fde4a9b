/**
 * OpenTelemetry traces (issue #28): with `OTEL_EXPORTER_OTLP_ENDPOINT` (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`)
 * set, every span the runtime makes — each HTTP request (the router's server span), each actor message
 * (effect/cluster's entity spans, the caller's span propagated into the actor), each ledger batch
 * (LedgerWriter), each SQL statement, each outbound call (`webhook.deliver`, `federation.partner_call`,
 * `acquirer.webhook`) — is exported over OTLP/HTTP JSON by effect's own exporter to `<endpoint>/v1/traces`,
 * as `OTEL_SERVICE_NAME` (default `core-wallet`), with `OTEL_EXPORTER_OTLP_HEADERS` (`k=v,k2=v2`) and
 * `OTEL_BSP_SCHEDULE_DELAY` (ms between exports). Unset: no exporter exists and nothing is sent or kept.
 * (effect's `layerFromConfig` also waits for `OTEL_TRACES_EXPORTER=otlp`; the endpoint alone turns it on here.)
 */
import { Config, Duration, Effect, Layer, Option } from "effect"
import { FetchHttpClient } from "effect/http"
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
