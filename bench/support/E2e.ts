/**
 * What the HTTP end-to-end benchmarks (transfers_e2e, orders_e2e) add to the harness: the real
 * service (`src/main.ts`) on a fresh database of a PostgreSQL server beside `pgbench -N` with the
 * same client count on another fresh database of the same server; one measured window of a load
 * process with the CPU of the service, of PostgreSQL and of the load generator and the ledger's group
 * commits over it; the report lines; and the CPU profile of the final window of ours (BENCH_PROFILE=1).
 */
import { relative } from "node:path"
import { makeClient, type Client } from "./Client.ts"
import { cpuMicros, processesCpuMicros, treeCpuMicros, treeCpuSplitMicros } from "./Cpu.ts"
import { ledgerFigures } from "./Fixtures.ts"
import { fmt, labelled, log, measureWindow, type Round, type Run, type Side } from "./Harness.ts"
import { describeServer, freshDatabase, pgbenchBeside, serverUrl } from "./Postgres.ts"
import { mainThreadProfile, profileTop, root, startService, type RunningService } from "./Service.ts"

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
  [
    "serviceCpuPercent",
    perKey,
    "serviceSystemPercent",
    "postgresCpuPercent",
    "loadCpuPercent",
    "meanBatchSize",
    "meanCommitMs"
  ] as const

export interface E2e {
  readonly service: RunningService
  readonly client: Client
  readonly ourUrl: string
  /** The server (host and port, no credentials) and its durability settings, for the record. */
  readonly server: string
  readonly durability: object
  /** pgbench -N with the same client count on the same server. */
  readonly anchor: Side<number>
  /** Ours as a side, remembering when its window ended (`endedAt`, else when `measure` returned) for the profile. */
  readonly oursSide: <R>(side: Side<R>, endedAt?: (result: R) => number) => Side<R>
  /** One measured window of the load process `script` against the service. */
  readonly measureLoad: <Summary, PerKey extends string, Extra = undefined>(options: {
    readonly script: string
    readonly spec: unknown
    readonly graceMs: number
    readonly perKey: PerKey
    /** The units the service's CPU is divided by. */
    readonly completed: (summary: Summary) => number
    /** The caller's own counters, read before and after the window. */
    readonly extra?: () => Promise<Extra>
  }) => Promise<{
    summary: Summary
    figures: WindowFigures<PerKey>
    before: Extra
    after: Extra
    wallSeconds: number
    endedAt: number
  }>
}

const pgCpu = (after: Map<number, number>, before: Map<number, number>) =>
  [...after].reduce((sum, [pid, v]) => sum + (before.has(pid) ? v - before.get(pid)! : 0), 0)

export const prepareE2e = async (
  run: Run,
  options: {
    readonly clients: number
    /** The header's description of ours, after `<clients> clients each: pgbench -N -c <clients> -j 2 -s 1, and `. */
    readonly load: string
    readonly databasePrefix: string
    /** The service's environment besides WORKERS. */
    readonly env?: Record<string, string>
  }
): Promise<E2e> => {
  const { settings } = run
  const server = serverUrl()
  const { durability, side: anchorSide } = await pgbenchBeside(run, server, options.clients)
  log(
    `   ${settings.rounds} alternating rounds × ${settings.seconds} s measured (ours after ${settings.warmupSeconds} s warm-up); ` +
      `${options.clients} clients each: pgbench -N -c ${options.clients} -j 2 -s 1, and ${options.load}`
  )
  log(
    `   our service: ${settings.workers} process${settings.workers === 1 ? "" : "es"} (WORKERS=${settings.workers}; CPU figures sum them)`
  )
  const ourUrl = await freshDatabase(run, server, options.databasePrefix)
  // The profile covers the final measured window when ours ran last; the service writes it when it stops.
  let lastWasOurs = false
  let oursEndedAt = 0
  let stoppedAt = 0
  const service = await startService({
    databaseUrl: ourUrl,
    profile: settings.profile,
    env: { WORKERS: String(settings.workers), ...options.env }
  })
  if (settings.profile)
    run.defer(() =>
      reportProfile(service.pid, lastWasOurs ? settings.seconds : undefined, (stoppedAt - oursEndedAt) / 1000)
    )
  run.defer(async () => {
    await service.stop()
    stoppedAt = performance.now()
  })
  const client = makeClient(service)
  const anchor: Side<number> = {
    ...anchorSide,
    measure: async (round) => {
      const tps = await anchorSide.measure(round)
      lastWasOurs = false
      return tps
    }
  }
  const oursSide: E2e["oursSide"] = (side, endedAt) => ({
    ...side,
    measure: async (round) => {
      const result = await side.measure(round)
      lastWasOurs = true
      oursEndedAt = endedAt === undefined ? performance.now() : endedAt(result)
      return result
    }
  })
  const measureLoad: E2e["measureLoad"] = async (o) => {
    const sample = async (loadPid: number) => ({
      split: treeCpuSplitMicros(service.pid),
      service: treeCpuMicros(service.pid),
      load: cpuMicros(loadPid),
      pg: processesCpuMicros("postgres"),
      ledger: await ledgerFigures(client),
      extra: o.extra === undefined ? (undefined as any) : await o.extra()
    })
    const {
      summary,
      before,
      after,
      wallSeconds: wall,
      endedAt
    } = await measureWindow<any, Awaited<ReturnType<typeof sample>>>({
      script: o.script,
      spec: o.spec,
      sample,
      graceMs: o.graceMs
    })
    const serviceMicros = after.service - before.service
    const commits = after.ledger.commits - before.ledger.commits
    const figures = {
      serviceCpuPercent: (serviceMicros / 1e6 / wall) * 100,
      [o.perKey]: serviceMicros / Math.max(1, o.completed(summary)),
      serviceSystemPercent: ((after.split.system - before.split.system) / Math.max(1, serviceMicros)) * 100,
      postgresCpuPercent: (pgCpu(after.pg, before.pg) / 1e6 / wall) * 100,
      loadCpuPercent: ((after.load - before.load) / 1e6 / wall) * 100,
      meanBatchSize: commits > 0 ? (after.ledger.operations - before.ledger.operations) / commits : 0,
      meanCommitMs: commits > 0 ? (after.ledger.commitMsSum - before.ledger.commitMsSum) / commits : 0
    } as WindowFigures<typeof o.perKey>
    return { summary, figures, before: before.extra, after: after.extra, wallSeconds: wall, endedAt }
  }
  return { service, client, ourUrl, server: describeServer(server), durability, anchor, oursSide, measureLoad }
}

/** The service's main-thread profile: its final measured window (`windowSeconds` ending `skipSeconds` before exit) or the whole run. */
const reportProfile = (pid: number, windowSeconds: number | undefined, skipSeconds: number) => {
  const file = mainThreadProfile(pid)
  if (file === undefined) {
    log("   no CPU profile was written")
    return
  }
  const window =
    windowSeconds === undefined
      ? " (whole run)"
      : ` (the final measured window: ${windowSeconds} s ending ${skipSeconds.toFixed(1)} s before exit)`
  log(`\n   CPU profile of the service: ${relative(root, file)}${window}`)
  log(profileTop(file, 25, windowSeconds ?? Infinity, windowSeconds === undefined ? 0 : skipSeconds))
}

/** A round's CPU and batch text: `service …% … µs/<unit>, postgres …%, load …% CPU  batch …/… ms`. */
export const roundCpuText = <PerKey extends string>(r: WindowFigures<PerKey>, perKey: PerKey, unit: string): string =>
  `service ${fmt(r.serviceCpuPercent)}% ${fmt(r[perKey])} µs/${unit}, postgres ${fmt(r.postgresCpuPercent)}%, load ${fmt(r.loadCpuPercent)}% CPU  ` +
  `batch ${fmt(r.meanBatchSize, 1)}/${fmt(r.meanCommitMs, 1)} ms`

/** The first median lines: pgbench's TPS, then ours (`label`, figure `key`) with its ratio, medians and round by round. */
export const rateMedianLines = <R, K extends keyof R & string>(
  rounds: ReadonlyArray<Round<number, R>>,
  medians: { readonly pgbenchTps: number } & Record<K, number>,
  label: string,
  key: K
): Array<string> => [
  "   medians",
  labelled("pgbench -N TPS", fmt(medians.pgbenchTps).padStart(7)),
  labelled(
    label,
    `${fmt(medians[key]).padStart(7)}   ${fmt(medians[key] / medians.pgbenchTps, 2)}× pgbench TPS ` +
      `(rounds: ${rounds.map((r) => fmt((r.ours[key] as number) / r.anchor, 2) + "×").join(", ")})`
  )
]

/** The median CPU line. */
export const cpuMedianLine = <PerKey extends string>(m: WindowFigures<PerKey>, perKey: PerKey, unit: string): string =>
  labelled(
    "CPU",
    `service ${fmt(m.serviceCpuPercent)}% (${fmt(m[perKey])} µs/${unit}, ${fmt(m.serviceSystemPercent)}% of it in the kernel), ` +
      `postgres ${fmt(m.postgresCpuPercent)}%, load generator ${fmt(m.loadCpuPercent)}%; ledger batch ${fmt(m.meanBatchSize, 1)} ops in ${fmt(m.meanCommitMs, 1)} ms`
  )
