/**
 * The GET workload (get_info, get_balance, and the bare node:http anchor): `clients` loops each send
 * the same GET with the same headers and wait for its answer. A completed request is a 200; anything
 * else is counted by status (or "exception") and makes the parent refuse the window's figures.
 */
import { openPool, percentile, readSpec, runLoad, type Phase } from "./Generator.ts"

export interface GetLoadSpec {
  readonly base: string
  readonly path: string
  readonly headers: Record<string, string>
  readonly clients: number
  readonly seconds: number
  readonly warmupSeconds: number
}

export interface GetLoadSummary {
  /** 200 answers in the measured window. */
  readonly completed: number
  readonly elapsedSeconds: number
  readonly latencyP50Ms: number
  readonly latencyP99Ms: number
  /** Everything else, by HTTP status or "exception". */
  readonly errors: Record<string, number>
  readonly firstError: string | null
}

const spec = readSpec<GetLoadSpec>()
const pool = openPool(spec)
const request = { method: "GET", path: spec.path, headers: spec.headers } as const

let latencies: Array<number> = []
let errors: Record<string, number> = {}
let firstError: string | null = null

const failed = (key: string, text: string) => {
  errors[key] = (errors[key] ?? 0) + 1
  firstError ??= `${key}: ${text.slice(0, 300)}`
}

const client = async (_index: number, phase: () => Phase) => {
  while (phase() !== "done") {
    const counted = phase() === "measured"
    const started = performance.now()
    try {
      const answer = await pool.send(request)
      if (!counted || phase() !== "measured") continue
      if (answer.status === 200) latencies.push(performance.now() - started)
      else failed(String(answer.status), answer.text)
    } catch (error) {
      if (counted && phase() === "measured") failed("exception", String(error))
    }
  }
}

await runLoad(spec, pool, {
  client,
  reset: () => {
    latencies = []
    errors = {}
    firstError = null
  },
  summary: (elapsedSeconds): GetLoadSummary => ({
    completed: latencies.length,
    elapsedSeconds,
    latencyP50Ms: percentile(latencies, 0.5),
    latencyP99Ms: percentile(latencies, 0.99),
    errors,
    firstError
  })
})
