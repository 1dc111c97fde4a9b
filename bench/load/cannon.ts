/**
 * The load generator, always run as its own process (see LoadRun.ts): autocannon holds a fixed
 * number of keep-alive connections open against one URL, first for an unmeasured warm-up, then
 * — after the parent has read the server's CPU clock and answered "go" — for the measured window.
 * Argument: the JSON of a LoadSpec. Speaks to the parent over the IPC channel.
 */
import autocannon from "autocannon"

export interface LoadSpec {
  readonly url: string
  readonly headers: Record<string, string>
  readonly connections: number
  readonly seconds: number
  readonly warmupSeconds: number
}

export interface LoadSummary {
  /** Responses received in the measured window. */
  readonly completed: number
  readonly elapsedSeconds: number
  readonly latencyP50Ms: number
  readonly latencyP99Ms: number
  readonly errors: number
  readonly timeouts: number
  readonly non2xx: number
  readonly statusCodes: Record<string, number>
}

const spec = JSON.parse(process.argv[2] ?? "{}") as LoadSpec
const base = { url: spec.url, headers: spec.headers, connections: spec.connections, timeout: 10 }

const send = (message: unknown) => new Promise<void>((done) => process.send!(message, undefined, undefined, () => done()))

if (spec.warmupSeconds > 0) await autocannon({ ...base, duration: spec.warmupSeconds })
await send({ type: "ready" })
await new Promise<void>((go) => process.once("message", () => go()))
const result = await autocannon({ ...base, duration: spec.seconds })
const summary: LoadSummary = {
  completed: result.requests.total,
  elapsedSeconds: (result.finish.getTime() - result.start.getTime()) / 1000,
  latencyP50Ms: result.latency.p50,
  latencyP99Ms: result.latency.p99,
  errors: result.errors,
  timeouts: result.timeouts,
  non2xx: result.non2xx,
  statusCodes: Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, stat]) => [code, stat.count]))
}
await send({ type: "result", summary })
process.disconnect()
