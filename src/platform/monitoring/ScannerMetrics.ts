/**
 * The crypto rails' figures (CONTRACT C15, "Journal and monitoring"), per terminal that had a
 * scanner push (a `chain_heads` row), labelled `terminal`: its tip, the seconds since its last
 * accepted push, its reorgs and deep reorgs, and its withdrawals and refunds Queued for the signer
 * (not yet handed off). The authority is SQL, written by the chain actor and the signer queue in
 * their ledger commits, so the figures are read from it when scraped (Metrics.onScrape), never
 * kept in memory by the writers: any process, any worker, reports the same numbers.
 *
 * `withdrawals_queued` is registered here and only here.
 */
import { Context, Effect, Layer, Metric } from "effect"
import { scannerFigures, type ScannerRow } from "../../../sql/CryptoTxRepo.ts"
import { makeDb } from "../db/Sql.ts"
import { Metrics } from "./Metrics.ts"

export const scannerTipHeight = Metric.gauge("scanner_tip_height", {
  description: "Height of the terminal's current chain tip, by terminal"
})
export const scannerLagSeconds = Metric.gauge("scanner_lag_seconds", {
  description: "Seconds since the terminal's last accepted scanner push, by terminal"
})
export const scannerReorgs = Metric.counter("scanner_reorgs_total", {
  description: "Reorgs the terminal's scanner reported (a block replacing a stored one), by terminal",
  incremental: true
})
export const scannerDeepReorgs = Metric.counter("scanner_deep_reorgs_total", {
  description: "Reorgs orphaning at least the terminal's confirmations in blocks, by terminal",
  incremental: true
})
export const withdrawalsQueued = Metric.gauge("withdrawals_queued", {
  description: "Withdrawals and refunds Queued for the signer, not yet handed off, by terminal"
})

/** One scanned terminal as monitoring_stats lists it. */
export interface ScannerStat {
  readonly tokenNetwork: string
  readonly tipHeight: number
  readonly tipHash: string
  readonly lagSeconds: number
  readonly reorgs: number
  readonly deepReorgs: number
  readonly queued: number
}

export const scannerStatOf = (row: ScannerRow): ScannerStat => ({
  tokenNetwork: String(row.terminalId),
  tipHeight: Number(row.tipHeight),
  tipHash: row.tipHash,
  lagSeconds: Math.max(0, Math.round(row.now.getTime() - row.lastPushAt.getTime()) / 1000),
  reorgs: Number(row.reorgs),
  deepReorgs: Number(row.deepReorgs),
  queued: Number(row.queued)
})

export class ScannerMetrics extends Context.Service<
  ScannerMetrics,
  {
    /** The figures of the latest scrape (Metrics.refresh), in terminal order. */
    readonly latest: () => ReadonlyArray<ScannerStat>
  }
>()("core/ScannerMetrics") {
  static readonly layer = Layer.effect(
    ScannerMetrics,
    Effect.gen(function* () {
      const db = yield* makeDb
      const metrics = yield* Metrics
      let latest: ReadonlyArray<ScannerStat> = []
      // The counters' values so far per terminal: SQL keeps totals, a counter takes increments.
      const counted = new Map<string, { reorgs: number; deepReorgs: number }>()

      const publish = (stats: ReadonlyArray<ScannerStat>) => {
        for (const stat of stats) {
          const labels = { terminal: stat.tokenNetwork }
          metrics.update(Metric.withAttributes(scannerTipHeight, labels), stat.tipHeight)
          metrics.update(Metric.withAttributes(scannerLagSeconds, labels), stat.lagSeconds)
          metrics.update(Metric.withAttributes(withdrawalsQueued, labels), stat.queued)
          const before = counted.get(stat.tokenNetwork) ?? { reorgs: 0, deepReorgs: 0 }
          metrics.update(Metric.withAttributes(scannerReorgs, labels), Math.max(0, stat.reorgs - before.reorgs))
          metrics.update(
            Metric.withAttributes(scannerDeepReorgs, labels),
            Math.max(0, stat.deepReorgs - before.deepReorgs)
          )
          counted.set(stat.tokenNetwork, {
            reorgs: Math.max(stat.reorgs, before.reorgs),
            deepReorgs: Math.max(stat.deepReorgs, before.deepReorgs)
          })
        }
        latest = stats
      }

      // A database that does not answer in time leaves the last figures in place.
      yield* metrics.onScrape(
        db(scannerFigures).pipe(
          Effect.map((rows) => publish(rows.map(scannerStatOf))),
          Effect.timeout("2 seconds"),
          Effect.exit,
          Effect.asVoid
        )
      )
      return ScannerMetrics.of({ latest: () => latest })
    })
  )
}
