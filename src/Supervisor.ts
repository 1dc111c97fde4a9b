/**
 * `WORKERS=n` (n > 1, a PostgreSQL server only): the service as n runners of one cluster sharing the HTTP
 * port (node:cluster; the primary hands out connections round-robin), so a machine's cores all serve.
 * Worker i is the runner on RUNNER_HOST (default 127.0.0.1) port RUNNER_PORT_BASE + i - 1 (default 34431):
 * every actor lives in exactly one worker, and a request reaching another one is routed to it
 * (docs/CLUSTER.md). Each process has its own ledger writer and caches. Worker 1 starts first (it applies migrations and, on a
 * fresh database, generates the service key), the others once it listens. Worker i serves
 * monitoring on MONITORING_PORT + i - 1 (its own figures). A worker that dies after it served is
 * replaced; one that dies before it ever listened stops the whole service (a start-up error would
 * only repeat). SIGTERM/SIGINT stop every worker gracefully, and the primary exits with 0 when all
 * stopped cleanly.
 */
import cluster, { type Worker } from "node:cluster"

export const workersMax = 16

/** WORKERS from the environment, checked before anything starts: 1..16, more than 1 only with DATABASE_URL. */
export const workerCount = (env: NodeJS.ProcessEnv): number => {
  const text = (env.WORKERS ?? "1").trim()
  const count = /^[0-9]{1,2}$/.test(text) ? Number(text) : NaN
  if (!(count >= 1 && count <= workersMax))
    throw new Error(`WORKERS: must be an integer from 1 to ${workersMax} (got "${text}")`)
  if (count > 1 && (env.DATABASE_URL ?? "").trim().length === 0) {
    throw new Error("WORKERS: more than one process needs DATABASE_URL (the embedded database serves one process)")
  }
  // (A worker is given its RUNNER_ADDRESS by the primary: WORKER_INDEX set.)
  if (count > 1 && env.WORKER_INDEX === undefined && (env.RUNNER_ADDRESS ?? "").trim().length > 0)
    throw new Error(
      "RUNNER_ADDRESS: with WORKERS each worker is a runner on RUNNER_PORT_BASE + i - 1; set that instead"
    )
  runnerPortBase(env, count)
  return count
}

/** RUNNER_PORT_BASE: worker i's runner port is this + i - 1, all of them ports. */
export const runnerPortBase = (env: NodeJS.ProcessEnv, count: number): number => {
  const text = (env.RUNNER_PORT_BASE ?? "34431").trim()
  const base = /^[0-9]{1,5}$/.test(text) ? Number(text) : NaN
  if (!(base >= 1 && base + count - 1 <= 65_535))
    throw new Error(`RUNNER_PORT_BASE: must be a port with ${count} ports from it (got "${text}")`)
  return base
}

/**
 * The environment variable the primary gives every worker it forks: when this start of the service began
 * (epoch ms), so the periodic jobs' start-up pass runs once per start of the whole service, not once per
 * worker (src/platform/PeriodicJob.ts). A worker started alone (WORKERS=1) uses its own start.
 */
export const serviceStartedAtVariable = "SERVICE_STARTED_AT"

export const supervise = (count: number, port: number): void => {
  const startedAt = String(Date.now())
  const runnerHost = (process.env.RUNNER_HOST ?? "").trim() || "127.0.0.1"
  const runnerPort = (index: number) => runnerPortBase(process.env, count) + index - 1
  let stopping = false
  let failed = false
  const fork = (index: number): Worker => {
    let served = false
    const worker = cluster.fork({
      WORKER_INDEX: String(index),
      [serviceStartedAtVariable]: startedAt,
      RUNNER_ADDRESS: `${runnerHost.includes(":") ? `[${runnerHost}]` : runnerHost}:${runnerPort(index)}`
    })
    worker.on("listening", (address) => {
      if (address.port !== port || served) return
      served = true
      if (index === 1) for (let next = 2; next <= count; next++) fork(next)
    })
    worker.on("exit", (code, signal) => {
      if (code !== 0) failed = true
      if (stopping) return
      if (!served) {
        console.error(`worker ${index} exited (${signal ?? code}) before it served: stopping the service`)
        stop()
        return
      }
      console.error(`worker ${index} exited (${signal ?? code}); starting another`)
      setTimeout(() => {
        if (!stopping) fork(index)
      }, 1_000)
    })
    return worker
  }
  const stop = () => {
    stopping = true
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill("SIGTERM")
  }
  cluster.on("exit", () => {
    if (stopping && Object.keys(cluster.workers ?? {}).length === 0) process.exit(failed ? 1 : 0)
  })
  process.on("SIGTERM", stop)
  process.on("SIGINT", stop)
  fork(1)
}
