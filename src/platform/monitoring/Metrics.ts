/**
 * The service's figures for monitoring (CONTRACT C9), kept in plain counters and fixed-bucket
 * histograms so that recording on the hot path costs a few array writes. Rendered as Prometheus
 * text on the monitoring port and as JSON by the private `monitoring_stats`.
 */
import { Context, Layer } from "effect"
import { monitorEventLoopDelay } from "node:perf_hooks"

const latencyBucketsMs = [0.5, 1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 10000]
const batchBuckets = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512]

class Histogram {
  readonly counts: Array<number>
  sum = 0
  count = 0
  constructor(readonly buckets: ReadonlyArray<number>) {
    this.counts = new Array(buckets.length + 1).fill(0)
  }
  observe(value: number): void {
    let i = 0
    while (i < this.buckets.length && value > this.buckets[i]) i++
    this.counts[i]++
    this.sum += value
    this.count++
  }
}

const escapeLabel = (value: string) => value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n")

export const makeMetrics = () => {
  const http = new Map<string, { route: string; status: number; histogram: Histogram }>()
  const commitBatch = new Histogram(batchBuckets)
  const commitLatency = new Histogram(latencyBucketsMs)
  const gauges = new Map<string, () => number>()
  const labelledGauges = new Map<string, () => ReadonlyArray<readonly [Record<string, string>, number]>>()
  const loopDelay = monitorEventLoopDelay({ resolution: 20 })
  loopDelay.enable()
  const startedAt = Date.now()

  const observeHttp = (route: string, status: number, millis: number): void => {
    const key = `${route} ${status}`
    let entry = http.get(key)
    if (entry === undefined) {
      entry = { route, status, histogram: new Histogram(latencyBucketsMs) }
      http.set(key, entry)
    }
    entry.histogram.observe(millis)
  }

  const observeCommit = (batchSize: number, millis: number): void => {
    commitBatch.observe(batchSize)
    commitLatency.observe(millis)
  }

  const histogramText = (name: string, help: string, h: Histogram, labels: string): Array<string> => {
    const lines: Array<string> = []
    let cumulative = 0
    for (let i = 0; i < h.buckets.length; i++) {
      cumulative += h.counts[i]
      lines.push(`${name}_bucket{${labels}${labels ? "," : ""}le="${h.buckets[i]}"} ${cumulative}`)
    }
    cumulative += h.counts[h.buckets.length]
    lines.push(`${name}_bucket{${labels}${labels ? "," : ""}le="+Inf"} ${cumulative}`)
    lines.push(`${name}_sum{${labels}} ${h.sum}`, `${name}_count{${labels}} ${h.count}`)
    return [`# HELP ${name} ${help}`, `# TYPE ${name} histogram`, ...lines]
  }

  const prometheus = (): string => {
    const out: Array<string> = []
    out.push("# HELP http_request_duration_ms HTTP latency by route and status", "# TYPE http_request_duration_ms histogram")
    for (const { route, status, histogram } of http.values()) {
      out.push(...histogramText("http_request_duration_ms", "", histogram, `route="${escapeLabel(route)}",status="${status}"`).slice(2))
    }
    out.push(...histogramText("ledger_commit_batch_size", "Operations per group commit", commitBatch, ""))
    out.push(...histogramText("ledger_commit_duration_ms", "Group commit latency", commitLatency, ""))
    for (const [name, read] of gauges) out.push(`# TYPE ${name} gauge`, `${name} ${read()}`)
    for (const [name, read] of labelledGauges) {
      out.push(`# TYPE ${name} gauge`)
      for (const [labels, value] of read()) {
        out.push(`${name}{${Object.entries(labels).map(([k, v]) => `${k}="${escapeLabel(v)}"`).join(",")}} ${value}`)
      }
    }
    const memory = process.memoryUsage()
    out.push(
      "# TYPE process_resident_memory_bytes gauge", `process_resident_memory_bytes ${memory.rss}`,
      "# TYPE nodejs_heap_used_bytes gauge", `nodejs_heap_used_bytes ${memory.heapUsed}`,
      "# TYPE nodejs_eventloop_delay_p99_ms gauge", `nodejs_eventloop_delay_p99_ms ${loopDelay.percentile(99) / 1e6}`,
      "# TYPE process_uptime_seconds gauge", `process_uptime_seconds ${Math.floor((Date.now() - startedAt) / 1000)}`
    )
    return out.join("\n") + "\n"
  }

  const snapshot = () => ({
    uptimeSeconds: Math.floor((Date.now() - startedAt) / 1000),
    http: [...http.values()].map(({ route, status, histogram }) => ({
      route, status, count: histogram.count, meanMs: histogram.count ? histogram.sum / histogram.count : 0
    })),
    ledger: {
      commits: commitBatch.count,
      operations: commitBatch.sum,
      meanBatchSize: commitBatch.count ? commitBatch.sum / commitBatch.count : 0,
      meanCommitMs: commitLatency.count ? commitLatency.sum / commitLatency.count : 0
    },
    gauges: Object.fromEntries([...gauges].map(([name, read]) => [name, read()])),
    labelled: Object.fromEntries([...labelledGauges].map(([name, read]) => [name, read().map(([labels, value]) => ({ ...labels, value }))])),
    runtime: {
      rssBytes: process.memoryUsage().rss,
      heapUsedBytes: process.memoryUsage().heapUsed,
      eventLoopDelayP99Ms: loopDelay.percentile(99) / 1e6
    }
  })

  return {
    observeHttp,
    observeCommit,
    gauge: (name: string, read: () => number) => void gauges.set(name, read),
    labelledGauge: (name: string, read: () => ReadonlyArray<readonly [Record<string, string>, number]>) => void labelledGauges.set(name, read),
    prometheus,
    snapshot
  }
}

export class Metrics extends Context.Service<Metrics, ReturnType<typeof makeMetrics>>()("core/Metrics") {
  static readonly layer = Layer.sync(Metrics, makeMetrics)
}
