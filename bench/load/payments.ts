/**
 * The payment load generator, always its own process (2 cores: its CPU is measured apart from the
 * service's). `clients` loops each complete one payment end to end: the merchant creates an order
 * (POST /payorders/v1/put_payment_order with its pkey, a fresh externalId), the gate starts it on the
 * built-in internal terminal (POST /payment/v1/order_start) and a payer pays it from its wallet
 * (POST /payment/v1/pay_internal with its session). Payers are dealt to clients, so the load never
 * queues on one payer's actor; merchants are shared. One completed payment is the three calls answered
 * 200 with `error: null` and the order Paid. HTTP, warm-up, "ready", "go", the window, "result":
 * Generator.ts.
 */
import { openPool, ownWallets, percentile, readSpec, runLoad, type Phase } from "./Generator.ts"

export interface PaymentLoadSpec {
  readonly base: string
  readonly payers: ReadonlyArray<{ readonly id: string; readonly sid: string }>
  readonly apps: ReadonlyArray<{ readonly appId: string; readonly pkey: string }>
  readonly terminalId: string
  readonly clients: number
  readonly seconds: number
  readonly warmupSeconds: number
}

export interface PaymentLoadSummary {
  readonly completed: number
  readonly elapsedSeconds: number
  /** The three calls of one payment, put sent to pay answered. */
  readonly latencyP50Ms: number
  readonly latencyP99Ms: number
  readonly putP50Ms: number
  readonly startP50Ms: number
  readonly payP50Ms: number
  readonly failed: number
  readonly firstFailure: string | null
}

const spec = readSpec<PaymentLoadSpec>()
const pool = openPool(spec)

const post = async (path: string, body: string, headers: Record<string, string>) => {
  const { status, text } = await pool.send({
    method: "POST",
    path,
    body,
    headers: { "content-type": "application/json", ...headers }
  })
  const parsed = JSON.parse(text) as { result: any; error: unknown }
  if (status !== 200 || parsed.error !== null) throw new Error(`${path.split("?")[0]}: ${status} ${text}`)
  return parsed.result
}

const totals: Array<number> = [],
  puts: Array<number> = [],
  starts: Array<number> = [],
  pays: Array<number> = []
let failed = 0
let firstFailure: string | null = null
let sequence = 0
const run = `${process.pid}-${Date.now()}`

const client = async (index: number, phase: () => Phase) => {
  const own = ownWallets(spec.payers, spec.clients, index)
  while (phase() !== "done") {
    const payer = own[Math.floor(Math.random() * own.length)]
    const app = spec.apps[Math.floor(Math.random() * spec.apps.length)]
    const amount = (1 + Math.floor(Math.random() * 100)) / 100
    const counted = phase() === "measured"
    const t0 = performance.now()
    try {
      const order = await post(
        `/payorders/v1/put_payment_order?app_id=${app.appId}`,
        JSON.stringify({ currency: "USDT", orderAmount: amount, externalId: `bench-${run}-${sequence++}` }),
        { pkey: app.pkey }
      )
      const code = encodeURIComponent(order.code)
      const t1 = performance.now()
      await post(`/payment/v1/order_start?code=${code}`, JSON.stringify({ tokenNetworkId: spec.terminalId }), {})
      const t2 = performance.now()
      const paid = await post(`/payment/v1/pay_internal?code=${code}`, "{}", { cookie: `sid=${payer.sid}` })
      if (paid.state !== "Paid") throw new Error(`pay_internal: ${JSON.stringify(paid).slice(0, 300)}`)
      const t3 = performance.now()
      if (counted && phase() === "measured") {
        totals.push(t3 - t0)
        puts.push(t1 - t0)
        starts.push(t2 - t1)
        pays.push(t3 - t2)
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
  summary: (elapsedSeconds): PaymentLoadSummary => ({
    completed: totals.length,
    elapsedSeconds,
    latencyP50Ms: percentile(totals, 0.5),
    latencyP99Ms: percentile(totals, 0.99),
    putP50Ms: percentile(puts, 0.5),
    startP50Ms: percentile(starts, 0.5),
    payP50Ms: percentile(pays, 0.5),
    failed,
    firstFailure
  })
})
