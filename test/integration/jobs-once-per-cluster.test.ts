/**
 * Periodic jobs once per cluster, on their period (issue #22 item 16; src/platform/PeriodicJob.ts). Under
 * WORKERS=2 both processes run every job's loop, but each beat's pass runs in one of them only (its lease
 * in job_leases): summed over both workers' `job_passes_total{job}`, the passes of a window are the beats
 * of that window (the 1 s investment sweep, the 500 ms webhook dispatcher, a 3 s expiry sweep), not
 * twice as many; the start-up pass is one beat's too, so it ran once, not once per worker. The table's
 * own count equals the metrics' sum. A server only (WORKERS needs DATABASE_URL).
 */
import { afterAll, assert, describe } from "@effect/vitest"
import { withDatabase } from "../support/Postgres.ts"
import { itWithServer, type RunningService, startService } from "../support/Service.ts"

let service: RunningService | undefined
afterAll(async () => {
  await service?.stop()
})

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** job_passes_total by job on one monitoring endpoint. */
const passesOn = async (monitoring: string): Promise<Map<string, number>> => {
  const text = await (await fetch(monitoring + "/metrics")).text()
  const out = new Map<string, number>()
  for (const line of text.split("\n")) {
    const match = /^job_passes_total\{[^}]*job="([^"]+)"[^}]*\} ([0-9.e+]+)/.exec(line)
    if (match !== null) out.set(match[1]!, (out.get(match[1]!) ?? 0) + Number(match[2]))
  }
  return out
}

const waitHealthy = async (monitoring: string) => {
  const since = Date.now()
  for (;;) {
    try {
      if ((await fetch(monitoring + "/health", { signal: AbortSignal.timeout(2_000) })).status === 200) return
    } catch {
      /* not yet */
    }
    if (Date.now() - since > 60_000) throw new Error(`${monitoring}/health did not answer in 60 s:\n${service?.log()}`)
    await sleep(100)
  }
}

describe("periodic jobs under WORKERS=2", () => {
  itWithServer(
    "each beat's pass runs once across both processes; the start-up pass once, not per worker",
    async () => {
      const startedAt = Date.now()
      service = await startService({
        env: { WORKERS: "2", PAYMENT_SWEEP_SECONDS: "3", ACQUIRING_RECONCILE_SECONDS: "3600" },
        monitoringPorts: 2
      })
      const monitors = [service.monitoring, `http://127.0.0.1:${Number(new URL(service.monitoring).port) + 1}`]
      for (const monitor of monitors) await waitHealthy(monitor)
      const total = async () => {
        const sums = new Map<string, number>()
        const each = await Promise.all(monitors.map(passesOn))
        for (const byJob of each) for (const [job, n] of byJob) sums.set(job, (sums.get(job) ?? 0) + n)
        return { sums, each }
      }
      const t0 = Date.now()
      const first = await total()
      await sleep(8_000)
      const last = await total()
      const seconds = (Date.now() - t0) / 1000
      const delta = (job: string) => (last.sums.get(job) ?? 0) - (first.sums.get(job) ?? 0)
      const report = JSON.stringify(Object.fromEntries(last.sums))
      // Beats in the window (± one at each edge), never twice as many.
      const within = (job: string, periodSeconds: number) => {
        const beats = seconds / periodSeconds
        assert.isAtMost(delta(job), Math.ceil(beats) + 1, `${job}: ${delta(job)} passes in ${seconds} s; ${report}`)
        assert.isAtLeast(delta(job), Math.floor(beats) - 2, `${job}: ${delta(job)} passes in ${seconds} s; ${report}`)
      }
      within("InvestmentSweep", 1)
      within("MerchantWebhookDispatcher", 0.5)
      within("PaymentExpirySweep", 3)
      // Both processes do take beats (the lease decides, not a fixed leader).
      const both = last.each.filter((byJob) => (byJob.get("InvestmentSweep") ?? 0) > 0).length
      process.stderr.write(
        `investment sweep passes per worker: ${last.each.map((b) => b.get("InvestmentSweep") ?? 0)}\n`
      )
      assert.isAtLeast(both, 1)
      // The lease table counts the same passes (all processes, since the start: the start-up pass once).
      const rows = await withDatabase(
        service.databaseUrl!,
        (sql) => sql<{ job: string; passes: string }>`SELECT job, passes::text AS passes FROM job_leases`
      )
      const after = await total()
      for (const row of rows.filter((r) => r.job === "PaymentExpirySweep" || r.job === "AcquiringReconcile")) {
        const metric = after.sums.get(row.job) ?? 0
        assert.isAtMost(Math.abs(Number(row.passes) - metric), 1, `${row.job}: table ${row.passes}, metrics ${metric}`)
      }
      // AcquiringReconcile (hourly) ran only its start-up beat: once across both workers (twice only if the
      // hour turned while the workers started).
      const hours = Math.floor(Date.now() / 3_600_000) - Math.floor(startedAt / 3_600_000) + 1
      const acquiring = after.sums.get("AcquiringReconcile") ?? 0
      assert.isAtLeast(acquiring, 1)
      assert.isAtMost(acquiring, hours, JSON.stringify(Object.fromEntries(after.sums)))
    },
    90_000
  )
})
