/**
 * What the HTTP end-to-end benchmarks (transfers_e2e, orders_e2e) share: the real service
 * (`src/main.ts`) on a fresh database of a PostgreSQL server beside `pgbench -N` on another fresh
 * database of the same server, the header lines, the alternating rounds (pgbench first in odd
 * rounds, ours first in even ones), one measured window of a load process with the CPU of the
 * service, of PostgreSQL and of the load generator and the ledger's group commits over it, the
 * medians, the verdict and the JSON record, and the CPU profile of the final window of ours
 * (BENCH_PROFILE=1). Everything is stopped and dropped whatever happens.
 */
import { cpus, loadavg } from "node:os"
import { relative } from "node:path"
import { makeClient, type TestClient } from "../../test/support/Client.ts"
import { root, startService, type RunningService } from "../../test/support/Service.ts"
import { startChild } from "./Child.ts"
import { median } from "./Compare.ts"
import { cpuMicros, processesCpuMicros, treeCpuMicros, treeCpuSplitMicros } from "./Cpu.ts"
import { profileDirectory } from "./OurService.ts"
import {
  createDatabase, databaseUrl, describeServer, dropDatabase, preparePgbench, serverSetting, serverUrl
} from "./Pgbench.ts"
import { writeResult } from "./Report.ts"
import type { Settings } from "./Settings.ts"
import { ledgerFigures, mainThreadProfile, profileTop } from "./TransferFixture.ts"

export const fmt = (value: number, digits = 0) => value.toFixed(digits)

/**
 * BENCH_METRICS_SAMPLE=1: one scrape of the service's /metrics (its monitoring port; worker 1's
 * under BENCH_WORKERS) 1 s into each measured window of ours. The last one is printed (its
 * per-kind actor, ledger writer and long-poll lines) and kept whole in bench/results/.
 */
const metricsSampleDelayMs = 1_000
const metricsSampleLines = /^(effect_cluster_entities|effect_cluster_entity_mailbox_size_max|actor_|ledger_queue_depth|ledger_batch_in_flight|longpoll_waiters)/
let metricsSample: string | undefined
const sampleMetricsSoon = (service: RunningService): void => {
  if (process.env.BENCH_METRICS_SAMPLE !== "1") return
  setTimeout(() => {
    fetch(service.monitoring + "/metrics").then((r) => r.text()).then((text) => (metricsSample = text), () => {})
  }, metricsSampleDelayMs)
}
export const log = (line: string) => console.log(line)

const pgCpu = (after: Map<number, number>, before: Map<number, number>) =>
  [...after].reduce((sum, [pid, v]) => sum + (before.has(pid) ? v - before.get(pid)! : 0), 0)

/**
 * CPU over one window (100 = one core busy) and the ledger's group commits in it; `PerKey` names
 * the service's CPU µs per completed unit (a transfer, an order).
 */
export type WindowFigures<PerKey extends string> = {
  readonly serviceCpuPercent: number
} & { readonly [K in PerKey]: number } & {
  /** The share of the service's CPU spent in the kernel (socket writes and reads, mostly). */
  readonly serviceSystemPercent: number
  readonly postgresCpuPercent: number
  readonly loadCpuPercent: number
  readonly meanBatchSize: number
  readonly meanCommitMs: number
}

/** The keys of WindowFigures in their order, for the medians. */
export const windowFigureKeys = <PerKey extends string>(perKey: PerKey) =>
  ["serviceCpuPercent", perKey, "serviceSystemPercent", "postgresCpuPercent", "loadCpuPercent", "meanBatchSize", "meanCommitMs"] as const

export interface LoadWindow<Summary, Extra, PerKey extends string> {
  readonly summary: Summary
  readonly wallSeconds: number
  /** performance.now() when the load process's result arrived. */
  readonly endedAt: number
  /** The caller's own counters (`extra`) before and after the window. */
  readonly before: Extra
  readonly after: Extra
  readonly figures: WindowFigures<PerKey>
}

/**
 * One measured window: starts the load process `script` with `spec` (it warms up, says "ready",
 * runs the window on "go", answers `{ type: "result", summary }`), reads the clocks and counters
 * around the window and stops the process (killing it after `graceMs`).
 */
export const measureLoadWindow = async <Summary, PerKey extends string, Extra = undefined>(options: {
  readonly service: RunningService
  readonly client: TestClient
  readonly script: string
  readonly spec: unknown
  /** Names the load in the error when it gives no result, e.g. "transfer load". */
  readonly name: string
  readonly graceMs: number
  readonly perKey: PerKey
  /** The units the service's CPU is divided by. */
  readonly completed: (summary: Summary) => number
  readonly extra?: () => Promise<Extra>
}): Promise<LoadWindow<Summary, Extra, PerKey>> => {
  const { service, client } = options
  const load = startChild<"go", { type: "ready" } | { type: "result"; summary: Summary }>(options.script, options.spec)
  const pid = service.child.pid!
  const sample = async () => ({
    split: treeCpuSplitMicros(pid), service: treeCpuMicros(pid), load: cpuMicros(load.process.pid!), pg: processesCpuMicros("postgres"),
    ledger: await ledgerFigures(client), extra: options.extra === undefined ? undefined as Extra : await options.extra()
  })
  let reply: { type: "ready" } | { type: "result"; summary: Summary }
  let before: Awaited<ReturnType<typeof sample>>
  let after: typeof before
  let startedAt: number
  let endedAt: number
  try {
    await load.next()
    startedAt = performance.now()
    before = await sample()
    load.send("go")
    sampleMetricsSoon(service)
    reply = await load.next()
    endedAt = performance.now()
    after = await sample()
  } finally {
    await load.stop("go", options.graceMs)
  }
  if (reply.type !== "result") throw new Error(`${options.name}: no result`)
  const s = reply.summary
  const wall = (endedAt - startedAt) / 1000
  const serviceMicros = after.service - before.service
  const commits = after.ledger.commits - before.ledger.commits
  const figures = {
    serviceCpuPercent: serviceMicros / 1e6 / wall * 100,
    [options.perKey]: serviceMicros / Math.max(1, options.completed(s)),
    serviceSystemPercent: (after.split.system - before.split.system) / Math.max(1, serviceMicros) * 100,
    postgresCpuPercent: pgCpu(after.pg, before.pg) / 1e6 / wall * 100,
    loadCpuPercent: (after.load - before.load) / 1e6 / wall * 100,
    meanBatchSize: commits > 0 ? (after.ledger.operations - before.ledger.operations) / commits : 0,
    meanCommitMs: commits > 0 ? (after.ledger.commitMsSum - before.ledger.commitMsSum) / commits : 0
  } as WindowFigures<PerKey>
  return { summary: s, wallSeconds: wall, endedAt, before: before.extra, after: after.extra, figures }
}

/** A round's CPU and batch text: `service …% … µs/<unit>, postgres …%, load …% CPU  batch …/… ms`. */
export const roundCpuText = <PerKey extends string>(r: WindowFigures<PerKey>, perKey: PerKey, unit: string): string =>
  `service ${fmt(r.serviceCpuPercent)}% ${fmt(r[perKey])} µs/${unit}, postgres ${fmt(r.postgresCpuPercent)}%, load ${fmt(r.loadCpuPercent)}% CPU  ` +
  `batch ${fmt(r.meanBatchSize, 1)}/${fmt(r.meanCommitMs, 1)} ms`

export interface Round<R> { readonly pgbenchTps: number; readonly ours: R }

/** The median of each figure `keys` names over the rounds of ours. */
export const oursMedians = <R, K extends keyof R & string>(rounds: ReadonlyArray<Round<R>>, keys: ReadonlyArray<K>): Record<K, number> =>
  Object.fromEntries(keys.map((key) => [key, median(rounds.map((r) => r.ours[key] as number))])) as Record<K, number>

export const pgbenchMedian = (rounds: ReadonlyArray<Round<unknown>>): number => median(rounds.map((r) => r.pgbenchTps))

/** Labelled report lines: the label padded to one column. */
export const labelled = (label: string, text: string): string => `   ${label.padEnd(26)}${text}`

/**
 * The first median lines: pgbench's TPS, then ours (`label`, figure `key`) with its ratio to
 * pgbench's TPS, medians and round by round. Returns the ratio of the medians.
 */
export const logRateMedians = <R, K extends keyof R & string>(
  rounds: ReadonlyArray<Round<R>>, medians: { readonly pgbenchTps: number } & Record<K, number>, label: string, key: K
): number => {
  const ratio = medians[key] / medians.pgbenchTps
  log("\n   medians")
  log(labelled("pgbench -N TPS", fmt(medians.pgbenchTps).padStart(7)))
  log(labelled(label, `${fmt(medians[key]).padStart(7)}   ${fmt(ratio, 2)}× pgbench TPS ` +
    `(rounds: ${rounds.map((r) => fmt((r.ours[key] as number) / r.pgbenchTps, 2) + "×").join(", ")})`))
  return ratio
}

/** The median CPU line. */
export const logCpuMedians = <PerKey extends string>(m: WindowFigures<PerKey>, perKey: PerKey, unit: string): void =>
  log(labelled("CPU", `service ${fmt(m.serviceCpuPercent)}% (${fmt(m[perKey])} µs/${unit}, ${fmt(m.serviceSystemPercent)}% of it in the kernel), ` +
    `postgres ${fmt(m.postgresCpuPercent)}%, load generator ${fmt(m.loadCpuPercent)}%; ledger batch ${fmt(m.meanBatchSize, 1)} ops in ${fmt(m.meanCommitMs, 1)} ms`))

export interface E2eRun {
  readonly settings: Settings
  readonly clients: number
  readonly ourUrl: string
  readonly service: RunningService
  readonly client: TestClient
  /**
   * The alternating rounds: `measure` runs one window of ours, `report` gives the rest of its
   * round line (after the `label` column), `endedAt` when its window ended (else when `measure`
   * returned), for the profile.
   */
  readonly rounds: <R>(options: {
    readonly label: string
    readonly measure: (round: number) => Promise<R>
    readonly report: (r: R, round: number) => string | Promise<string>
    readonly endedAt?: (r: R) => number
  }) => Promise<Array<Round<R>>>
  /** Logs the verdict against the target ratio and writes the JSON record. */
  readonly conclude: (options: {
    readonly ratio: number
    /** What is compared to pgbench's TPS, e.g. "transfers/s". */
    readonly what: string
    readonly settings: object
    /** The benchmark's own fields of the record, between the verdict and the rounds. */
    readonly details: object
    readonly rounds: ReadonlyArray<Round<unknown>>
    readonly medians: object
  }) => void
}

export const runE2e = async (options: {
  readonly name: string
  /** What is measured, e.g. "completed two-step internal transfers/s over HTTP". */
  readonly headline: string
  readonly target: number
  readonly settings: Settings
  readonly clients: number
  /** The header's description of ours, after `<clients> clients each: pgbench -N -c <clients> -j 2 -s 1, and `. */
  readonly load: string
  readonly databasePrefix: string
  /** The service's environment besides NODE_OPTIONS. */
  readonly env?: Record<string, string>
}, body: (run: E2eRun) => Promise<void>): Promise<void> => {
  const { name, settings, clients, target } = options
  const server = serverUrl()
  log(`\n== ${name}: ${options.headline} vs pgbench -N TPS on the same server (target ≥ ${target}×)`)
  log(`   node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model ?? "?"}), load average ${loadavg().map((l) => l.toFixed(2)).join(" ")}`)
  const durability = { synchronous_commit: await serverSetting(server, "synchronous_commit"), fsync: await serverSetting(server, "fsync") }
  log(`   ${describeServer(server)}: synchronous_commit=${durability.synchronous_commit}, fsync=${durability.fsync}`)
  log(`   ${settings.rounds} alternating rounds × ${settings.seconds} s measured (ours after ${settings.warmupSeconds} s warm-up); ` +
    `${clients} clients each: pgbench -N -c ${clients} -j 2 -s 1, and ${options.load}`)
  log(`   our service: ${settings.workers} process${settings.workers === 1 ? "" : "es"} (WORKERS=${settings.workers}; CPU figures sum them)`)

  const anchor = await preparePgbench(server)
  const ourDatabase = await createDatabase(server, options.databasePrefix)
  const ourUrl = databaseUrl(server, ourDatabase)
  let servicePid: number | undefined
  const nodeOptions = [process.env.NODE_OPTIONS ?? "", settings.profile ? `--cpu-prof --cpu-prof-dir=${profileDirectory}` : ""].join(" ").trim()
  let service: RunningService | undefined
  let lastWasOurs = false
  let oursEndedAt = 0
  let stoppedAt = 0
  try {
    service = await startService({ databaseUrl: ourUrl, env: { NODE_OPTIONS: nodeOptions, WORKERS: String(settings.workers), ...options.env } })
    servicePid = service.child.pid
    const rounds: E2eRun["rounds"] = async ({ label, measure, report, endedAt }) => {
      const done: Array<Round<Awaited<ReturnType<typeof measure>>>> = []
      for (let round = 1; round <= settings.rounds; round++) {
        const line = (what: string, text: string) => log(`  round ${round}/${settings.rounds}  ${what.padEnd(15)}${text}`)
        let pgbenchTps = 0
        let ours: Awaited<ReturnType<typeof measure>> | undefined
        const runPgbench = async () => {
          pgbenchTps = await anchor.measure(clients, settings.seconds)
          lastWasOurs = false
          line("pgbench -N", `${fmt(pgbenchTps).padStart(7)} TPS`)
        }
        const runOurs = async () => {
          const r = ours = await measure(round)
          lastWasOurs = true
          oursEndedAt = endedAt === undefined ? performance.now() : endedAt(r)
          line(label, await report(r, round))
        }
        for (const step of round % 2 === 1 ? [runPgbench, runOurs] : [runOurs, runPgbench]) await step()
        done.push({ pgbenchTps, ours: ours! })
      }
      return done
    }
    const conclude: E2eRun["conclude"] = ({ ratio, what, details, rounds, medians, settings: recordSettings }) => {
      const verdict = `${ratio >= target ? "meets" : "BELOW"} the target of ${what} ≥ ${target}× pgbench -N TPS`
      log(`   ${verdict}`)
      const path = writeResult(name, {
        benchmark: name, at: new Date().toISOString(), node: process.version, cpus: cpus().length, loadAverage: loadavg(),
        server: describeServer(server), durability, settings: recordSettings,
        targetRatio: target, verdict, ...details, rounds, median: medians, ratio, ...(metricsSample === undefined ? {} : { metricsSample })
      })
      log(`   results: ${relative(root, path)}`)
      if (metricsSample !== undefined) {
        log(`\n   /metrics ${metricsSampleDelayMs / 1000} s into the last measured window of ours (actor, ledger writer and long-poll lines):`)
        for (const line of metricsSample.split("\n").filter((l) => metricsSampleLines.test(l))) log(`     ${line}`)
      }
    }
    await body({ settings, clients, ourUrl, service, client: makeClient(service), rounds, conclude })
  } finally {
    if (service !== undefined) await service.stop()
    stoppedAt = performance.now()
    await anchor.drop()
    await dropDatabase(server, ourDatabase)
  }
  if (settings.profile) {
    const file = servicePid === undefined ? undefined : mainThreadProfile(profileDirectory, servicePid)
    if (file === undefined) log("   no CPU profile was written")
    else {
      // The final measured window: it ended `skip` seconds before the service exited.
      const skip = lastWasOurs ? (stoppedAt - oursEndedAt) / 1000 : 0
      log(`\n   CPU profile of the service: ${relative(root, file)}${lastWasOurs ? ` (the final measured window: ${settings.seconds} s ending ${skip.toFixed(1)} s before exit)` : " (whole run)"}`)
      log(profileTop(file, 25, lastWasOurs ? settings.seconds : Infinity, skip))
    }
  }
}
