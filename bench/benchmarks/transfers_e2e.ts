/**
 * Measures completed two-step internal transfers per second over HTTP (step one reserves, step two
 * confirms with the inline code; both must answer 200) with BENCH_CONNECTIONS concurrent clients
 * (bench/load/transfers.ts, its own process) against the real service (`src/main.ts`) on a fresh
 * PostgreSQL database, beside `pgbench -N` TPS with the same client count on the same server, in
 * alternating rounds: medians of transfers/s and of the transfer latency (p50/p99, both steps),
 * and the ratio to pgbench TPS (the target: ≥ 2×). BENCH_PROFILE=1 profiles the service.
 * The run itself (service, pgbench, rounds, CPU, record, profile) is bench/support/E2eRun.ts.
 */
import type { TransferLoadSpec, TransferLoadSummary } from "../load/transfers.ts"
import {
  fmt, labelled, log, logCpuMedians, logRateMedians, measureLoadWindow, oursMedians, pgbenchMedian, roundCpuText, runE2e,
  windowFigureKeys, type WindowFigures
} from "../support/E2eRun.ts"
import { positive, readSettings } from "../support/Settings.ts"
import { createFundedWallets } from "../support/TransferFixture.ts"

export const transfersTarget = 2

type OursRound = TransferLoadSummary & { readonly transfersPerSec: number } & WindowFigures<"serviceCpuMicrosPerTransfer">

export const runTransfersE2e = async (): Promise<void> => {
  const settings = readSettings()
  const clients = settings.connections
  const walletCount = Math.round(positive("BENCH_WALLETS", 200))
  await runE2e({
    name: "transfers_e2e", headline: "completed two-step internal transfers/s over HTTP", target: transfersTarget, settings, clients,
    load: `${clients} transfer loops (undici keep-alive, own process) over ${walletCount} wallets`, databasePrefix: "bench_e2e"
  }, async ({ service, client, rounds: runRounds, conclude }) => {
    const setupStarted = performance.now()
    const wallets = await createFundedWallets(client, walletCount, "1000000")
    log(`   setup: ${walletCount} wallets created, funded and given sessions in ${fmt((performance.now() - setupStarted) / 1000, 1)} s`)
    const rounds = await runRounds<OursRound>({
      label: "transfers",
      measure: async () => {
        const spec: TransferLoadSpec = { base: service.base, wallets, clients, seconds: settings.seconds, warmupSeconds: settings.warmupSeconds }
        const { summary: s, figures } = await measureLoadWindow({
          service, client, script: "bench/load/transfers.ts", spec, name: "transfer load", graceMs: 10_000,
          perKey: "serviceCpuMicrosPerTransfer", completed: (s: TransferLoadSummary) => s.completed
        })
        return { ...s, transfersPerSec: s.completed / s.elapsedSeconds, ...figures }
      },
      report: (r) => `${fmt(r.transfersPerSec).padStart(7)} /s  p50 ${fmt(r.latencyP50Ms, 1)} p99 ${fmt(r.latencyP99Ms, 1)} ms ` +
        `(steps p50 ${fmt(r.stepOneP50Ms, 1)} + ${fmt(r.stepTwoP50Ms, 1)})  ${roundCpuText(r, "serviceCpuMicrosPerTransfer", "transfer")}` +
        (r.failed > 0 ? `  ${r.failed} FAILED (first: ${r.firstFailure})` : "")
    })

    const medians = {
      pgbenchTps: pgbenchMedian(rounds),
      ...oursMedians(rounds, ["transfersPerSec", "latencyP50Ms", "latencyP99Ms", "stepOneP50Ms", "stepTwoP50Ms", ...windowFigureKeys("serviceCpuMicrosPerTransfer")])
    }
    const failures = rounds.reduce((n, r) => n + r.ours.failed, 0)
    const ratio = logRateMedians(rounds, medians, "completed transfers/s", "transfersPerSec")
    log(labelled("transfer latency", `p50 ${fmt(medians.latencyP50Ms, 1)} ms, p99 ${fmt(medians.latencyP99Ms, 1)} ms ` +
      `(step one p50 ${fmt(medians.stepOneP50Ms, 1)} ms, step two p50 ${fmt(medians.stepTwoP50Ms, 1)} ms)`))
    logCpuMedians(medians, "serviceCpuMicrosPerTransfer", "transfer")
    if (failures > 0) log(`   ${failures} transfers FAILED: the figures are suspect`)
    conclude({ ratio, what: "transfers/s", settings: { ...settings, clients, wallets: walletCount }, details: { failures }, rounds, medians })
  })
}
