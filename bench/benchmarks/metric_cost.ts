/**
 * What recording one HTTP latency costs: the service's fixed-bucket HttpHistogram (what every request
 * records, src/platform/monitoring/Metrics.ts) against Effect's own `Metric.histogram` with the same
 * buckets and the same per-(route, status) series lookup, in ns per observation, alternating rounds,
 * medians. This is the number behind keeping that one figure hand-kept (docs/DESIGN.md "Monitoring").
 */
import { Context, Metric } from "effect"
import { HttpHistogram, latencyBucketsSeconds } from "../../src/platform/monitoring/Metrics.ts"
import { fmt, median, type Benchmark } from "../support/Harness.ts"

const observations = 2_000_000
const routes = [
  "/core/v1/wallet/get_balance",
  "/core/v1/wallet/internal_transfer",
  "/private/v1/execute_transactions",
  "/core/v1/market/create_order"
]
const statuses = [200, 200, 200, 400]
/** Latencies spread over the buckets, as a service's would be. */
const millisOf = (i: number) => (i % 97) * 0.37

const handKept = async (): Promise<number> => {
  const series = new Map<string, HttpHistogram>()
  const started = performance.now()
  for (let i = 0; i < observations; i++) {
    const key = `${routes[i & 3]} ${statuses[(i >> 2) & 3]}`
    let histogram = series.get(key)
    if (histogram === undefined) series.set(key, (histogram = new HttpHistogram(latencyBucketsSeconds)))
    histogram.observe(millisOf(i))
  }
  return ((performance.now() - started) * 1e6) / observations
}

const effectMetric = async (): Promise<number> => {
  const context = Context.make(Metric.MetricRegistry, new Map()) as Context.Context<never>
  const histogram = Metric.histogram("http_request_duration_seconds", { boundaries: latencyBucketsSeconds })
  const series = new Map<string, Metric.Metric<number, Metric.HistogramState>>()
  const started = performance.now()
  for (let i = 0; i < observations; i++) {
    const route = routes[i & 3],
      status = statuses[(i >> 2) & 3]
    const key = `${route} ${status}`
    let metric = series.get(key)
    if (metric === undefined)
      series.set(key, (metric = Metric.withAttributes(histogram, { route, status: String(status) })))
    metric.updateUnsafe(millisOf(i), context)
  }
  return ((performance.now() - started) * 1e6) / observations
}

export const metricCost: Benchmark<number, number> = {
  name: "metric_cost",
  summary: `ns per HTTP latency observation: our hand-kept histogram vs Effect's Metric.histogram (${observations} observations a round)`,
  prepare: async () => ({
    anchor: { label: "Metric.histogram", measure: effectMetric, report: (ns) => `${fmt(ns)} ns` },
    ours: { label: "hand-kept", measure: handKept, report: (ns) => `${fmt(ns)} ns` },
    conclude: (rounds) => {
      const ours = median(rounds.map((r) => r.ours)),
        anchor = median(rounds.map((r) => r.anchor))
      return {
        ratio: anchor / ours,
        headline: { anchor: `${fmt(anchor)} ns/observation`, ours: `${fmt(ours)} ns/observation` },
        lines: [
          `   medians: hand-kept ${fmt(ours)} ns, Effect Metric.histogram ${fmt(anchor)} ns (${(anchor / ours).toFixed(1)}× cheaper, ` +
            `${((anchor - ours) / 1000).toFixed(2)} µs saved per request)`
        ],
        record: { handKeptNs: ours, effectHistogramNs: anchor }
      }
    }
  })
}
