import { defineConfig } from "vitest/config"
import FileTimesReporter from "./scripts/file-times-reporter.ts"

// Every run also writes a JSON report of its files' times, one per database path, so the slowest files are
// known (`node scripts/slowest-tests.mjs test-results/embedded.json`; .ci/run prints them after each pass).
const reportFile = `test-results/${process.env.DATABASE_URL ? "server" : "embedded"}.json`

export default defineConfig({
  test: {
    // Spikes and library experiments (test/spikes/) leave the default run: `npm run test:spikes` runs them.
    include: process.env.VITEST_SPIKES === "1" ? ["test/spikes/**/*.test.ts"] : ["test/**/*.test.ts"],
    exclude: process.env.VITEST_SPIKES === "1" ? [] : ["test/spikes/**", "**/node_modules/**"],
    // `npm start` runs the compiled service: built once here, before any test boots one; then the migrated
    // template each test database copies (test/support/Template.ts).
    globalSetup: ["test/support/BuildOnce.ts", "test/support/MigrateOnce.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // test/unit, test/actors (each file its own database and actors) and test/integration (each file its own
    // service process and database). Embedded, each file's database runs inside its process: two at a time fit
    // this machine's two cores. Against a server the files mostly wait (on the service's beats and timers, on
    // PostgreSQL): three at a time keep both cores busy (server pass 311 s at two, 248 s at three, same machine).
    maxWorkers: process.env.DATABASE_URL ? 3 : 2,
    fileParallelism: true,
    reporters: ["default", new FileTimesReporter(reportFile)]
  }
})
