/**
 * The one harness every benchmark runs in. A benchmark prepares its anchor and ours (registering how
 * to stop each, warming up as it needs) and returns the two sides; the harness runs the alternating
 * rounds (the anchor first in odd rounds, ours first in even ones, so drift on a shared machine hits
 * both alike), the benchmark turns the rounds into medians, its ratio ours/anchor and its printed
 * table, and the harness prints the verdict against the target, writes the JSON record in
 * bench/results/ and stops everything, whatever happened. `measureWindow` is the one way to measure
 * a window of a load process (bench/load/), with the caller's clocks read around it.
 */
import { mkdirSync, writeFileSync } from "node:fs"
import { cpus, loadavg } from "node:os"
import { join, relative } from "node:path"
import { startChild } from "./Child.ts"
import { root } from "./Service.ts"
import { readSettings, type Settings } from "./Settings.ts"

export const log = (line: string) => console.log(line)
export const fmt = (value: number, digits = 0) => value.toFixed(digits)
/** A report line: the label padded to one column. */
export const labelled = (label: string, text: string): string => `   ${label.padEnd(26)}${text}`

export const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

/** The median of each figure `keys` names over `records`. */
export const mediansOf = <R, K extends keyof R & string>(
  records: ReadonlyArray<R>,
  keys: ReadonlyArray<K>
): Record<K, number> =>
  Object.fromEntries(keys.map((key) => [key, median(records.map((r) => r[key] as number))])) as Record<K, number>

/** One side of a comparison: how to measure it once, and the rest of its round line. */
export interface Side<R> {
  readonly label: string
  readonly measure: (round: number) => Promise<R>
  readonly report: (result: R, round: number) => string | Promise<string>
}

export interface Round<A, O> {
  readonly anchor: A
  readonly ours: O
}

export interface Conclusion {
  /** ours / anchor in the headline figure, the one the target is about. */
  readonly ratio: number
  /** The headline figure of each side, as printed in `npm run bench -- all`'s summary table. */
  readonly headline: { readonly ours: string; readonly anchor: string }
  /** What is printed after the rounds: the medians, the table. */
  readonly lines: ReadonlyArray<string>
  /** The benchmark's own fields of the JSON record (its settings, medians, counts). */
  readonly record: object
}

export interface Prepared<A, O> {
  readonly anchor: Side<A>
  readonly ours: Side<O>
  readonly conclude: (rounds: ReadonlyArray<Round<A, O>>) => Conclusion | Promise<Conclusion>
}

export interface Run {
  readonly settings: Settings
  /** Registers a cleanup; cleanups run in reverse order once the benchmark ends, whatever happened. */
  readonly defer: (cleanup: () => unknown) => void
}

export interface Benchmark<A = any, O = any> {
  readonly name: string
  /** One line: what is measured against which anchor (the usage list and the header). */
  readonly summary: string
  /** The ratio ours/anchor the issue asks for, and what it compares, e.g. "postings/s vs pgbench -N TPS". */
  readonly target?: { readonly ratio: number; readonly what: string }
  /** Issue #25's budget: service CPU µs per operation (the record's `median[key]`) and a ratio to the anchor. */
  readonly budget?: { readonly key: string; readonly micros: number; readonly per: string; readonly ratio: number }
  /** Starts the anchor and ours, says what they run on, and returns the two sides. */
  readonly prepare: (run: Run) => Promise<Prepared<A, O>>
}

/** `1350 µs/transfer (≤ 400: OVER), 0.11× (≥ 0.5×: BELOW)` — the budget's line, or "" without one. */
const budgetText = (benchmark: Benchmark, conclusion: Conclusion): string => {
  const budget = benchmark.budget
  if (budget === undefined) return ""
  const figure = (conclusion.record as { median?: Record<string, number> }).median?.[budget.key]
  const cpu =
    figure === undefined
      ? `no ${budget.key} in the record`
      : `${fmt(figure)} µs/${budget.per} (≤ ${budget.micros}: ${figure <= budget.micros ? "within" : "OVER"})`
  return `${cpu}, ${fmt(conclusion.ratio, 2)}× (≥ ${budget.ratio}×: ${conclusion.ratio >= budget.ratio ? "meets" : "BELOW"})`
}

const alternate = async <A, O>(rounds: number, anchor: Side<A>, ours: Side<O>): Promise<Array<Round<A, O>>> => {
  const done: Array<Round<A, O>> = []
  for (let round = 1; round <= rounds; round++) {
    let anchorResult: A | undefined
    let oursResult: O | undefined
    const line = (label: string, text: string) => log(`  round ${round}/${rounds}  ${label.padEnd(16)} ${text}`)
    const runAnchor = async () => {
      anchorResult = await anchor.measure(round)
      line(anchor.label, await anchor.report(anchorResult, round))
    }
    const runOurs = async () => {
      oursResult = await ours.measure(round)
      line(ours.label, await ours.report(oursResult, round))
    }
    for (const step of round % 2 === 1 ? [runAnchor, runOurs] : [runOurs, runAnchor]) await step()
    done.push({ anchor: anchorResult!, ours: oursResult! })
  }
  return done
}

/** Writes bench/results/<name>-<timestamp>.json and returns its path. */
const writeResult = (name: string, record: object): string => {
  const directory = join(root, "bench", "results")
  mkdirSync(directory, { recursive: true })
  const path = join(directory, `${name}-${new Date().toISOString().replace(/[:.]/g, "-")}.json`)
  writeFileSync(path, JSON.stringify(record, null, 2) + "\n")
  return path
}

/** One row of the summary `npm run bench -- all` prints (bench/Summary.ts). */
export interface Outcome {
  readonly name: string
  readonly anchor: string
  readonly ours: string
  readonly ratio: number
  readonly target: string
  readonly verdict: "meets" | "BELOW" | "-" | "FAILED"
  readonly budget: string
  readonly resultFile: string
}

export const runBenchmark = async (benchmark: Benchmark): Promise<Outcome> => {
  const settings = readSettings()
  log(`\n== ${benchmark.name}: ${benchmark.summary}`)
  log(
    `   node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model ?? "?"}), load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`
  )
  const cleanups: Array<() => unknown> = []
  try {
    const prepared = await benchmark.prepare({ settings, defer: (cleanup) => cleanups.push(cleanup) })
    const rounds = await alternate(settings.rounds, prepared.anchor, prepared.ours)
    const conclusion = await prepared.conclude(rounds)
    log("")
    for (const line of conclusion.lines) log(line)
    const target = benchmark.target
    const met = target === undefined ? "-" : conclusion.ratio >= target.ratio ? "meets" : "BELOW"
    const verdict = target === undefined ? null : `${met} the target of ${target.what} ≥ ${target.ratio}×`
    if (verdict !== null) log(`   ${verdict}`)
    const budget = budgetText(benchmark, conclusion)
    if (budget !== "") log(`   budget: ${budget}`)
    const path = writeResult(benchmark.name, {
      benchmark: benchmark.name,
      summary: benchmark.summary,
      at: new Date().toISOString(),
      node: process.version,
      cpus: cpus().length,
      loadAverage: loadavg(),
      settings,
      targetRatio: target?.ratio ?? null,
      verdict,
      ratio: conclusion.ratio,
      ...conclusion.record,
      rounds
    })
    log(`   results: ${relative(root, path)}`)
    return {
      name: benchmark.name,
      anchor: conclusion.headline.anchor,
      ours: conclusion.headline.ours,
      ratio: conclusion.ratio,
      target: target === undefined ? "" : `≥ ${target.ratio}×`,
      verdict: met,
      budget,
      resultFile: relative(root, path)
    }
  } finally {
    for (const cleanup of cleanups.reverse()) {
      try {
        await cleanup()
      } catch (error) {
        console.error(`   cleanup failed: ${String(error)}`)
      }
    }
  }
}

export interface Window<Summary, Sample> {
  readonly summary: Summary
  readonly before: Sample
  readonly after: Sample
  readonly wallSeconds: number
  /** performance.now() when the load process's result arrived. */
  readonly endedAt: number
}

/**
 * One measured window of the load process `script` (bench/load/) with `spec`: it warms up and says
 * "ready"; `sample(loadPid)` reads the caller's clocks and counters; "go" starts the window; its
 * `{ type: "result", summary }` ends it and the clocks are read again. The process is stopped
 * (killed after `graceMs`) whatever happens.
 */
export const measureWindow = async <Summary, Sample>(options: {
  readonly script: string
  readonly spec: unknown
  readonly sample: (loadPid: number) => Sample | Promise<Sample>
  readonly graceMs?: number
}): Promise<Window<Summary, Sample>> => {
  const load = startChild<"go", { type: "ready" } | { type: "result"; summary: Summary }>(options.script, options.spec)
  try {
    if ((await load.next()).type !== "ready") throw new Error(`${options.script}: no "ready"`)
    const startedAt = performance.now()
    const before = await options.sample(load.process.pid!)
    load.send("go")
    const reply = await load.next()
    const endedAt = performance.now()
    const after = await options.sample(load.process.pid!)
    if (reply.type !== "result") throw new Error(`${options.script}: no result`)
    return { summary: reply.summary, before, after, wallSeconds: (endedAt - startedAt) / 1000, endedAt }
  } finally {
    await load.stop("go", options.graceMs)
  }
}
