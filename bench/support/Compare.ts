/**
 * Alternating rounds: each round measures the anchor and our service once (the order flips every
 * round so drift on a shared machine hits both alike); the result keeps every round and the
 * per-figure medians, with the ratios ours/anchor of the medians.
 */
import { measure, type Measurement } from "./LoadRun.ts"
import type { Settings } from "./Settings.ts"
import type { Target } from "./Target.ts"

export interface Comparison {
  readonly rounds: ReadonlyArray<{ readonly anchor: Measurement; readonly ours: Measurement }>
  readonly median: { readonly anchor: Measurement; readonly ours: Measurement }
  /** ours / anchor: above 1 for req/s is better, above 1 for CPU µs/request is worse. */
  readonly ratios: { readonly reqPerSec: number; readonly cpuMicrosPerRequest: number }
}

export const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

const medianOf = (runs: ReadonlyArray<Measurement>): Measurement => {
  const keys = Object.keys(runs[0]) as Array<keyof Measurement>
  return Object.fromEntries(keys.map((key) => [key, median(runs.map((run) => run[key]))])) as unknown as Measurement
}

export const compare = async (
  anchor: Target,
  ours: Target,
  settings: Settings,
  progress: (line: string) => void
): Promise<Comparison> => {
  const rounds: Array<{ anchor: Measurement; ours: Measurement }> = []
  for (let round = 1; round <= settings.rounds; round++) {
    const order = round % 2 === 1 ? [anchor, ours] : [ours, anchor]
    const got = new Map<Target, Measurement>()
    for (const target of order) {
      const m = await measure(target, settings)
      got.set(target, m)
      progress(`  round ${round}/${settings.rounds}  ${target.name.padEnd(16)} ${m.reqPerSec.toFixed(0).padStart(7)} req/s ` +
        `${m.cpuMicrosPerRequest.toFixed(1).padStart(7)} CPU µs/req`)
    }
    rounds.push({ anchor: got.get(anchor)!, ours: got.get(ours)! })
  }
  const medians = { anchor: medianOf(rounds.map((r) => r.anchor)), ours: medianOf(rounds.map((r) => r.ours)) }
  return {
    rounds,
    median: medians,
    ratios: {
      reqPerSec: medians.ours.reqPerSec / medians.anchor.reqPerSec,
      cpuMicrosPerRequest: medians.ours.cpuMicrosPerRequest / medians.anchor.cpuMicrosPerRequest
    }
  }
}
