/**
 * The service's figures for monitoring (CONTRACT C9). Every figure is a series in Effect's metric
 * registry, next to the series effect/cluster keeps itself (resident entities and the deepest
 * mailbox per entity type), so `/metrics` (PrometheusMetrics) and the private `monitoring_stats`
 * JSON (MetricsView.ts) are two renderings of one snapshot and cannot disagree.
 *
 * Most figures are gauges read when scraped, over state the service keeps anyway (queue sizes,
 * waiter sets), so they cost nothing between scrapes. Counters and the ledger's histograms are
 * Effect metrics, updated per batch or per actor lifecycle event, never per message.
 *
 * One hand-kept exception: HTTP latency, recorded on every request. Effect's histogram (with the
 * same per-route series lookup) costs 1.2–2.6 µs per observation on this machine against 0.2–0.7 µs
 * for the fixed-bucket array below (`npm run bench -- metric_cost`: medians 2.47 vs 0.33 µs); on the
 * get_info fast path, about 12 µs of CPU per request, that difference alone would be 10–20%. Its
 * buckets are published through the registry by a read hook, so a scrape cannot tell.
 */
import { Context, Effect, Layer, Metric } from "effect"
import { PrometheusMetrics } from "effect/observability"
import { monitorEventLoopDelay } from "node:perf_hooks"

/**
 * Names of the series the service publishes, for the modules that feed them and for MetricsView.
 * effect/cluster publishes `effect_cluster_entities` and `effect_cluster_entity_mailbox_size_max`.
 */
export const metricNames = {
  actorActivations: "actor_activations_total",
  actorPassivations: "actor_passivations_total",
  actorRestarts: "actor_restarts_total",
  actorBuildFailures: "actor_build_failures_total",
  actorResident: "effect_cluster_entities",
  actorMailboxMax: "effect_cluster_entity_mailbox_size_max",
  ledgerQueueDepth: "ledger_queue_depth",
  ledgerBatchInFlight: "ledger_batch_in_flight",
  longPollWaiters: "longpoll_waiters",
  longPollWakeups: "longpoll_wakeups_total"
} as const

/** Latency buckets in seconds, the base unit Prometheus expects (0.5 ms to 10 s). */
export const latencyBucketsSeconds = [0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10]
export const batchBuckets = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024]

/** A fixed-bucket histogram: an observation is a short scan and four writes (see the module comment). */
export class HttpHistogram {
  readonly counts: Array<number>
  sum = 0
  count = 0
  min = Number.MAX_VALUE
  max = -Number.MAX_VALUE
  constructor(readonly buckets: ReadonlyArray<number>) {
    this.counts = new Array(buckets.length + 1).fill(0)
  }
  observe(value: number): void {
    let i = 0
    while (i < this.buckets.length && value > this.buckets[i]) i++
    this.counts[i]++
    this.sum += value
    this.count++
    if (value < this.min) this.min = value
    if (value > this.max) this.max = value
  }
  /** The state Effect's own histograms report: cumulative counts per upper bound. */
  state(): Metric.HistogramState {
    let cumulative = 0
    const buckets = this.buckets.map((bound, i): [number, number] => [bound, (cumulative += this.counts[i])])
    return { buckets, count: this.count, sum: this.sum, min: this.min, max: this.max }
  }
}

export const httpDuration = Metric.histogram("http_request_duration_seconds", {
  description: "HTTP latency by route and status, seconds",
  boundaries: latencyBucketsSeconds
})
export const commitBatchSize = Metric.histogram("ledger_commit_batch_size", {
  description: "Operations per group commit",
  boundaries: batchBuckets
})
export const commitDuration = Metric.histogram("ledger_commit_duration_seconds", {
  description: "Group commit latency, seconds",
  boundaries: latencyBucketsSeconds
})

/**
 * HELP text for the families effect/cluster registers without a description, so every family of a
 * scrape has one (`promtool check metrics` is clean: test/integration/metrics-promtool.test.ts).
 */
export const clusterHelp: Readonly<Record<string, string>> = {
  effect_cluster_entities: "Resident entities (actors) of this runner, by entity type",
  effect_cluster_entity_mailbox_size_max: "Deepest mailbox of an entity of this runner, by entity type",
  effect_cluster_runners: "Runners of the cluster this runner knows",
  effect_cluster_runners_healthy: "Runners of the cluster this runner knows as healthy",
  effect_cluster_shards: "Shards assigned to this runner",
  effect_cluster_shards_releasing: "Shards this runner is releasing",
  effect_cluster_singletons: "Singletons running on this runner"
}

/** Adds a HELP line before the TYPE line of every family that has none (the text format of a scrape). */
export const withHelp = (text: string, help: Readonly<Record<string, string>>): string => {
  const described = new Set<string>()
  for (const match of text.matchAll(/^# HELP (\S+) /gm)) described.add(match[1])
  return text.replace(/^# TYPE (\S+) /gm, (line, name: string) =>
    described.has(name) ? line : `# HELP ${name} ${help[name] ?? name.replaceAll("_", " ")}\n${line}`
  )
}

const readOnly = <S>(get: () => S): Metric.Metric.Hooks<any, S> => ({ get, update: () => {}, modify: () => {} })

export const makeMetrics = Effect.gen(function* () {
  const context = yield* Effect.context<never>()
  const http = new Map<string, HttpHistogram>()
  const loopDelay = monitorEventLoopDelay({ resolution: 20 })
  loopDelay.enable()
  const startedAt = Date.now()

  const observeHttp = (route: string, status: number, millis: number): void => {
    const key = `${route} ${status}`
    let histogram = http.get(key)
    if (histogram === undefined) {
      const created = (histogram = new HttpHistogram(latencyBucketsSeconds))
      http.set(key, created)
      Metric.registerUnsafe(
        Metric.withAttributes(httpDuration, { route, status: String(status) }),
        context,
        readOnly(() => created.state())
      )
    }
    histogram.observe(millis / 1000)
  }

  const observeCommit = (batchSize: number, millis: number): void => {
    commitBatchSize.updateUnsafe(batchSize, context)
    commitDuration.updateUnsafe(millis / 1000, context)
  }

  /**
   * A gauge read at scrape time; one series per label set. Scoped: the series leaves the registry
   * with the service that feeds it.
   */
  const gauge = (name: string, description: string, read: () => number, labels: Record<string, string> = {}) =>
    Effect.acquireRelease(
      Effect.sync(() =>
        Metric.registerUnsafe(
          Metric.withAttributes(Metric.gauge(name, { description }), labels),
          context,
          readOnly(() => ({ value: read() }))
        )
      ),
      (registration) => Effect.sync(registration.remove)
    )

  /**
   * Figures kept elsewhere (SQL: the scanners' chain heads, the signer's queue) are read when
   * scraped: each source registers a refresh that updates its series, and `/metrics` and
   * monitoring_stats run `refresh` before reading the registry. A refresh must not fail (a source
   * that cannot answer keeps its last values).
   */
  const refreshers = new Set<Effect.Effect<void>>()
  const onScrape = (refresh: Effect.Effect<void>) =>
    Effect.acquireRelease(
      Effect.sync(() => refreshers.add(refresh)),
      () => Effect.sync(() => refreshers.delete(refresh))
    )
  const refresh: Effect.Effect<void> = Effect.suspend(() =>
    Effect.forEach([...refreshers], (run) => run, { discard: true, concurrency: "unbounded" })
  )

  /** Updates an Effect metric (a counter of lifecycle events) in this registry. */
  const update = <I>(metric: Metric.Metric<I, unknown>, input: I): void => metric.updateUnsafe(input, context)

  const runtime = [
    gauge("process_resident_memory_bytes", "Resident set size", () => process.memoryUsage().rss),
    gauge("nodejs_heap_used_bytes", "V8 heap in use", () => process.memoryUsage().heapUsed),
    gauge(
      "nodejs_eventloop_delay_p99_seconds",
      "Event-loop delay, 99th percentile since start, seconds",
      () => loopDelay.percentile(99) / 1e9
    ),
    gauge("process_uptime_seconds", "Seconds since the process started serving", () =>
      Math.floor((Date.now() - startedAt) / 1000)
    )
  ]
  yield* Effect.all(runtime, { discard: true })
  // Reading a histogram creates its series: the ledger's show (empty) before the first commit.
  yield* Metric.value(commitBatchSize)
  yield* Metric.value(commitDuration)
  yield* Effect.addFinalizer(() => Effect.sync(() => loopDelay.disable()))

  return {
    observeHttp,
    observeCommit,
    gauge,
    update,
    onScrape,
    refresh,
    /** Every series of the registry, the runtime's included. */
    series: () => Metric.snapshotUnsafe(context),
    prometheus: () => withHelp(PrometheusMetrics.formatUnsafe(context), clusterHelp),
    startedAt
  }
})

export class Metrics extends Context.Service<Metrics, Effect.Success<typeof makeMetrics>>()("core/Metrics") {
  static readonly layer = Layer.effect(Metrics, makeMetrics)
}
