/**
 * The private `monitoring_stats` answer: the registry's snapshot as JSON, the same series `/metrics`
 * renders. `series` lists every metric family with its label sets and values, exactly as scraped;
 * the sections before it regroup the same numbers for people (per actor type, the ledger writer,
 * long-poll waiters by feed, HTTP routes, the runtime).
 */
import type { Metric } from "effect"
import { metricNames, type Metrics } from "./Metrics.ts"
import type { ScannerStat } from "./ScannerMetrics.ts"

type Snapshot = Metric.Metric.Snapshot

export interface SeriesValue {
  readonly labels: Record<string, string>
  /** A counter's or gauge's value; a histogram's count, sum and cumulative buckets. */
  readonly value:
    | number
    | { readonly count: number; readonly sum: number; readonly buckets: ReadonlyArray<readonly [number, number]> }
}

/** JSON has no NaN or Infinity (an idle event-loop monitor reports NaN): those read as 0. */
const finite = (value: number | bigint): number => {
  const n = Number(value)
  return Number.isFinite(n) ? n : 0
}

const valueOf = (snapshot: Snapshot): SeriesValue["value"] => {
  switch (snapshot.type) {
    case "Counter":
      return finite(snapshot.state.count)
    case "Gauge":
      return finite(snapshot.state.value)
    case "Histogram":
      // A bucket bounded by +Infinity (effect/cluster's shard-release timer has one) is `count`: dropped, JSON has no Infinity.
      return {
        count: finite(snapshot.state.count),
        sum: finite(snapshot.state.sum),
        buckets: snapshot.state.buckets
          .filter(([bound]) => Number.isFinite(bound))
          .map(([b, n]) => [b, finite(n)] as const)
      }
    case "Summary":
      return { count: finite(snapshot.state.count), sum: finite(snapshot.state.sum), buckets: [] }
    case "Frequency":
      return [...snapshot.state.occurrences.values()].reduce((a, b) => a + b, 0)
  }
}

const familiesOf = (snapshots: ReadonlyArray<Snapshot>) => {
  const families: Record<string, { type: string; description: string | null; values: Array<SeriesValue> }> = {}
  for (const snapshot of snapshots) {
    const family = (families[snapshot.id] ??= {
      type: snapshot.type,
      description: snapshot.description ?? null,
      values: []
    })
    family.values.push({ labels: { ...snapshot.attributes }, value: valueOf(snapshot) })
  }
  return families
}

type Families = ReturnType<typeof familiesOf>

const numberOf = (value: SeriesValue["value"] | undefined): number => (typeof value === "number" ? value : 0)
const histogramOf = (value: SeriesValue["value"] | undefined) =>
  typeof value === "object" ? value : { count: 0, sum: 0 }
const first = (families: Families, name: string) => families[name]?.values[0]?.value

/** Per actor type: the runtime's resident count and deepest mailbox, and our lifecycle counters. */
const actorsOf = (families: Families) => {
  const figures = {
    resident: metricNames.actorResident,
    mailboxDepthMax: metricNames.actorMailboxMax,
    activations: metricNames.actorActivations,
    passivations: metricNames.actorPassivations,
    restarts: metricNames.actorRestarts,
    buildFailures: metricNames.actorBuildFailures
  } as const
  const actors: Record<string, Record<keyof typeof figures, number>> = {}
  for (const [figure, name] of Object.entries(figures) as Array<[keyof typeof figures, string]>) {
    for (const { labels, value } of families[name]?.values ?? []) {
      const type = labels.type ?? "unknown"
      actors[type] ??= {
        resident: 0,
        mailboxDepthMax: 0,
        activations: 0,
        passivations: 0,
        restarts: 0,
        buildFailures: 0
      }
      actors[type][figure] = numberOf(value)
    }
  }
  return actors
}

/**
 * `scanners`: the crypto terminals' figures (C15) of the same refresh that set their series
 * (ScannerMetrics), with the tip's hash, which is no series.
 */
export const statsOf = (metrics: Metrics["Service"], scanners: ReadonlyArray<ScannerStat> = []) => {
  const families = familiesOf(metrics.series())
  const batches = histogramOf(first(families, "ledger_commit_batch_size"))
  const commitSeconds = histogramOf(first(families, "ledger_commit_duration_seconds"))
  return {
    uptimeSeconds: numberOf(first(families, "process_uptime_seconds")),
    actors: actorsOf(families),
    ledger: {
      commits: batches.count,
      operations: batches.sum,
      meanBatchSize: batches.count ? batches.sum / batches.count : 0,
      meanCommitMs: commitSeconds.count ? (1000 * commitSeconds.sum) / commitSeconds.count : 0,
      queueDepth: numberOf(first(families, metricNames.ledgerQueueDepth)),
      batchInFlight: numberOf(first(families, metricNames.ledgerBatchInFlight))
    },
    longPollWaiters: Object.fromEntries(
      (families[metricNames.longPollWaiters]?.values ?? []).map(({ labels, value }) => [labels.feed, numberOf(value)])
    ),
    http: (families["http_request_duration_seconds"]?.values ?? []).map(({ labels, value }) => {
      const { count, sum } = histogramOf(value)
      return { route: labels.route, status: Number(labels.status), count, meanMs: count ? (1000 * sum) / count : 0 }
    }),
    runtime: {
      rssBytes: numberOf(first(families, "process_resident_memory_bytes")),
      heapUsedBytes: numberOf(first(families, "nodejs_heap_used_bytes")),
      eventLoopDelayP99Ms: 1000 * numberOf(first(families, "nodejs_eventloop_delay_p99_seconds"))
    },
    scanners,
    series: families
  }
}
