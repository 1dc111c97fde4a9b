/**
 * `npm run bench -- orderbook_engine`: orders/s of our pure order-book engine (actors/room/Engine.ts)
 * vs the `nodejs-order-book` package on the same seeded 1M-order stream (limit / post-only / market /
 * cancel, same mix as the differential test), in the same process: BENCH_ROUNDS (3) alternating
 * rounds, medians. Ours is driven through its allocation-free `submitRaw`/`cancelRaw` entry points
 * (and, separately, through the event-object `submit`), the oracle through `limit`/`market`/`cancel`.
 * Target: ours ≥ 15× the oracle. BENCH_ORDERS overrides the stream length.
 */
import { OrderBook, Side } from "nodejs-order-book"
import { Engine, KIND_LIMIT, KIND_LIMIT_ONLY, KIND_MARKET, SIDE_BUY, SIDE_SELL } from "../../actors/room/Engine.ts"
import { seeded } from "../../test/unit/Random.ts"

const OP_CANCEL = 3

interface Stream {
  readonly n: number
  readonly op: Uint8Array // KIND_* or OP_CANCEL
  readonly side: Uint8Array
  readonly id: Float64Array
  readonly price: Float64Array
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
      s.price[i] = Math.max(1, mid + rnd.int(-40, 40))
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
      e.submitRaw(s.id[i], s.side[i], op, s.price[i], s.qty[i], 0)
      fills += e.fillCount
    }
  }
  return fills
}

const kinds = ["limit", "limitOnly", "market"] as const
const runOursEvents = (s: Stream): number => {
  const e = new Engine()
  let events = 0
  for (let i = 0; i < s.n; i++) {
    const op = s.op[i]
    if (op === OP_CANCEL) e.cancel(s.id[i])
    else events += e.submit({ id: s.id[i], side: s.side[i] === SIDE_BUY ? "buy" : "sell", kind: kinds[op], price: s.price[i], quantity: s.qty[i] }).length
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

const median = (xs: Array<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

const time = (f: () => number): number => {
  const t0 = process.hrtime.bigint()
  f()
  return Number(process.hrtime.bigint() - t0) / 1e9
}

export const runOrderbookEngine = async (): Promise<void> => {
  const n = Number(process.env.BENCH_ORDERS ?? 1_000_000)
  const rounds = Number(process.env.BENCH_ROUNDS ?? 3)
  const stream = makeStream(n, 20_240_601)
  // Warm-up on a short prefix so that the JIT has seen all three code paths.
  const warm = makeStream(50_000, 7)
  runOursRaw(warm)
  runOursEvents(warm)
  runOracle(warm)
  const raw: Array<number> = []
  const ev: Array<number> = []
  const oracle: Array<number> = []
  for (let r = 0; r < rounds; r++) {
    raw.push(n / time(() => runOursRaw(stream)))
    oracle.push(n / time(() => runOracle(stream)))
    ev.push(n / time(() => runOursEvents(stream)))
  }
  const fmt = (x: number) => Math.round(x).toLocaleString("en-US").padStart(12)
  const oursRaw = median(raw)
  const oursEv = median(ev)
  const theirs = median(oracle)
  console.log(`orderbook_engine: ${n.toLocaleString("en-US")} operations (seeded), ${rounds} alternating rounds, medians`)
  console.log(`  ours (submitRaw)        ${fmt(oursRaw)} orders/s   rounds: ${raw.map((x) => Math.round(x)).join(", ")}`)
  console.log(`  ours (submit, events)   ${fmt(oursEv)} orders/s   rounds: ${ev.map((x) => Math.round(x)).join(", ")}`)
  console.log(`  nodejs-order-book       ${fmt(theirs)} orders/s   rounds: ${oracle.map((x) => Math.round(x)).join(", ")}`)
  console.log(`  ratio raw ${(oursRaw / theirs).toFixed(1)}×, events ${(oursEv / theirs).toFixed(1)}× (target ≥ 15×, ≥ 1,000,000 orders/s)`)
}

if (import.meta.url === `file://${process.argv[1]}`) await runOrderbookEngine()
