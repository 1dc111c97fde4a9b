/**
 * Runs one benchmark end to end: starts the bare node:http anchor and our service (each its own
 * process), lets the benchmark prepare its target, checks one request of each, compares them in
 * alternating rounds, prints the table and writes the JSON record. Both servers are always stopped.
 */
import { cpus, loadavg } from "node:os"
import { relative } from "node:path"
import { root } from "../../test/support/Service.ts"
import { startAnchor } from "../anchor/startAnchor.ts"
import { compare } from "./Compare.ts"
import { profileDirectory, startOurService, type OurService } from "./OurService.ts"
import { formatTable, writeResult } from "./Report.ts"
import { readSettings } from "./Settings.ts"
import type { Target } from "./Target.ts"

export interface Benchmark {
  readonly name: string
  /** One line: what it measures. */
  readonly summary: string
  /** The req/s ratio ours/anchor this route should reach, when the issue sets one. */
  readonly targetRatio?: number
  /** Sets up whatever the route needs on a freshly started service and returns the target. */
  readonly prepare: (ours: OurService) => Promise<Target>
}

/** One request before the load: the route must answer 200 with a successful envelope. */
const preflight = async (target: Target): Promise<number> => {
  const response = await fetch(target.url, { headers: target.headers })
  const text = await response.text()
  const body = JSON.parse(text) as { error?: unknown }
  if (response.status !== 200 || body.error !== null) throw new Error(`${target.name}: ${response.status} ${text}`)
  return Buffer.byteLength(text)
}

export const runBenchmark = async (benchmark: Benchmark): Promise<void> => {
  const settings = readSettings()
  const log = (line: string) => console.log(line)
  log(`\n== ${benchmark.name}: ${benchmark.summary}`)
  log(`   node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model ?? "?"}), load average ${loadavg().map((l) => l.toFixed(2)).join(" ")}`)
  log(`   ${settings.rounds} alternating rounds × (${settings.warmupSeconds} s warm-up + ${settings.seconds} s measured), ` +
    `${settings.connections} keep-alive connections (autocannon, own process)`)
  const anchor = await startAnchor()
  let ours: OurService | undefined
  try {
    ours = await startOurService(settings.profile)
    log(`   database: ${ours.database}`)
    if (ours.service.databaseUrl !== undefined) log("   (CPU µs/req counts the service's node process only, not the PostgreSQL server's work)")
    const target = await benchmark.prepare(ours)
    const sizes = { anchor: await preflight(anchor), ours: await preflight(target) }
    log(`   response bodies: anchor ${sizes.anchor} B, ours ${sizes.ours} B (${target.url.replace(ours.service.base, "")})`)
    const comparison = await compare(anchor, target, settings, log)
    log("\n" + formatTable(anchor.name, `${target.name}`, comparison))
    let verdict: string | undefined
    if (benchmark.targetRatio !== undefined) {
      const met = comparison.ratios.reqPerSec >= benchmark.targetRatio
      verdict = `${met ? "meets" : "BELOW"} the target of ≥ ${benchmark.targetRatio}× bare node req/s`
      log(`   ${verdict}`)
    }
    const path = writeResult(benchmark.name, {
      benchmark: benchmark.name,
      summary: benchmark.summary,
      at: new Date().toISOString(),
      node: process.version,
      cpus: cpus().length,
      loadAverage: loadavg(),
      database: ours.database,
      settings,
      responseBytes: sizes,
      targetRatio: benchmark.targetRatio ?? null,
      verdict: verdict ?? null,
      ...comparison
    })
    log(`   results: ${relative(root, path)}`)
  } finally {
    await anchor.stop()
    if (ours !== undefined) await ours.service.stop()
    if (settings.profile) log(`   CPU profile of our service: ${relative(root, profileDirectory)}/ (npx tsx bench/profile/top.ts <file>)`)
  }
}
