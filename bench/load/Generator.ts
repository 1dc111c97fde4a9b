/**
 * The load generator every HTTP benchmark uses, always in a process of its own (its CPU is measured
 * apart from the server's): undici's Pool (keep-alive, one connection per client loop, no
 * pipelining) driven through `dispatch` with a bare handler, which costs the generator less CPU per
 * request than fetch or `pool.request` on a machine whose cores the server needs. A workload
 * (get.ts, transfers.ts, orders.ts) supplies the client loop and its summary; this module runs it:
 * the loops warm up, then "ready"; the parent reads its clocks and counters and answers "go"; the
 * counters are reset and the measured window runs; then "result" with the summary, and the process ends.
 */
import { Pool } from "undici"

export type Phase = "warmup" | "measured" | "done"

export interface LoadTiming {
  readonly base: string
  readonly clients: number
  readonly seconds: number
  readonly warmupSeconds: number
}

/** The spec the parent passes as the first argument (JSON). */
export const readSpec = <Spec>(): Spec => JSON.parse(process.argv[2] ?? "{}") as Spec

export interface Exchange {
  readonly method: "GET" | "POST"
  readonly path: string
  readonly headers: Record<string, string>
  readonly body?: string
}

export interface Answer {
  readonly status: number
  readonly text: string
}

/** The connection pool of a load process and its one way of sending a request. */
export const openPool = (spec: LoadTiming) => {
  const pool = new Pool(new URL(spec.base).origin, {
    connections: spec.clients,
    pipelining: 1,
    keepAliveTimeout: 60_000
  })
  const send = (request: Exchange): Promise<Answer> =>
    new Promise((resolve, reject) => {
      let status = 0
      const chunks: Array<Buffer> = []
      pool.dispatch(
        { method: request.method, path: request.path, headers: request.headers, body: request.body },
        {
          onRequestStart: () => {},
          onResponseStart: (_controller, statusCode) => {
            status = statusCode
          },
          onResponseData: (_controller, chunk) => {
            chunks.push(chunk)
          },
          onResponseEnd: () =>
            resolve({ status, text: chunks.length === 1 ? chunks[0].toString() : Buffer.concat(chunks).toString() }),
          onResponseError: (_controller, error) => reject(error)
        }
      )
    })
  return { send, close: () => pool.close() }
}

export type LoadPool = ReturnType<typeof openPool>

/** Client `index`'s own wallets: dealt round-robin; with fewer wallets than clients, clients share them. */
export const ownWallets = <W>(wallets: ReadonlyArray<W>, clients: number, index: number): ReadonlyArray<W> =>
  wallets.length >= clients ? wallets.filter((_, i) => i % clients === index) : [wallets[index % wallets.length]]

export const percentile = (values: Array<number>, p: number) => {
  if (values.length === 0) return 0
  const sorted = Float64Array.from(values).sort()
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]
}

const tell = (message: unknown) =>
  new Promise<void>((done) => process.send!(message, undefined, undefined, () => done()))

/**
 * Runs `spec.clients` loops of `client` (each reads the phase through `phase()` and stops at
 * "done"), speaks to the parent, calls `reset` just before the measured window, and sends
 * `summary(elapsedSeconds)` after it; then waits for the loops, closes the pool and disconnects.
 */
export const runLoad = async <Summary>(
  spec: LoadTiming,
  pool: LoadPool,
  options: {
    readonly client: (index: number, phase: () => Phase) => Promise<void>
    readonly reset: () => void
    readonly summary: (elapsedSeconds: number) => Summary
  }
): Promise<void> => {
  let phase: Phase = "warmup"
  const running = Array.from({ length: spec.clients }, (_, i) => options.client(i, () => phase))
  await new Promise((r) => setTimeout(r, spec.warmupSeconds * 1000))
  await tell({ type: "ready" })
  await new Promise<void>((go) => process.once("message", () => go()))
  options.reset()
  phase = "measured"
  const started = performance.now()
  await new Promise((r) => setTimeout(r, spec.seconds * 1000))
  phase = "done"
  const elapsedSeconds = (performance.now() - started) / 1000
  await tell({ type: "result", summary: options.summary(elapsedSeconds) })
  await Promise.allSettled(running)
  await pool.close()
  process.disconnect()
}
