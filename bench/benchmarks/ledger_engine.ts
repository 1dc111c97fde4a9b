/**
 * Measures the ledger engine in-process on a real PostgreSQL server: committed postings/s and
 * operations/s of the group-committing LedgerWriter (a child process building the service's real
 * layers on a fresh database, BENCH_INFLIGHT fibers committing 2–3-posting transfers, every commit
 * durable) beside `pgbench -N` TPS with BENCH_PGBENCH_CLIENTS clients on another fresh database of
 * the same server, in alternating rounds; the report gives medians and the ratios to pgbench TPS
 * (the target: postings/s ≥ 20× pgbench TPS).
 */
import { startChild } from "../support/Child.ts"
import { fmt, log, median, type Benchmark } from "../support/Harness.ts"
import type { FromWorker, RunResult, RunSpec, ToWorker } from "../support/LedgerWorker.ts"
import { describeServer, freshDatabase, pgbenchBeside, serverUrl } from "../support/Postgres.ts"
import { positive } from "../support/Settings.ts"

export const ledgerEngine: Benchmark<number, RunResult> = {
  name: "ledger_engine",
  summary: "in-process LedgerWriter postings/s (durable group commits) vs pgbench -N TPS, same PostgreSQL server",
  target: { ratio: 20, what: "postings/s vs pgbench -N TPS" },
  prepare: async (run) => {
    const { settings } = run
    const inflight = Math.round(positive("BENCH_INFLIGHT", 1024))
    const wallets = Math.round(positive("BENCH_WALLETS", 1000))
    const pgClients = Math.round(positive("BENCH_PGBENCH_CLIENTS", settings.connections))
    const server = serverUrl()
    const { durability, side: anchor } = await pgbenchBeside(run, server, pgClients)
    log(
      `   ${settings.rounds} alternating rounds × ${settings.seconds} s measured (ours after ${settings.warmupSeconds} s warm-up); ` +
        `pgbench -N -c ${pgClients} -j 2 -s 1; ours: ${inflight} fibers in flight over ${wallets} wallets, pool ${process.env.DATABASE_POOL_SIZE ?? 10}`
    )
    const ourUrl = await freshDatabase(run, server, "bench_ledger")
    const worker = startChild<ToWorker, FromWorker>(
      "bench/support/LedgerWorker.ts",
      { wallets },
      { DATABASE_URL: ourUrl, LOG_LEVEL: "warn" }
    )
    run.defer(() => worker.stop({ type: "stop" }))
    const ready = await worker.next()
    if (ready.type !== "ready") throw new Error("ledger worker: not ready")
    log(
      `   setup: ${wallets} wallets created and funded in ${fmt(ready.setupSeconds, 1)} s; the writer's connections commit with synchronous_commit=${ready.synchronousCommit}`
    )
    if (ready.synchronousCommit !== "on")
      log("   WARNING: commits are not durable on this server; the comparison is not the issue's")
    const spec: RunSpec = { inflight, seconds: settings.seconds, warmupSeconds: settings.warmupSeconds }
    return {
      anchor,
      ours: {
        label: "ledger engine",
        measure: async () => {
          worker.send({ type: "run", spec })
          const reply = await worker.next()
          if (reply.type !== "result") throw new Error(`ledger worker: unexpected ${reply.type}`)
          return reply.result
        },
        report: (r) =>
          `${fmt(r.postings / r.elapsedSeconds).padStart(8)} postings/s ` +
          `${fmt(r.ops / r.elapsedSeconds).padStart(7)} ops/s  batch ${fmt(r.meanBatchSize, 1)} in ${fmt(r.meanCommitMs, 1)} ms  ` +
          `p50 ${fmt(r.latencyP50Ms, 1)} p99 ${fmt(r.latencyP99Ms, 1)} ms  node ${fmt(r.nodeCpuPercent)}% postgres ${fmt(r.postgresCpuPercent)}% CPU` +
          (r.failures > 0 ? `  ${r.failures} FAILED` : "")
      },
      conclude: (rounds) => {
        const per = (f: (r: RunResult) => number) => median(rounds.map((r) => f(r.ours)))
        const medians = {
          pgbenchTps: median(rounds.map((r) => r.anchor)),
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
          perRound: rounds.map((r) => r.ours.postings / r.ours.elapsedSeconds / r.anchor)
        }
        const failures = rounds.reduce((n, r) => n + r.ours.failures, 0)
        return {
          ratio: ratios.postingsPerTps,
          headline: {
            anchor: `pgbench -N ${fmt(medians.pgbenchTps)} TPS`,
            ours: `${fmt(medians.postingsPerSec)} postings/s`
          },
          lines: [
            "   medians",
            `   pgbench -N TPS      ${fmt(medians.pgbenchTps).padStart(9)}`,
            `   ledger postings/s   ${fmt(medians.postingsPerSec).padStart(9)}   ${fmt(ratios.postingsPerTps, 2)}× pgbench TPS ` +
              `(rounds: ${ratios.perRound.map((r) => fmt(r, 1) + "×").join(", ")})`,
            `   ledger ops/s        ${fmt(medians.opsPerSec).padStart(9)}   ${fmt(ratios.opsPerTps, 2)}× pgbench TPS`,
            `   batch ${fmt(medians.meanBatchSize, 1)} ops, commit ${fmt(medians.meanCommitMs, 1)} ms, op latency p50 ${fmt(medians.latencyP50Ms, 1)} ms ` +
              `p99 ${fmt(medians.latencyP99Ms, 1)} ms; node ${fmt(medians.nodeCpuPercent)}% CPU, postgres ${fmt(medians.postgresCpuPercent)}% CPU`,
            ...(failures > 0 ? [`   ${failures} operations FAILED to commit: the figures are suspect`] : [])
          ],
          record: {
            server: describeServer(server),
            durability,
            settings: { ...settings, inflight, wallets, pgbenchClients: pgClients },
            failures,
            median: medians,
            ratios
          }
        }
      }
    }
  }
}
