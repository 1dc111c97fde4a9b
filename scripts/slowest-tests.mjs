// Prints the slowest test files of a run's JSON report (scripts/file-times-reporter.ts writes one per
// database path):   node scripts/slowest-tests.mjs test-results/embedded.json [count]
import { readFileSync } from "node:fs"

const [file = "test-results/embedded.json", count = "3"] = process.argv.slice(2)
const report = JSON.parse(readFileSync(file, "utf8"))
console.log(`${file}: ${report.files.length} files in ${report.wallSeconds} s; the ${count} slowest:`)
for (const f of report.files.slice(0, Number(count)))
  console.log(`  ${f.seconds.toFixed(1).padStart(7)} s  ${f.file}${f.state === "passed" ? "" : ` (${f.state})`}`)
