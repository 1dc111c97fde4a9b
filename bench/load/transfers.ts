/**
 * The two-step transfer load generator, always its own process (2 cores: its CPU is measured apart
 * from the service's). `clients` loops each send step one (POST internal_transfer) and then step
 * two (the same POST with ?confirmationTimetick&confirmationCode) from one of their own wallets
 * (wallets are dealt to clients, so the load itself never queues on a sender's actor) to a random
 * other wallet; one completed transfer is both steps answered 200 with `error: null`. HTTP, the
 * warm-up, "ready", "go", the measured window and "result": Generator.ts.
 */
import { openPool, ownWallets, percentile, readSpec, runLoad, type Phase } from "./Generator.ts"

export interface TransferLoadSpec {
  readonly base: string
  readonly wallets: ReadonlyArray<{ readonly id: string; readonly sid: string }>
  readonly clients: number
  readonly seconds: number
  readonly warmupSeconds: number
}

export interface TransferLoadSummary {
  readonly completed: number
  readonly elapsedSeconds: number
  /** Both steps of one transfer, step one sent to step two answered. */
  readonly latencyP50Ms: number
  readonly latencyP99Ms: number
  readonly stepOneP50Ms: number
  readonly stepTwoP50Ms: number
  readonly failed: number
  readonly firstFailure: string | null
}

const spec = readSpec<TransferLoadSpec>()
const pool = openPool(spec)
const path = "/core/v1/wallet/internal_transfer"

const post = async (sid: string, query: string, body: string) => {
  const { status, text } = await pool.send({
    method: "POST",
    path: path + query,
    body,
    headers: { "content-type": "application/json", cookie: `sid=${sid}` }
  })
  const parsed = JSON.parse(text) as { result: any; error: unknown }
  if (status !== 200 || parsed.error !== null) throw new Error(`${status} ${text}`)
  return parsed.result
}

const totals: Array<number> = [],
  ones: Array<number> = [],
  twos: Array<number> = []
let failed = 0
let firstFailure: string | null = null

const client = async (index: number, phase: () => Phase) => {
  const own = ownWallets(spec.wallets, spec.clients, index)
  while (phase() !== "done") {
    const from = own[Math.floor(Math.random() * own.length)]
    let to = spec.wallets[Math.floor(Math.random() * spec.wallets.length)]
    if (to.id === from.id) to = spec.wallets[(spec.wallets.indexOf(from) + 1) % spec.wallets.length]
    const body = JSON.stringify({
      recipient: to.id,
      currency: "USDT",
      amount: (1 + Math.floor(Math.random() * 100)) / 100
    })
    const counted = phase() === "measured"
    const started = performance.now()
    try {
      const one = await post(from.sid, "", body)
      const middle = performance.now()
      const two = await post(
        from.sid,
        `?confirmationTimetick=${one.txId}&confirmationCode=${one.confirmationCode}`,
        body
      )
      if (two.confirmationStatusCode !== "Confirmed") throw new Error(`step two: ${JSON.stringify(two)}`)
      const ended = performance.now()
      if (counted && phase() === "measured") {
        totals.push(ended - started)
        ones.push(middle - started)
        twos.push(ended - middle)
      }
    } catch (error) {
      failed++
      firstFailure ??= String(error).slice(0, 300)
    }
  }
}

await runLoad(spec, pool, {
  client,
  reset: () => {
    failed = 0
    firstFailure = null
  },
  summary: (elapsedSeconds): TransferLoadSummary => ({
    completed: totals.length,
    elapsedSeconds,
    latencyP50Ms: percentile(totals, 0.5),
    latencyP99Ms: percentile(totals, 0.99),
    stepOneP50Ms: percentile(ones, 0.5),
    stepTwoP50Ms: percentile(twos, 0.5),
    failed,
    firstFailure
  })
})
