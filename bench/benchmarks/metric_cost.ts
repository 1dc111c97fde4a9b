/**
 * What recording one HTTP latency costs: the service's fixed-bucket HttpHistogram (what every request
 * records, src/monitoring/Metrics.ts) against Effect's own `Metric.histogram` with the same buckets
 * and the same per-(route, status) series lookup, in ns per observation, alternating rounds, medians.
 * This is the number behind keeping that one figure hand-kept (README "Monitoring").
 */
import { Context, Metric } from "effect"
import { HttpHistogram, latencyBucketsMs } from "../../src/monitoring/Metrics.ts"
import { median } from "../support/Compare.ts"
import { writeResult } from "../support/Report.ts"

const observations = 2_000_000
const rounds = 5
const routes = ["/core/v1/wallet/get_balance", "/core/v1/wallet/internal_transfer", "/private/v1/execute_transactions", "/core/v1/market/create_order"]
const statuses = [200, 200, 200, 400]
/** Latencies spread over the buckets, as a service's would be. */
const millisOf = (i: number) => (i % 97) * 0.37

const handKept = () => {
  const series = new Map<string, HttpHistogram>()
  const started = performance.now()
  for (let i = 0; i < observations; i++) {
    const key = `${routes[i & 3]} ${statuses[(i >> 2) & 3]}`
    let histogram = series.get(key)
    if (histogram === undefined) series.set(key, histogram = new HttpHistogram(latencyBucketsMs))
    histogram.observe(millisOf(i))
  }
  return (performance.now() - started) * 1e6 / observations
}

const effectMetric = () => {
  const context = Context.make(Metric.MetricRegistry, new Map()) as Context.Context<never>
  const histogram = Metric.histogram("http_request_duration_ms", { boundaries: latencyBucketsMs })
  const series = new Map<string, Metric.Metric<number, Metric.HistogramState>>()
  const started = performance.now()
  for (let i = 0; i < observations; i++) {
    const route = routes[i & 3], status = statuses[(i >> 2) & 3]
    const key = `${route} ${status}`
    let metric = series.get(key)
    if (metric === undefined) series.set(key, metric = Metric.withAttributes(histogram, { route, status: String(status) }))
    metric.updateUnsafe(millisOf(i), context)
  }
  return (performance.now() - started) * 1e6 / observations
}

export const runMetricCost = async (): Promise<void> => {
  console.log(`\n== metric_cost: ns per HTTP latency observation, ${observations} observations × ${rounds} alternating rounds (node ${process.version})`)
  const ours: Array<number> = [], anchor: Array<number> = []
  for (let round = 1; round <= rounds; round++) {
    const pair = round % 2 === 1 ? [handKept, effectMetric] : [effectMetric, handKept]
    for (const run of pair) (run === handKept ? ours : anchor).push(run())
    console.log(`  round ${round}/${rounds}  hand-kept ${ours[ours.length - 1].toFixed(0)} ns, Effect Metric.histogram ${anchor[anchor.length - 1].toFixed(0)} ns`)
  }
  const medians = { handKeptNs: median(ours), effectHistogramNs: median(anchor) }
  console.log(`   medians: hand-kept ${medians.handKeptNs.toFixed(0)} ns, Effect Metric.histogram ${medians.effectHistogramNs.toFixed(0)} ns ` +
    `(${(medians.effectHistogramNs / medians.handKeptNs).toFixed(1)}×, +${((medians.effectHistogramNs - medians.handKeptNs) / 1000).toFixed(2)} µs per request)`)
  writeResult("metric_cost", { benchmark: "metric_cost", at: new Date().toISOString(), node: process.version, observations, rounds: { ours, anchor }, median: medians })
}
