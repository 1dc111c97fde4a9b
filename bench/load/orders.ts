/**
 * The create_order load generator, always its own process (its CPU is measured apart from the
 * service's). `clients` loops each post limit orders (POST /core/v1/market/create_order) from one
 * of their own wallets (wallets are dealt to clients, so the load never queues on a wallet's actor
 * behind another client) into a random room of the spec. Each client alternates buy and sell per
 * room, and about `crossShare` of its orders are priced through the mid (they take liquidity, so
 * trades happen), the rest on their own side of it (they rest): the book stays bounded around the
 * mid and so do every wallet's open orders and locked funds. One accepted order is a 200 with
 * `error: null`; anything else is counted by HTTP status and envelope error code.
 * HTTP, the warm-up, "ready", "go", the measured window and "result": Generator.ts.
 */
import { openPool, ownWallets, percentile, readSpec, runLoad, type Phase } from "./Generator.ts"

/** One order book the load trades in; prices and quantities are integers in the given decimals. */
export interface OrderRoom {
  readonly roomKey: string
  readonly base: string
  readonly quote: string
  /** Mid price in units of 10^-priceDecimals quote per base. */
  readonly mid: number
  readonly priceDecimals: number
  /** Limit prices are mid ± 1..band price units. */
  readonly band: number
  /** Quantities in units of 10^-quantityDecimals base, uniform in [minQuantity, maxQuantity]. */
  readonly quantityDecimals: number
  readonly minQuantity: number
  readonly maxQuantity: number
}

export interface OrderLoadSpec {
  readonly base: string
  readonly wallets: ReadonlyArray<{ readonly id: string; readonly sid: string }>
  readonly rooms: ReadonlyArray<OrderRoom>
  readonly clients: number
  readonly seconds: number
  readonly warmupSeconds: number
  /** Share of orders priced through the mid (default 0.5). */
  readonly crossShare: number
  /** clientNonce of the first order; unique per wallet across every load process of a run. */
  readonly nonceBase: number
}

export interface OrderLoadSummary {
  readonly accepted: number
  readonly elapsedSeconds: number
  readonly latencyP50Ms: number
  readonly latencyP99Ms: number
  /** Accepted orders that took liquidity on arrival (given > 0 in the reply). */
  readonly filledOnArrival: number
  /** Accepted orders by the state in the reply (Active: something rests; Completed: fully filled). */
  readonly byState: Record<string, number>
  /** Refused or failed requests by `<HTTP status>/<envelope error code>` (or "exception"). */
  readonly errors: Record<string, number>
  readonly firstErrors: Record<string, string>
}

const spec = readSpec<OrderLoadSpec>()
const pool = openPool(spec)
const path = "/core/v1/market/create_order"

/** An integer of units 10^-decimals as a decimal string. */
const decimal = (units: bigint, decimals: number): string => {
  if (decimals === 0) return units.toString()
  const digits = units.toString().padStart(decimals + 1, "0")
  const whole = digits.slice(0, -decimals),
    fraction = digits.slice(-decimals).replace(/0+$/, "")
  return fraction.length > 0 ? `${whole}.${fraction}` : whole
}

const randomInt = (min: number, max: number) => min + Math.floor(Math.random() * (max - min + 1))

let nonce = spec.nonceBase
const orderBody = (room: OrderRoom, sell: boolean, cross: boolean): string => {
  const step = randomInt(1, room.band)
  // A buy through the mid pays above it; a sell through the mid accepts below it.
  const price = BigInt(sell === cross ? room.mid - step : room.mid + step)
  const quantity = BigInt(randomInt(room.minQuantity, room.maxQuantity))
  const baseAmount = decimal(quantity, room.quantityDecimals)
  const quoteAmount = decimal(quantity * price, room.quantityDecimals + room.priceDecimals)
  return JSON.stringify(
    sell
      ? {
          fromCurrency: room.base,
          toCurrency: room.quote,
          fromAmount: baseAmount,
          toAmount: quoteAmount,
          clientNonce: nonce++,
          isLimit: true,
          roomKey: room.roomKey
        }
      : {
          fromCurrency: room.quote,
          toCurrency: room.base,
          fromAmount: quoteAmount,
          toAmount: baseAmount,
          clientNonce: nonce++,
          isLimit: true,
          roomKey: room.roomKey
        }
  )
}

let latencies: Array<number> = []
let filledOnArrival = 0
let byState: Record<string, number> = {}
let errors: Record<string, number> = {}
let firstErrors: Record<string, string> = {}

const refused = (key: string, text: string) => {
  errors[key] = (errors[key] ?? 0) + 1
  firstErrors[key] ??= text.slice(0, 300)
}

const client = async (index: number, phase: () => Phase) => {
  const own = ownWallets(spec.wallets, spec.clients, index)
  const sides = spec.rooms.map(() => Math.random() < 0.5)
  while (phase() !== "done") {
    const wallet = own[Math.floor(Math.random() * own.length)]
    const r = Math.floor(Math.random() * spec.rooms.length)
    const sell = (sides[r] = !sides[r])
    const body = orderBody(spec.rooms[r], sell, Math.random() < spec.crossShare)
    const counted = phase() === "measured"
    const started = performance.now()
    try {
      const { status, text } = await pool.send({
        method: "POST",
        path,
        body,
        headers: { "content-type": "application/json", cookie: `sid=${wallet.sid}` }
      })
      const ended = performance.now()
      if (!counted || phase() !== "measured") continue
      let parsed: { result: any; error: { code: number; message: string } | null } | undefined
      try {
        parsed = JSON.parse(text)
      } catch {
        /* counted below */
      }
      if (status === 200 && parsed !== undefined && parsed.error === null) {
        latencies.push(ended - started)
        if (parsed.result.given !== "0") filledOnArrival++
        byState[parsed.result.state] = (byState[parsed.result.state] ?? 0) + 1
      } else {
        refused(`${status}/${parsed?.error?.code ?? "?"}`, text)
      }
    } catch (error) {
      if (counted && phase() === "measured") refused("exception", String(error))
    }
  }
}

await runLoad(spec, pool, {
  client,
  reset: () => {
    latencies = []
    filledOnArrival = 0
    byState = {}
    errors = {}
    firstErrors = {}
  },
  summary: (elapsedSeconds): OrderLoadSummary => ({
    accepted: latencies.length,
    elapsedSeconds,
    latencyP50Ms: percentile(latencies, 0.5),
    latencyP99Ms: percentile(latencies, 0.99),
    filledOnArrival,
    byState,
    errors,
    firstErrors
  })
})
