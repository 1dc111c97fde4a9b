import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // test/unit, test/actors (each file its own database and actors) and test/integration (each file its own
    // service process and database); two files at a time fit this machine's two cores.
    maxWorkers: 2,
    fileParallelism: true,
    reporters: ["default"]
  }
})
