/** The knobs every benchmark shares, read once from the environment with fixed defaults. */

export const positive = (name: string, fallback: number): number => {
  const raw = process.env[name]
  if (raw === undefined || raw === "") return fallback
  const value = Number(raw)
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, got "${raw}"`)
  return value
}

export interface Settings {
  /** Length of each measured window, in seconds (BENCH_SECONDS, default 5). */
  readonly seconds: number
  /** Unmeasured load before each window, in seconds (BENCH_WARMUP_SECONDS, default 1). */
  readonly warmupSeconds: number
  /** Keep-alive connections held open by the load generator (BENCH_CONNECTIONS, default 32). */
  readonly connections: number
  /** Alternating rounds per server; the report shows medians (BENCH_ROUNDS, default 3). */
  readonly rounds: number
  /** BENCH_PROFILE=1: run our service under `--cpu-prof`, profiles in bench/results/profiles/. */
  readonly profile: boolean
  /** Service processes of the end-to-end benchmarks (BENCH_WORKERS, default 1; the service's WORKERS). */
  readonly workers: number
}

export const readSettings = (): Settings => ({
  seconds: positive("BENCH_SECONDS", 5),
  warmupSeconds: positive("BENCH_WARMUP_SECONDS", 1),
  connections: Math.round(positive("BENCH_CONNECTIONS", 32)),
  rounds: Math.round(positive("BENCH_ROUNDS", 3)),
  profile: process.env.BENCH_PROFILE === "1",
  workers: Math.round(positive("BENCH_WORKERS", 1))
})
