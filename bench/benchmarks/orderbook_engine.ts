/**
 * `npm run bench -- orderbook_engine`: orders/s of our pure order-book engine (actors/room/Engine.ts)
 * vs the `nodejs-order-book` package on the same seeded 1M-order stream (limit / post-only / market /
 * cancel, same mix as the differential test; 30% of the limit prices are ratios num/den with den 2–9 that no
 * decimal tick represents, the oracle gets their float value; every order names one of 1,000 owners, so
 * self-trade prevention is on the path), in the same process: BENCH_ROUNDS (3) alternating
 * rounds, medians. Ours is driven through its allocation-free `submitRaw`/`cancelRaw` entry points
 * (and, separately, through the event-object `submit`), the oracle through `limit`/`market`/`cancel`.
 * Target: ours ≥ 15× the oracle. BENCH_ORDERS overrides the stream length.
 */
import { OrderBook, Side } from "nodejs-order-book"
import { Engine, KIND_LIMIT, KIND_LIMIT_ONLY, KIND_MARKET, SIDE_BUY, SIDE_SELL } from "../../actors/room/Engine.ts"
import { EventEngine } from "../../actors/room/EngineEvents.ts"
import { log, median, type Benchmark } from "../support/Harness.ts"
import { positive } from "../support/Settings.ts"

/** A small seeded generator (mulberry32, as the unit tests use), so the stream is the same in every run. */
const seeded = (seed: number) => {
  let state = seed >>> 0
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  /** An integer in [min, max]. */
  const int = (min: number, max: number): number => min + Math.floor(next() * (max - min + 1))
  return { next, int }
}

const OP_CANCEL = 3

interface Stream {
  readonly n: number
  readonly op: Uint8Array // KIND_* or OP_CANCEL
  readonly side: Uint8Array
  readonly id: Float64Array
  readonly price: Float64Array // the oracle's price: num / den
  readonly num: Float64Array
  readonly den: Float64Array
  readonly owner: Float64Array
  readonly qty: Float64Array
  readonly idStr: Array<string>
}

const makeStream = (n: number, seed: number): Stream => {
  const rnd = seeded(seed)
  const s: Stream = {
    n,
    op: new Uint8Array(n),
    side: new Uint8Array(n),
    id: new Float64Array(n),
    price: new Float64Array(n),
    num: new Float64Array(n),
    den: new Float64Array(n),
    owner: new Float64Array(n),
    qty: new Float64Array(n),
    idStr: new Array<string>(n)
  }
  let nextId = 1
  let mid = 10_000
  for (let i = 0; i < n; i++) {
    mid += rnd.int(-3, 3)
    if (rnd.next() < 0.2 && nextId > 1) {
      // Cancel a recent order (it may already be gone: both engines then report "not found").
      s.op[i] = OP_CANCEL
      s.id[i] = Math.max(1, nextId - 1 - rnd.int(0, 2_000))
    } else {
      const k = rnd.next()
      s.op[i] = k < 0.7 ? KIND_LIMIT : k < 0.85 ? KIND_LIMIT_ONLY : KIND_MARKET
      s.side[i] = rnd.next() < 0.5 ? SIDE_BUY : SIDE_SELL
      s.id[i] = nextId++
      const whole = Math.max(1, mid + rnd.int(-40, 40))
      const den = rnd.next() < 0.3 ? rnd.int(2, 9) : 1
      s.num[i] = whole * den + (den > 1 ? rnd.int(1, den - 1) : 0)
      s.den[i] = den
      s.price[i] = s.num[i] / den
      s.owner[i] = rnd.int(1, 1_000)
      s.qty[i] = rnd.next() < 0.1 ? rnd.int(100, 2_000) : rnd.int(1, 100)
    }
    s.idStr[i] = String(s.id[i])
  }
  return s
}

const runOursRaw = (s: Stream): number => {
  const e = new Engine()
  let fills = 0
  for (let i = 0; i < s.n; i++) {
    const op = s.op[i]
    if (op === OP_CANCEL) e.cancelRaw(s.id[i])
    else {
      e.submitRaw(s.id[i], s.side[i], op, s.num[i], s.den[i], s.qty[i], 0, s.owner[i])
      fills += e.fillCount
    }
  }
  return fills
}

const kinds = ["limit", "limitOnly", "market"] as const
const runOursEvents = (s: Stream): number => {
  const e = new EventEngine()
  let events = 0
  for (let i = 0; i < s.n; i++) {
    const op = s.op[i]
    if (op === OP_CANCEL) e.cancel(s.id[i])
    else
      events += e.submit({
        id: s.id[i],
        side: s.side[i] === SIDE_BUY ? "buy" : "sell",
        kind: kinds[op],
        num: s.num[i],
        den: s.den[i],
        quantity: s.qty[i],
        owner: s.owner[i]
      }).length
  }
  return events
}

const runOracle = (s: Stream): number => {
  const ob = new OrderBook()
  let done = 0
  for (let i = 0; i < s.n; i++) {
    const op = s.op[i]
    if (op === OP_CANCEL) ob.cancel(s.idStr[i])
    else {
      const side = s.side[i] === SIDE_BUY ? Side.BUY : Side.SELL
      const r =
        op === KIND_MARKET
          ? ob.market({ side, size: s.qty[i] })
          : ob.limit({ id: s.idStr[i], side, size: s.qty[i], price: s.price[i], postOnly: op === KIND_LIMIT_ONLY })
      done += r.done.length
    }
  }
  return done
}

/** Seconds `f` takes to run. */
const time = (f: () => number): number => {
  const t0 = process.hrtime.bigint()
  f()
  return Number(process.hrtime.bigint() - t0) / 1e9
}

interface Ours {
  readonly raw: number
  readonly events: number
}

const perSecond = (x: number) => Math.round(x).toLocaleString("en-US").padStart(12)

export const orderbookEngine: Benchmark<number, Ours> = {
  name: "orderbook_engine",
  summary: "pure order-book engine orders/s vs nodejs-order-book, same seeded 1M-order stream, same run",
  target: { ratio: 15, what: "orders/s (submitRaw) vs nodejs-order-book" },
  prepare: async ({ settings }) => {
    const n = Math.round(positive("BENCH_ORDERS", 1_000_000))
    const stream = makeStream(n, 20_240_601)
    log(
      `   ${n.toLocaleString("en-US")} operations (seeded), ${settings.rounds} alternating rounds, in this process; medians`
    )
    // Warm-up on a short prefix so that the JIT has seen all three code paths.
    const warm = makeStream(50_000, 7)
    runOursRaw(warm)
    runOursEvents(warm)
    runOracle(warm)
    return {
      anchor: {
        label: "nodejs-order-book",
        measure: async () => n / time(() => runOracle(stream)),
        report: (rate) => `${perSecond(rate)} orders/s`
      },
      ours: {
        label: "ours",
        measure: async () => ({
          raw: n / time(() => runOursRaw(stream)),
          events: n / time(() => runOursEvents(stream))
        }),
        report: (r) => `${perSecond(r.raw)} orders/s (submitRaw), ${perSecond(r.events).trim()} (submit, events)`
      },
      conclude: (rounds) => {
        const oursRaw = median(rounds.map((r) => r.ours.raw))
        const oursEvents = median(rounds.map((r) => r.ours.events))
        const theirs = median(rounds.map((r) => r.anchor))
        const list = (xs: ReadonlyArray<number>) => xs.map((x) => Math.round(x)).join(", ")
        return {
          ratio: oursRaw / theirs,
          headline: { anchor: `${perSecond(theirs).trim()} orders/s`, ours: `${perSecond(oursRaw).trim()} orders/s` },
          lines: [
            `  ours (submitRaw)        ${perSecond(oursRaw)} orders/s   rounds: ${list(rounds.map((r) => r.ours.raw))}`,
            `  ours (submit, events)   ${perSecond(oursEvents)} orders/s   rounds: ${list(rounds.map((r) => r.ours.events))}`,
            `  nodejs-order-book       ${perSecond(theirs)} orders/s   rounds: ${list(rounds.map((r) => r.anchor))}`,
            `  ratio raw ${(oursRaw / theirs).toFixed(1)}×, events ${(oursEvents / theirs).toFixed(1)}× (target ≥ 15×, ≥ 1,000,000 orders/s)`
          ],
          record: { orders: n, median: { oursRaw, oursEvents, nodejsOrderBook: theirs } }
        }
      }
    }
  }
}
