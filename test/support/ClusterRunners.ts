/**
 * Runners of one cluster (issue #26, docs/CLUSTER.md): service processes on one PostgreSQL database, each
 * with its own PORT, MONITORING_PORT and RUNNER_ADDRESS, and what their /metrics say about shards.
 */
import { type RunningService, freePort, startService } from "./Service.ts"

/** A small shard count: the tests' runners take and move their shards quickly. */
export const testShardCount = 30

/** A runner on `databaseUrl` (a new database when undefined), on `runnerPort` if given (a restart). */
export const startRunner = async (
  options: { databaseUrl?: string; runnerPort?: number; env?: Record<string, string> } = {}
): Promise<RunningService & { runnerPort: number }> => {
  const runnerPort = options.runnerPort ?? (await freePort())
  const running = await startService({
    databaseUrl: options.databaseUrl,
    env: { RUNNER_ADDRESS: `127.0.0.1:${runnerPort}`, SHARD_COUNT: String(testShardCount), ...options.env }
  })
  return Object.assign(running, { runnerPort })
}

/** The sum of a metric's series (every label set) on one monitoring address's /metrics; 0 when it does not answer. */
export const metricSum = async (monitoring: string, name: string, labels = ""): Promise<number> => {
  try {
    const text = await (await fetch(monitoring + "/metrics", { signal: AbortSignal.timeout(2_000) })).text()
    let sum = 0
    for (const line of text.split("\n")) {
      if (line.startsWith("#") || line.split(/[ {]/)[0] !== name || !line.includes(labels)) continue
      sum += Number(line.slice(line.lastIndexOf(" ") + 1))
    }
    return sum
  } catch {
    return 0
  }
}

/**
 * Waits until the runners at these monitoring addresses own all `total` shards between them, each some;
 * the milliseconds it took. Throws after `timeoutMs`.
 */
export const shardsSettledAt = async (monitors: ReadonlyArray<string>, total: number, timeoutMs = 30_000) => {
  const started = Date.now()
  for (;;) {
    const owned = await Promise.all(monitors.map((monitor) => metricSum(monitor, "effect_cluster_shards")))
    if (owned.every((n) => n > 0) && owned.reduce((a, b) => a + b, 0) === total) return Date.now() - started
    if (Date.now() - started > timeoutMs)
      throw new Error(`shards not settled in ${timeoutMs} ms: ${owned.join(" + ")} of ${total}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

/** The same for the test's runners (each a service process) and their shard count. */
export const shardsSettled = (runners: ReadonlyArray<RunningService>, timeoutMs = 30_000) =>
  shardsSettledAt(
    runners.map((runner) => runner.monitoring),
    testShardCount,
    timeoutMs
  )
