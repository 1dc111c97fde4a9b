/** Prints a comparison as a table with the ratios, and keeps it as JSON in bench/results/. */
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { root } from "../../test/support/Service.ts"
import type { Comparison } from "./Compare.ts"
import type { Measurement } from "./LoadRun.ts"

const columns = ["server", "req/s", "CPU µs/req", "server CPU%", "load CPU%", "p50 ms", "p99 ms"]
const widths = [16, 9, 11, 12, 10, 8, 8]

const row = (cells: ReadonlyArray<string>) =>
  cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join("  ")

const cells = (name: string, m: Measurement) => [
  name,
  m.reqPerSec.toFixed(0),
  m.cpuMicrosPerRequest.toFixed(1),
  m.serverCpuPercent.toFixed(0),
  m.loadCpuPercent.toFixed(0),
  m.latencyP50Ms.toFixed(1),
  m.latencyP99Ms.toFixed(1)
]

export const formatTable = (anchorName: string, oursName: string, comparison: Comparison): string => {
  const { median, ratios } = comparison
  return [
    row(columns),
    row(widths.map((w) => "-".repeat(w))),
    row(cells(anchorName, median.anchor)),
    row(cells(oursName, median.ours)),
    row(["ours / anchor", ratios.reqPerSec.toFixed(2) + "×", ratios.cpuMicrosPerRequest.toFixed(2) + "×", "", "", "", ""])
  ].join("\n")
}

/** Writes bench/results/<name>-<timestamp>.json and returns its path. */
export const writeResult = (name: string, payload: unknown): string => {
  const directory = join(root, "bench", "results")
  mkdirSync(directory, { recursive: true })
  const stamp = new Date().toISOString().replace(/[:.]/g, "-")
  const path = join(directory, `${name}-${stamp}.json`)
  writeFileSync(path, JSON.stringify(payload, null, 2) + "\n")
  return path
}
