/**
 * Measures completed two-step internal transfers per second over HTTP (step one reserves, step two
 * confirms with the inline code; both must answer 200) with BENCH_CONNECTIONS concurrent clients
 * (bench/load/transfers.ts, its own process) against the real service (`src/main.ts`) on a fresh
 * PostgreSQL database, beside `pgbench -N` TPS with the same client count on the same server, in
 * alternating rounds: medians of transfers/s and of the transfer latency (p50/p99, both steps),
 * and the ratio to pgbench TPS (the target: ≥ 2×). BENCH_PROFILE=1 profiles the service.
 */
import type { TransferLoadSpec, TransferLoadSummary } from "../load/transfers.ts"
import {
  cpuMedianLine,
  prepareE2e,
  rateMedianLines,
  roundCpuText,
  windowFigureKeys,
  type WindowFigures
} from "../support/E2e.ts"
import { createFundedWallets } from "../support/Fixtures.ts"
import { fmt, labelled, log, median, mediansOf, type Benchmark } from "../support/Harness.ts"
import { positive } from "../support/Settings.ts"

type OursRound = TransferLoadSummary & {
  readonly transfersPerSec: number
} & WindowFigures<"serviceCpuMicrosPerTransfer">

export const transfersE2e: Benchmark<number, OursRound> = {
  name: "transfers_e2e",
  summary: "completed two-step internal transfers/s over HTTP (p50/p99) vs pgbench -N TPS, same PostgreSQL server",
  target: { ratio: 2, what: "transfers/s vs pgbench -N TPS" },
  budget: { key: "serviceCpuMicrosPerTransfer", micros: 400, per: "transfer", ratio: 0.5 },
  prepare: async (run) => {
    const { settings } = run
    const clients = settings.connections
    const walletCount = Math.round(positive("BENCH_WALLETS", 200))
    const e2e = await prepareE2e(run, {
      clients,
      load: `${clients} transfer loops (undici keep-alive, own process) over ${walletCount} wallets`,
      databasePrefix: "bench_e2e"
    })
    const setupStarted = performance.now()
    const wallets = await createFundedWallets(e2e.client, walletCount, "1000000")
    log(
      `   setup: ${walletCount} wallets created, funded and given sessions in ${fmt((performance.now() - setupStarted) / 1000, 1)} s`
    )
    const ours = e2e.oursSide<OursRound>({
      label: "transfers",
      measure: async () => {
        const spec: TransferLoadSpec = {
          base: e2e.service.base,
          wallets,
          clients,
          seconds: settings.seconds,
          warmupSeconds: settings.warmupSeconds
        }
        const { summary: s, figures } = await e2e.measureLoad({
          script: "bench/load/transfers.ts",
          spec,
          graceMs: 10_000,
          perKey: "serviceCpuMicrosPerTransfer",
          completed: (s: TransferLoadSummary) => s.completed
        })
        return { ...s, transfersPerSec: s.completed / s.elapsedSeconds, ...figures }
      },
      report: (r) =>
        `${fmt(r.transfersPerSec).padStart(7)} /s  p50 ${fmt(r.latencyP50Ms, 1)} p99 ${fmt(r.latencyP99Ms, 1)} ms ` +
        `(steps p50 ${fmt(r.stepOneP50Ms, 1)} + ${fmt(r.stepTwoP50Ms, 1)})  ${roundCpuText(r, "serviceCpuMicrosPerTransfer", "transfer")}` +
        (r.failed > 0 ? `  ${r.failed} FAILED (first: ${r.firstFailure})` : "")
    })
    return {
      anchor: e2e.anchor,
      ours,
      conclude: (rounds) => {
        const medians = {
          pgbenchTps: median(rounds.map((r) => r.anchor)),
          ...mediansOf(
            rounds.map((r) => r.ours),
            [
              "transfersPerSec",
              "latencyP50Ms",
              "latencyP99Ms",
              "stepOneP50Ms",
              "stepTwoP50Ms",
              ...windowFigureKeys("serviceCpuMicrosPerTransfer")
            ]
          )
        }
        const failures = rounds.reduce((n, r) => n + r.ours.failed, 0)
        return {
          ratio: medians.transfersPerSec / medians.pgbenchTps,
          headline: {
            anchor: `pgbench -N ${fmt(medians.pgbenchTps)} TPS`,
            ours: `${fmt(medians.transfersPerSec)} transfers/s, ${fmt(medians.serviceCpuMicrosPerTransfer)} µs CPU each`
          },
          lines: [
            ...rateMedianLines(rounds, medians, "completed transfers/s", "transfersPerSec"),
            labelled(
              "transfer latency",
              `p50 ${fmt(medians.latencyP50Ms, 1)} ms, p99 ${fmt(medians.latencyP99Ms, 1)} ms ` +
                `(step one p50 ${fmt(medians.stepOneP50Ms, 1)} ms, step two p50 ${fmt(medians.stepTwoP50Ms, 1)} ms)`
            ),
            cpuMedianLine(medians, "serviceCpuMicrosPerTransfer", "transfer"),
            ...(failures > 0 ? [`   ${failures} transfers FAILED: the figures are suspect`] : [])
          ],
          record: {
            server: e2e.server,
            durability: e2e.durability,
            settings: { ...settings, clients, wallets: walletCount },
            failures,
            median: medians
          }
        }
      }
    }
  }
}
