/**
 * Waiting between tries when the node or the service is down: the poll interval doubled per failure
 * in a row, capped, reset by a success.
 */
export interface Backoff {
  /** The wait after one more failure in a row (ms). */
  readonly fail: () => number
  readonly succeed: () => void
  readonly failures: () => number
}

export const makeBackoff = (baseMs: number, capMs = 30_000): Backoff => {
  let failures = 0
  return {
    fail: () => {
      failures++
      return Math.min(capMs, Math.max(baseMs, 100) * 2 ** Math.min(failures - 1, 16))
    },
    succeed: () => {
      failures = 0
    },
    failures: () => failures
  }
}

/** Resolves after `ms`, or at once when `signal` aborts. */
export const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    if (signal?.aborted) return resolve()
    const timer = setTimeout(done, ms)
    function done() {
      clearTimeout(timer)
      signal?.removeEventListener("abort", done)
      resolve()
    }
    signal?.addEventListener("abort", done, { once: true })
  })

/** One log line on stderr with a UTC timestamp. */
export const log = (tool: string, message: string): void => {
  process.stderr.write(`${new Date().toISOString()} ${tool} ${message}\n`)
}
