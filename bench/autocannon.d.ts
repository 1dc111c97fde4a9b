/** The small part of autocannon's programmatic API the load generator uses (it ships no types). */
declare module "autocannon" {
  interface Options {
    url: string
    connections?: number
    duration?: number
    headers?: Record<string, string>
    pipelining?: number
    timeout?: number
  }
  interface Histogram {
    average: number
    p50: number
    p90: number
    p99: number
    max: number
    total: number
  }
  interface Result {
    start: Date
    finish: Date
    errors: number
    timeouts: number
    non2xx: number
    statusCodeStats: Record<string, { count: number }>
    latency: Histogram & { totalCount: number }
    requests: Histogram & { sent: number }
  }
  function autocannon(options: Options): Promise<Result>
  export default autocannon
}
