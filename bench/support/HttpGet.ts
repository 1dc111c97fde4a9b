/**
 * The HTTP GET benchmarks (get_info, get_balance): one route of our service beside the bare
 * node:http anchor (bench/anchor/bareNode.ts), both loaded alike by bench/load/get.ts with
 * BENCH_CONNECTIONS keep-alive connections, compared in req/s and the server's CPU µs per request.
 * Our service runs on its embedded PGlite or, with DATABASE_URL set, on a fresh database there.
 */
import { relative } from "node:path"
import { startAnchor } from "../anchor/startAnchor.ts"
import type { GetLoadSpec, GetLoadSummary } from "../load/get.ts"
import { makeClient, type Client } from "./Client.ts"
import { cpuMicros } from "./Cpu.ts"
import { fmt, log, measureWindow, median, type Benchmark, type Round } from "./Harness.ts"
import { freshDatabase } from "./Postgres.ts"
import { describeDatabase, profileDirectory, root, startService, type RunningService } from "./Service.ts"
import type { Settings } from "./Settings.ts"

interface Target {
  readonly url: string
  readonly headers: Record<string, string>
  readonly pid: number
}

export interface Measurement {
  readonly reqPerSec: number
  readonly cpuMicrosPerRequest: number
  /** Server CPU time over wall time in the window (100 = one core busy). */
  readonly serverCpuPercent: number
  /** The load generator's own CPU over wall time: near 100 means it, not the server, may be the limit. */
  readonly loadCpuPercent: number
  readonly latencyP50Ms: number
  readonly latencyP99Ms: number
  readonly completed: number
  readonly elapsedSeconds: number
}

const measure = async (name: string, target: Target, settings: Settings): Promise<Measurement> => {
  const url = new URL(target.url)
  const spec: GetLoadSpec = {
    base: url.origin,
    path: url.pathname,
    headers: target.headers,
    clients: settings.connections,
    seconds: settings.seconds,
    warmupSeconds: settings.warmupSeconds
  }
  const {
    summary: s,
    before,
    after,
    wallSeconds
  } = await measureWindow<GetLoadSummary, { server: number; load: number }>({
    script: "bench/load/get.ts",
    spec,
    sample: (loadPid) => ({ server: cpuMicros(target.pid), load: cpuMicros(loadPid) })
  })
  const failed = Object.values(s.errors).reduce((a, b) => a + b, 0)
  if (failed > 0 || s.completed === 0) {
    throw new Error(
      `${name}: ${s.completed} answered 200, ${failed} not (${JSON.stringify(s.errors)}; first: ${s.firstError}): ` +
        "the figures would be meaningless"
    )
  }
  const serverCpu = after.server - before.server
  return {
    reqPerSec: s.completed / s.elapsedSeconds,
    cpuMicrosPerRequest: serverCpu / s.completed,
    serverCpuPercent: (serverCpu / 1e6 / wallSeconds) * 100,
    loadCpuPercent: ((after.load - before.load) / 1e6 / wallSeconds) * 100,
    latencyP50Ms: s.latencyP50Ms,
    latencyP99Ms: s.latencyP99Ms,
    completed: s.completed,
    elapsedSeconds: s.elapsedSeconds
  }
}

/** One request before the load: the route must answer 200 with a successful envelope; returns the body's size. */
const preflight = async (target: Target): Promise<number> => {
  const response = await fetch(target.url, { headers: target.headers })
  const text = await response.text()
  const body = JSON.parse(text) as { error?: unknown }
  if (response.status !== 200 || body.error !== null) throw new Error(`${target.url}: ${response.status} ${text}`)
  return Buffer.byteLength(text)
}

const columns = ["server", "req/s", "CPU µs/req", "server CPU%", "load CPU%", "p50 ms", "p99 ms"]
const widths = [16, 9, 11, 12, 10, 8, 8]
const row = (cells: ReadonlyArray<string>) =>
  cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join("  ")
const cells = (name: string, m: Measurement) => [
  name,
  m.reqPerSec.toFixed(0),
  m.cpuMicrosPerRequest.toFixed(1),
  m.serverCpuPercent.toFixed(0),
  m.loadCpuPercent.toFixed(0),
  m.latencyP50Ms.toFixed(1),
  m.latencyP99Ms.toFixed(1)
]

const medianOf = (runs: ReadonlyArray<Measurement>): Measurement => {
  const keys = Object.keys(runs[0]) as Array<keyof Measurement>
  return Object.fromEntries(keys.map((key) => [key, median(runs.map((run) => run[key]))])) as unknown as Measurement
}

const anchorName = "bare node:http"
const oursName = "core service"

/**
 * A GET benchmark of the route `route` sets up on a freshly started service (returning its path and
 * headers), beside the bare node:http anchor.
 */
export const getBenchmark = (options: {
  readonly name: string
  readonly summary: string
  readonly targetRatio?: number
  readonly route: (
    service: RunningService,
    client: Client
  ) => Promise<{ readonly path: string; readonly headers?: Record<string, string> }>
}): Benchmark<Measurement, Measurement> => ({
  name: options.name,
  summary: options.summary,
  target:
    options.targetRatio === undefined ? undefined : { ratio: options.targetRatio, what: "req/s vs bare node:http" },
  prepare: async (run) => {
    const { settings, defer } = run
    log(
      `   ${settings.rounds} alternating rounds × (${settings.warmupSeconds} s warm-up + ${settings.seconds} s measured), ` +
        `${settings.connections} keep-alive connections (undici, own process)`
    )
    const anchor = await startAnchor()
    defer(anchor.stop)
    const server = process.env.DATABASE_URL
    const ourUrl = server === undefined || server === "" ? undefined : await freshDatabase(run, server, "bench_http")
    if (settings.profile)
      defer(() =>
        log(`   CPU profile of our service: ${relative(root, profileDirectory)}/ (npx tsx bench/profile/top.ts <file>)`)
      )
    const service = await startService({ databaseUrl: ourUrl, profile: settings.profile })
    defer(service.stop)
    const database = describeDatabase(service)
    log(`   database: ${database}`)
    if (ourUrl !== undefined)
      log("   (CPU µs/req counts the service's node process only, not the PostgreSQL server's work)")
    const route = await options.route(service, makeClient(service))
    const ours: Target = { url: service.base + route.path, headers: route.headers ?? {}, pid: service.pid }
    const bare: Target = { url: anchor.url, headers: {}, pid: anchor.pid }
    const responseBytes = { anchor: await preflight(bare), ours: await preflight(ours) }
    log(`   response bodies: anchor ${responseBytes.anchor} B, ours ${responseBytes.ours} B (${route.path})`)
    const side = (label: string, target: Target) => ({
      label,
      measure: () => measure(label, target, settings),
      report: (m: Measurement) =>
        `${m.reqPerSec.toFixed(0).padStart(7)} req/s ${m.cpuMicrosPerRequest.toFixed(1).padStart(7)} CPU µs/req`
    })
    return {
      anchor: side(anchorName, bare),
      ours: side(oursName, ours),
      conclude: (rounds: ReadonlyArray<Round<Measurement, Measurement>>) => {
        const medians = { anchor: medianOf(rounds.map((r) => r.anchor)), ours: medianOf(rounds.map((r) => r.ours)) }
        // ours / anchor: above 1 for req/s is better, above 1 for CPU µs/request is worse.
        const ratios = {
          reqPerSec: medians.ours.reqPerSec / medians.anchor.reqPerSec,
          cpuMicrosPerRequest: medians.ours.cpuMicrosPerRequest / medians.anchor.cpuMicrosPerRequest
        }
        return {
          ratio: ratios.reqPerSec,
          headline: {
            anchor: `${fmt(medians.anchor.reqPerSec)} req/s, ${fmt(medians.anchor.cpuMicrosPerRequest)} µs CPU/req`,
            ours: `${fmt(medians.ours.reqPerSec)} req/s, ${fmt(medians.ours.cpuMicrosPerRequest)} µs CPU/req`
          },
          lines: [
            row(columns),
            row(widths.map((w) => "-".repeat(w))),
            row(cells(anchorName, medians.anchor)),
            row(cells(oursName, medians.ours)),
            row([
              "ours / anchor",
              ratios.reqPerSec.toFixed(2) + "×",
              ratios.cpuMicrosPerRequest.toFixed(2) + "×",
              "",
              "",
              "",
              ""
            ])
          ],
          record: { database, responseBytes, median: medians, ratios }
        }
      }
    }
  }
})
