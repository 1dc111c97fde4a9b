import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Each file boots its own service (and database); two at a time fit this machine's two cores.
    maxWorkers: 2,
    fileParallelism: true,
    reporters: ["default"]
  }
})
