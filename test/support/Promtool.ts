/**
 * `promtool check metrics` (Debian's `prometheus` package) on a scrape: the linter Prometheus users run.
 * Without promtool the test skips LOUDLY, naming the package; CI (.ci/run) installs it and never skips.
 */
import { it } from "@effect/vitest"
import { spawnSync } from "node:child_process"
import { existsSync } from "node:fs"

export const promtoolPath = process.env.PROMTOOL_PATH ?? "/usr/bin/promtool"
export const hasPromtool = (): boolean => existsSync(promtoolPath)

/** promtool's findings for a scrape's text: its exit status and every line it printed. */
export const promtoolFindings = (text: string): { status: number | null; findings: Array<string> } => {
  const run = spawnSync(promtoolPath, ["check", "metrics"], { input: text, encoding: "utf8", timeout: 30_000 })
  const findings = `${run.stdout ?? ""}${run.stderr ?? ""}`.split("\n").filter((line) => line.trim() !== "")
  return { status: run.status, findings }
}

export const itWithPromtool = (name: string, body: () => Promise<void>, timeout?: number) => {
  if (hasPromtool()) return it(name, body, timeout)
  return it.skip(name, () => {
    console.warn(
      `SKIPPED promtool test: no promtool at ${promtoolPath}. Install it with \`apt-get install prometheus\` ` +
        "(or set PROMTOOL_PATH); CI installs it and never skips this."
    )
  })
}
