/**
 * A vitest reporter that writes one JSON report per run: every test file with its time (tests and hooks,
 * so a service boot in beforeAll counts), its state, and the run's wall time. vitest.config.ts names the
 * file per database path; scripts/slowest-tests.mjs prints the slowest.
 */
import { mkdirSync, writeFileSync } from "node:fs"
import { dirname, relative } from "node:path"
import type { Reporter, TestModule } from "vitest/node"

export default class FileTimesReporter implements Reporter {
  private readonly started = Date.now()
  private readonly files: Array<{ file: string; seconds: number; state: string }> = []

  constructor(private readonly outputFile: string) {}

  onTestModuleEnd(module: TestModule): void {
    const diagnostic = module.diagnostic()
    this.files.push({
      file: relative(process.cwd(), module.moduleId),
      seconds: Math.round((diagnostic.duration + diagnostic.setupDuration) / 100) / 10,
      state: module.state()
    })
  }

  onTestRunEnd(): void {
    mkdirSync(dirname(this.outputFile), { recursive: true })
    const files = [...this.files].sort((a, b) => b.seconds - a.seconds)
    const report = { wallSeconds: Math.round((Date.now() - this.started) / 1000), files }
    writeFileSync(this.outputFile, JSON.stringify(report, null, 2) + "\n")
  }
}
