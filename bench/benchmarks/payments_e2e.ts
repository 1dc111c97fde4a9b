/**
 * Measures completed payments per second over HTTP, each end to end (put_payment_order by a merchant,
 * order_start on the built-in internal terminal, pay_internal by a payer's session; all three must
 * answer 200 and the order end Paid) with BENCH_CONNECTIONS concurrent clients (bench/load/payments.ts,
 * its own process) against the real service (`src/main.ts`) on a fresh PostgreSQL database, beside
 * `pgbench -N` TPS with the same client count on the same server, in alternating rounds: medians of
 * payments/s, latency (p50/p99, and p50 of each call) and the service's CPU µs per payment. Each
 * payment is two ledger commits (the order's creation; its payment, through the payer's wallet actor)
 * plus the start's commit. A Payment tariff (0.5% to the Fees wallet) puts the fee posting on the path.
 */
import type { PaymentLoadSpec, PaymentLoadSummary } from "../load/payments.ts"
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

type OursRound = PaymentLoadSummary & {
  readonly paymentsPerSec: number
} & WindowFigures<"serviceCpuMicrosPerPayment">

export const paymentsE2e: Benchmark<number, OursRound> = {
  name: "payments_e2e",
  budget: { key: "serviceCpuMicrosPerPayment", micros: 1000, per: "payment", ratio: 0.2 },
  summary: "completed payments/s (put_payment_order, order_start, pay_internal) over HTTP vs pgbench -N TPS",
  prepare: async (run) => {
    const { settings } = run
    const clients = settings.connections
    const payerCount = Math.round(positive("BENCH_WALLETS", 200))
    const merchantCount = Math.round(positive("BENCH_MERCHANTS", 8))
    const e2e = await prepareE2e(run, {
      clients,
      load: `${clients} payment loops (undici keep-alive, own process), ${payerCount} payers, ${merchantCount} merchant apps`,
      databasePrefix: "bench_pay"
    })
    const setupStarted = performance.now()
    const payers = await createFundedWallets(e2e.client, payerCount, "1000000")
    const apps: Array<{ appId: string; pkey: string }> = []
    for (let i = 0; i < merchantCount; i++) {
      const wallet = await e2e.client.createWallet(String(830_000_000 + i), { name: `Merchant ${i}` })
      const app = await e2e.client.privResult("create_app", { walletId: wallet.id, name: `Shop ${i}` })
      apps.push({ appId: app.appId, pkey: app.pkey })
    }
    await e2e.client.privResult("set_tariffs", [
      { txClass: "Payment", currency: "USDT", feeFixed: "0", feePercent: "0.5" }
    ])
    const networks = (await e2e.client.privResult("tokens_networks")) as Array<{ id: string; typeNetwork: number }>
    const terminalId = String(networks.find((t) => t.typeNetwork === 240)!.id)
    log(
      `   setup: ${payerCount} payers funded with sessions, ${merchantCount} merchant apps in ${fmt((performance.now() - setupStarted) / 1000, 1)} s`
    )
    const ours = e2e.oursSide<OursRound>({
      label: "payments",
      measure: async () => {
        const spec: PaymentLoadSpec = {
          base: e2e.service.base,
          payers,
          apps,
          terminalId,
          clients,
          seconds: settings.seconds,
          warmupSeconds: settings.warmupSeconds
        }
        const { summary: s, figures } = await e2e.measureLoad({
          script: "bench/load/payments.ts",
          spec,
          graceMs: 10_000,
          perKey: "serviceCpuMicrosPerPayment",
          completed: (s: PaymentLoadSummary) => s.completed
        })
        return { ...s, paymentsPerSec: s.completed / s.elapsedSeconds, ...figures }
      },
      report: (r) =>
        `${fmt(r.paymentsPerSec).padStart(7)} /s  p50 ${fmt(r.latencyP50Ms, 1)} p99 ${fmt(r.latencyP99Ms, 1)} ms ` +
        `(put ${fmt(r.putP50Ms, 1)} + start ${fmt(r.startP50Ms, 1)} + pay ${fmt(r.payP50Ms, 1)})  ` +
        roundCpuText(r, "serviceCpuMicrosPerPayment", "payment") +
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
              "paymentsPerSec",
              "latencyP50Ms",
              "latencyP99Ms",
              "putP50Ms",
              "startP50Ms",
              "payP50Ms",
              ...windowFigureKeys("serviceCpuMicrosPerPayment")
            ]
          )
        }
        const failures = rounds.reduce((n, r) => n + r.ours.failed, 0)
        return {
          ratio: medians.paymentsPerSec / medians.pgbenchTps,
          headline: {
            anchor: `pgbench -N ${fmt(medians.pgbenchTps)} TPS`,
            ours: `${fmt(medians.paymentsPerSec)} payments/s, ${fmt(medians.serviceCpuMicrosPerPayment)} µs CPU each`
          },
          lines: [
            ...rateMedianLines(rounds, medians, "completed payments/s", "paymentsPerSec"),
            labelled(
              "payment latency",
              `p50 ${fmt(medians.latencyP50Ms, 1)} ms, p99 ${fmt(medians.latencyP99Ms, 1)} ms (put p50 ` +
                `${fmt(medians.putP50Ms, 1)}, start ${fmt(medians.startP50Ms, 1)}, pay ${fmt(medians.payP50Ms, 1)} ms)`
            ),
            cpuMedianLine(medians, "serviceCpuMicrosPerPayment", "payment"),
            ...(failures > 0 ? [`   ${failures} payments FAILED: the figures are suspect`] : [])
          ],
          record: {
            server: e2e.server,
            durability: e2e.durability,
            settings: { ...settings, clients, payers: payerCount, merchants: merchantCount },
            failures,
            median: medians
          }
        }
      }
    }
  }
}
