/**
 * Measures the ledger engine in-process on a real PostgreSQL server: committed postings/s and
 * operations/s of the group-committing LedgerWriter (a child process building the service's real
 * layers on a fresh database, BENCH_INFLIGHT fibers committing 2–3-posting transfers, every commit
 * durable) beside `pgbench -N` TPS with BENCH_PGBENCH_CLIENTS clients on another fresh database of
 * the same server, in alternating rounds; the report gives medians and the ratios to pgbench TPS
 * (the target: postings/s ≥ 20× pgbench TPS).
 */
import { cpus, loadavg } from "node:os"
import { relative } from "node:path"
import { root } from "../../test/support/Service.ts"
import { startChild } from "../support/Child.ts"
import { median } from "../support/Compare.ts"
import type { FromWorker, RunResult, RunSpec, ToWorker } from "../support/LedgerWorker.ts"
import {
  createDatabase, databaseUrl, describeServer, dropDatabase, preparePgbench, serverSetting, serverUrl
} from "../support/Pgbench.ts"
import { writeResult } from "../support/Report.ts"
import { positive, readSettings } from "../support/Settings.ts"

export const ledgerEngineTarget = 20

interface Round { readonly pgbenchTps: number; readonly ours: RunResult }

const fmt = (value: number, digits = 0) => value.toFixed(digits)

export const runLedgerEngine = async (): Promise<void> => {
  const settings = readSettings()
  const inflight = Math.round(positive("BENCH_INFLIGHT", 1024))
  const wallets = Math.round(positive("BENCH_WALLETS", 1000))
  const pgClients = Math.round(positive("BENCH_PGBENCH_CLIENTS", settings.connections))
  const server = serverUrl()
  const log = (line: string) => console.log(line)
  log(`\n== ledger_engine: in-process LedgerWriter postings/s vs pgbench -N TPS on the same server (target ≥ ${ledgerEngineTarget}×)`)
  log(`   node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model ?? "?"}), load average ${loadavg().map((l) => l.toFixed(2)).join(" ")}`)
  const durability = { synchronous_commit: await serverSetting(server, "synchronous_commit"), fsync: await serverSetting(server, "fsync") }
  log(`   ${describeServer(server)}: synchronous_commit=${durability.synchronous_commit}, fsync=${durability.fsync}`)
  log(`   ${settings.rounds} alternating rounds × ${settings.seconds} s measured (ours after ${settings.warmupSeconds} s warm-up); ` +
    `pgbench -N -c ${pgClients} -j 2 -s 1; ours: ${inflight} fibers in flight over ${wallets} wallets, pool ${process.env.DATABASE_POOL_SIZE ?? 10}`)

  const anchor = await preparePgbench(server)
  const ourDatabase = await createDatabase(server, "bench_ledger")
  const worker = startChild<ToWorker, FromWorker>("bench/support/LedgerWorker.ts", { wallets }, {
    DATABASE_URL: databaseUrl(server, ourDatabase), LOG_LEVEL: "warn"
  })
  try {
    const ready = await worker.next()
    if (ready.type !== "ready") throw new Error("ledger worker: not ready")
    log(`   setup: ${wallets} wallets created and funded in ${fmt(ready.setupSeconds, 1)} s; the writer's connections commit with synchronous_commit=${ready.synchronousCommit}`)
    if (ready.synchronousCommit !== "on") log("   WARNING: commits are not durable on this server; the comparison is not the issue's")
    const spec: RunSpec = { inflight, seconds: settings.seconds, warmupSeconds: settings.warmupSeconds }
    const rounds: Array<Round> = []
    for (let round = 1; round <= settings.rounds; round++) {
      let pgbenchTps = 0
      let ours: RunResult | undefined
      const runPgbench = async () => {
        pgbenchTps = await anchor.measure(pgClients, settings.seconds)
        log(`  round ${round}/${settings.rounds}  pgbench -N        ${fmt(pgbenchTps).padStart(8)} TPS`)
      }
      const runOurs = async () => {
        worker.send({ type: "run", spec })
        const reply = await worker.next()
        if (reply.type !== "result") throw new Error(`ledger worker: unexpected ${reply.type}`)
        ours = reply.result
        const r = ours
        log(`  round ${round}/${settings.rounds}  ledger engine     ${fmt(r.postings / r.elapsedSeconds).padStart(8)} postings/s ` +
          `${fmt(r.ops / r.elapsedSeconds).padStart(7)} ops/s  batch ${fmt(r.meanBatchSize, 1)} in ${fmt(r.meanCommitMs, 1)} ms  ` +
          `p50 ${fmt(r.latencyP50Ms, 1)} p99 ${fmt(r.latencyP99Ms, 1)} ms  node ${fmt(r.nodeCpuPercent)}% postgres ${fmt(r.postgresCpuPercent)}% CPU` +
          (r.failures > 0 ? `  ${r.failures} FAILED` : ""))
      }
      for (const step of round % 2 === 1 ? [runPgbench, runOurs] : [runOurs, runPgbench]) await step()
      rounds.push({ pgbenchTps, ours: ours! })
    }

    const per = (f: (r: RunResult) => number) => median(rounds.map((r) => f(r.ours)))
    const medians = {
      pgbenchTps: median(rounds.map((r) => r.pgbenchTps)),
      postingsPerSec: per((r) => r.postings / r.elapsedSeconds),
      opsPerSec: per((r) => r.ops / r.elapsedSeconds),
      meanBatchSize: per((r) => r.meanBatchSize),
      meanCommitMs: per((r) => r.meanCommitMs),
      latencyP50Ms: per((r) => r.latencyP50Ms),
      latencyP99Ms: per((r) => r.latencyP99Ms),
      nodeCpuPercent: per((r) => r.nodeCpuPercent),
      postgresCpuPercent: per((r) => r.postgresCpuPercent)
    }
    const ratios = {
      postingsPerTps: medians.postingsPerSec / medians.pgbenchTps,
      opsPerTps: medians.opsPerSec / medians.pgbenchTps,
      // The same ratio round by round (each round's own pair), to show the spread.
      perRound: rounds.map((r) => r.ours.postings / r.ours.elapsedSeconds / r.pgbenchTps)
    }
    const failures = rounds.reduce((n, r) => n + r.ours.failures, 0)
    log("\n   medians")
    log(`   pgbench -N TPS      ${fmt(medians.pgbenchTps).padStart(9)}`)
    log(`   ledger postings/s   ${fmt(medians.postingsPerSec).padStart(9)}   ${fmt(ratios.postingsPerTps, 2)}× pgbench TPS ` +
      `(rounds: ${ratios.perRound.map((r) => fmt(r, 1) + "×").join(", ")})`)
    log(`   ledger ops/s        ${fmt(medians.opsPerSec).padStart(9)}   ${fmt(ratios.opsPerTps, 2)}× pgbench TPS`)
    log(`   batch ${fmt(medians.meanBatchSize, 1)} ops, commit ${fmt(medians.meanCommitMs, 1)} ms, op latency p50 ${fmt(medians.latencyP50Ms, 1)} ms ` +
      `p99 ${fmt(medians.latencyP99Ms, 1)} ms; node ${fmt(medians.nodeCpuPercent)}% CPU, postgres ${fmt(medians.postgresCpuPercent)}% CPU`)
    if (failures > 0) log(`   ${failures} operations FAILED to commit: the figures are suspect`)
    const met = ratios.postingsPerTps >= ledgerEngineTarget
    const verdict = `${met ? "meets" : "BELOW"} the target of postings/s ≥ ${ledgerEngineTarget}× pgbench -N TPS`
    log(`   ${verdict}`)
    const path = writeResult("ledger_engine", {
      benchmark: "ledger_engine", at: new Date().toISOString(), node: process.version, cpus: cpus().length, loadAverage: loadavg(),
      server: describeServer(server), durability, settings: { ...settings, inflight, wallets, pgbenchClients: pgClients },
      targetRatio: ledgerEngineTarget, verdict, failures, rounds, median: medians, ratios
    })
    log(`   results: ${relative(root, path)}`)
  } finally {
    await worker.stop({ type: "stop" })
    await anchor.drop()
    await dropDatabase(server, ourDatabase)
  }
}
