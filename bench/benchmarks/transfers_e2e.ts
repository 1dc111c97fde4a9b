/**
 * Measures completed two-step internal transfers per second over HTTP (step one reserves, step two
 * confirms with the inline code; both must answer 200) with BENCH_CONNECTIONS concurrent clients
 * (bench/load/transfers.ts, its own process) against the real service (`src/main.ts`) on a fresh
 * PostgreSQL database, beside `pgbench -N` TPS with the same client count on the same server, in
 * alternating rounds: medians of transfers/s and of the transfer latency (p50/p99, both steps),
 * and the ratio to pgbench TPS (the issue's target: ≥ 2×). BENCH_PROFILE=1 profiles the service.
 */
import { cpus, loadavg } from "node:os"
import { relative } from "node:path"
import { makeClient } from "../../test/support/Client.ts"
import { root, startService, type RunningService } from "../../test/support/Service.ts"
import type { TransferLoadSpec, TransferLoadSummary } from "../load/transfers.ts"
import { startChild } from "../support/Child.ts"
import { median } from "../support/Compare.ts"
import { cpuMicros, cpuSplitMicros, processesCpuMicros } from "../support/Cpu.ts"
import { profileDirectory } from "../support/OurService.ts"
import {
  createDatabase, databaseUrl, describeServer, dropDatabase, preparePgbench, serverSetting, serverUrl
} from "../support/Pgbench.ts"
import { writeResult } from "../support/Report.ts"
import { positive, readSettings } from "../support/Settings.ts"
import { createFundedWallets, ledgerFigures, mainThreadProfile, profileTop, type BenchWallet } from "../support/TransferFixture.ts"

export const transfersTarget = 2

interface OursRound extends TransferLoadSummary {
  readonly transfersPerSec: number
  readonly serviceCpuPercent: number
  readonly serviceCpuMicrosPerTransfer: number
  /** The share of the service's CPU spent in the kernel (socket writes and reads, mostly). */
  readonly serviceSystemPercent: number
  readonly postgresCpuPercent: number
  readonly loadCpuPercent: number
  readonly meanBatchSize: number
  readonly meanCommitMs: number
}

const fmt = (value: number, digits = 0) => value.toFixed(digits)
const pgCpu = (after: Map<number, number>, before: Map<number, number>) =>
  [...after].reduce((sum, [pid, v]) => sum + (before.has(pid) ? v - before.get(pid)! : 0), 0)

const measureOurs = async (service: RunningService, wallets: ReadonlyArray<BenchWallet>, clients: number, seconds: number, warmupSeconds: number): Promise<OursRound> => {
  const client = makeClient(service)
  const spec: TransferLoadSpec = { base: service.base, wallets, clients, seconds, warmupSeconds }
  const load = startChild<"go", { type: "ready" } | { type: "result"; summary: TransferLoadSummary }>("bench/load/transfers.ts", spec)
  try {
    await load.next()
    const pid = service.child.pid!
    const before = { at: performance.now(), split: cpuSplitMicros(pid), service: cpuMicros(pid), load: cpuMicros(load.process.pid!), pg: processesCpuMicros("postgres"), ledger: await ledgerFigures(client) }
    load.send("go")
    const reply = await load.next()
    const wall = (performance.now() - before.at) / 1000
    const after = { split: cpuSplitMicros(pid), service: cpuMicros(pid), load: cpuMicros(load.process.pid!), pg: processesCpuMicros("postgres"), ledger: await ledgerFigures(client) }
    if (reply.type !== "result") throw new Error("transfer load: no result")
    const s = reply.summary
    const commits = after.ledger.commits - before.ledger.commits
    return {
      ...s,
      transfersPerSec: s.completed / s.elapsedSeconds,
      serviceCpuPercent: (after.service - before.service) / 1e6 / wall * 100,
      serviceCpuMicrosPerTransfer: (after.service - before.service) / Math.max(1, s.completed),
      serviceSystemPercent: (after.split.system - before.split.system) / Math.max(1, after.service - before.service) * 100,
      postgresCpuPercent: pgCpu(after.pg, before.pg) / 1e6 / wall * 100,
      loadCpuPercent: (after.load - before.load) / 1e6 / wall * 100,
      meanBatchSize: commits > 0 ? (after.ledger.operations - before.ledger.operations) / commits : 0,
      meanCommitMs: commits > 0 ? (after.ledger.commitMsSum - before.ledger.commitMsSum) / commits : 0
    }
  } finally {
    await load.stop("go", 10_000)
  }
}

export const runTransfersE2e = async (): Promise<void> => {
  const settings = readSettings()
  const clients = settings.connections
  const walletCount = Math.round(positive("BENCH_WALLETS", 200))
  const server = serverUrl()
  const log = (line: string) => console.log(line)
  log(`\n== transfers_e2e: completed two-step internal transfers/s over HTTP vs pgbench -N TPS on the same server (target ≥ ${transfersTarget}×)`)
  log(`   node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model ?? "?"}), load average ${loadavg().map((l) => l.toFixed(2)).join(" ")}`)
  const durability = { synchronous_commit: await serverSetting(server, "synchronous_commit"), fsync: await serverSetting(server, "fsync") }
  log(`   ${describeServer(server)}: synchronous_commit=${durability.synchronous_commit}, fsync=${durability.fsync}`)
  log(`   ${settings.rounds} alternating rounds × ${settings.seconds} s measured (ours after ${settings.warmupSeconds} s warm-up); ` +
    `${clients} clients each: pgbench -N -c ${clients} -j 2 -s 1, and ${clients} transfer loops (undici keep-alive, own process) over ${walletCount} wallets`)

  const anchor = await preparePgbench(server)
  const ourDatabase = await createDatabase(server, "bench_e2e")
  let servicePid: number | undefined
  const nodeOptions = [process.env.NODE_OPTIONS ?? "", settings.profile ? `--cpu-prof --cpu-prof-dir=${profileDirectory}` : ""].join(" ").trim()
  let service: RunningService | undefined
  let lastWasOurs = false
  let oursEndedAt = 0
  let stoppedAt = 0
  try {
    service = await startService({ databaseUrl: databaseUrl(server, ourDatabase), env: { NODE_OPTIONS: nodeOptions } })
    servicePid = service.child.pid
    const setupStarted = performance.now()
    const wallets = await createFundedWallets(makeClient(service), walletCount, "1000000")
    log(`   setup: ${walletCount} wallets created, funded and given sessions in ${fmt((performance.now() - setupStarted) / 1000, 1)} s`)
    const rounds: Array<{ pgbenchTps: number; ours: OursRound }> = []
    for (let round = 1; round <= settings.rounds; round++) {
      let pgbenchTps = 0
      let ours: OursRound | undefined
      const runPgbench = async () => {
        pgbenchTps = await anchor.measure(clients, settings.seconds)
        lastWasOurs = false
        log(`  round ${round}/${settings.rounds}  pgbench -N     ${fmt(pgbenchTps).padStart(7)} TPS`)
      }
      const runOurs = async () => {
        const r = ours = await measureOurs(service!, wallets, clients, settings.seconds, settings.warmupSeconds)
        lastWasOurs = true
        oursEndedAt = performance.now()
        log(`  round ${round}/${settings.rounds}  transfers      ${fmt(r.transfersPerSec).padStart(7)} /s  p50 ${fmt(r.latencyP50Ms, 1)} p99 ${fmt(r.latencyP99Ms, 1)} ms ` +
          `(steps p50 ${fmt(r.stepOneP50Ms, 1)} + ${fmt(r.stepTwoP50Ms, 1)})  service ${fmt(r.serviceCpuPercent)}% ${fmt(r.serviceCpuMicrosPerTransfer)} µs/transfer, ` +
          `postgres ${fmt(r.postgresCpuPercent)}%, load ${fmt(r.loadCpuPercent)}% CPU  batch ${fmt(r.meanBatchSize, 1)}/${fmt(r.meanCommitMs, 1)} ms` +
          (r.failed > 0 ? `  ${r.failed} FAILED (first: ${r.firstFailure})` : ""))
      }
      for (const step of round % 2 === 1 ? [runPgbench, runOurs] : [runOurs, runPgbench]) await step()
      rounds.push({ pgbenchTps, ours: ours! })
    }

    const per = (f: (r: OursRound) => number) => median(rounds.map((r) => f(r.ours)))
    const medians = {
      pgbenchTps: median(rounds.map((r) => r.pgbenchTps)),
      transfersPerSec: per((r) => r.transfersPerSec),
      latencyP50Ms: per((r) => r.latencyP50Ms),
      latencyP99Ms: per((r) => r.latencyP99Ms),
      stepOneP50Ms: per((r) => r.stepOneP50Ms),
      stepTwoP50Ms: per((r) => r.stepTwoP50Ms),
      serviceCpuPercent: per((r) => r.serviceCpuPercent),
      serviceCpuMicrosPerTransfer: per((r) => r.serviceCpuMicrosPerTransfer),
      serviceSystemPercent: per((r) => r.serviceSystemPercent),
      postgresCpuPercent: per((r) => r.postgresCpuPercent),
      loadCpuPercent: per((r) => r.loadCpuPercent),
      meanBatchSize: per((r) => r.meanBatchSize),
      meanCommitMs: per((r) => r.meanCommitMs)
    }
    const ratio = medians.transfersPerSec / medians.pgbenchTps
    const failures = rounds.reduce((n, r) => n + r.ours.failed, 0)
    log("\n   medians")
    log(`   pgbench -N TPS            ${fmt(medians.pgbenchTps).padStart(7)}`)
    log(`   completed transfers/s     ${fmt(medians.transfersPerSec).padStart(7)}   ${fmt(ratio, 2)}× pgbench TPS ` +
      `(rounds: ${rounds.map((r) => fmt(r.ours.transfersPerSec / r.pgbenchTps, 2) + "×").join(", ")})`)
    log(`   transfer latency          p50 ${fmt(medians.latencyP50Ms, 1)} ms, p99 ${fmt(medians.latencyP99Ms, 1)} ms ` +
      `(step one p50 ${fmt(medians.stepOneP50Ms, 1)} ms, step two p50 ${fmt(medians.stepTwoP50Ms, 1)} ms)`)
    log(`   CPU                       service ${fmt(medians.serviceCpuPercent)}% (${fmt(medians.serviceCpuMicrosPerTransfer)} µs/transfer, ${fmt(medians.serviceSystemPercent)}% of it in the kernel), ` +
      `postgres ${fmt(medians.postgresCpuPercent)}%, load generator ${fmt(medians.loadCpuPercent)}%; ledger batch ${fmt(medians.meanBatchSize, 1)} ops in ${fmt(medians.meanCommitMs, 1)} ms`)
    if (failures > 0) log(`   ${failures} transfers FAILED: the figures are suspect`)
    const verdict = `${ratio >= transfersTarget ? "meets" : "BELOW"} the target of transfers/s ≥ ${transfersTarget}× pgbench -N TPS`
    log(`   ${verdict}`)
    const path = writeResult("transfers_e2e", {
      benchmark: "transfers_e2e", at: new Date().toISOString(), node: process.version, cpus: cpus().length, loadAverage: loadavg(),
      server: describeServer(server), durability, settings: { ...settings, clients, wallets: walletCount },
      targetRatio: transfersTarget, verdict, failures, rounds, median: medians, ratio
    })
    log(`   results: ${relative(root, path)}`)
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
