/**
 * The regression guard of `npm run bench -- all` (issue #25 item 4): one table of every benchmark's headline
 * figure beside its anchor's, the ratio, the target and issue #25's budget, written to
 * bench/results/summary-<time>.json; the ratio of the previous summary there (if any) stands beside today's, so
 * a later change shows what it moved. Ratios only compare runs of one machine with the same idle history.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { cpus, loadavg } from "node:os"
import { join, relative } from "node:path"
import { fmt, log, type Outcome } from "./support/Harness.ts"
import { root } from "./support/Service.ts"

interface SummaryFile {
  readonly at: string
  readonly outcomes: ReadonlyArray<Outcome>
}

const directory = join(root, "bench", "results")

/** The newest summary-*.json in bench/results/, if any. */
const previousSummary = (): SummaryFile | undefined => {
  let names: Array<string>
  try {
    names = readdirSync(directory).filter((name) => name.startsWith("summary-") && name.endsWith(".json"))
  } catch {
    return undefined
  }
  const newest = names.sort().at(-1)
  return newest === undefined ? undefined : (JSON.parse(readFileSync(join(directory, newest), "utf8")) as SummaryFile)
}

const table = (rows: ReadonlyArray<ReadonlyArray<string>>): Array<string> => {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)))
  const line = (row: ReadonlyArray<string>) =>
    "   " +
    row
      .map((cell, i) => cell.padEnd(widths[i]!))
      .join("  ")
      .trimEnd()
  return [line(rows[0]!), line(widths.map((w) => "-".repeat(w))), ...rows.slice(1).map(line)]
}

export const printSummary = (outcomes: ReadonlyArray<Outcome>): void => {
  const before = previousSummary()
  const earlier = new Map(before?.outcomes.filter((o) => o.verdict !== "FAILED").map((o) => [o.name, o.ratio]))
  const header = [
    "benchmark",
    "anchor",
    "ours",
    "ours/anchor",
    before ? `before (${before.at.slice(0, 16)})` : "before"
  ]
  const rows = outcomes.map((o) => [
    o.name,
    o.anchor,
    o.ours,
    o.verdict === "FAILED" ? "FAILED" : `${fmt(o.ratio, 2)}×`,
    earlier.has(o.name) ? `${fmt(earlier.get(o.name)!, 2)}×` : "-"
  ])
  const targets = outcomes.map((o) => [
    o.name,
    o.target === "" ? "-" : `${o.target} ${o.verdict}`,
    o.budget === "" ? "-" : o.budget
  ])
  log(
    `\n== summary (${new Date().toISOString()}, load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")})`
  )
  for (const line of table([header, ...rows])) log(line)
  log("")
  for (const line of table([["benchmark", "target", "issue #25 budget"], ...targets])) log(line)
  mkdirSync(directory, { recursive: true })
  const at = new Date().toISOString()
  const path = join(directory, `summary-${at.replace(/[:.]/g, "-")}.json`)
  writeFileSync(path, JSON.stringify({ at, cpus: cpus().length, outcomes }, null, 2) + "\n")
  log(`   summary: ${relative(root, path)}`)
}
