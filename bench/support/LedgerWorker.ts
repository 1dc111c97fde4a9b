/**
 * The in-process ledger engine under load, run as a child of bench/benchmarks/ledger_engine.ts:
 * builds the service's real layers (configuration from the environment, the migrated PostgreSQL
 * database of DATABASE_URL, metrics, TimeTicks, the currency seed, the group-committing
 * LedgerWriter), creates `wallets` user wallets, funds each with a Treasury credit, then on each
 * "run" message keeps `inflight` fibers committing transfer-like operations (a new Finished
 * InternalTx between two random wallets: sender free −(amount+fee), recipient free +amount, and on
 * every other operation the Fees wallet +fee, so 2 or 3 postings) and reports what committed in
 * the measured window. Every commit is a durable PostgreSQL commit (the server's settings).
 */
import { Effect, Fiber, Layer, ManagedRuntime } from "effect"
import { SqlClient } from "effect/sql"
import { insertWallet } from "../../sql/WalletRepo.ts"
import { Bucket, type LedgerOperation, type Posting } from "../../sql/Ledger.ts"
import { TxState, TxType } from "../../schema/Transfer.ts"
import { AppConfigService } from "../../src/platform/Config.ts"
import { MigratedDatabase } from "../../src/platform/db/Database.ts"
import { Metrics } from "../../src/platform/monitoring/Metrics.ts"
import { statsOf } from "../../src/platform/monitoring/MetricsView.ts"
import { Currencies } from "../../src/platform/Currencies.ts"
import { LedgerWriter } from "../../src/platform/LedgerWriter.ts"
import { TimeTicks } from "../../src/platform/TimeTicks.ts"
import { cpuMicros, processesCpuMicros } from "./Cpu.ts"

export interface WorkerSetup {
  readonly wallets: number
}
export interface RunSpec {
  readonly inflight: number
  readonly seconds: number
  readonly warmupSeconds: number
}
export interface RunResult {
  readonly ops: number
  readonly postings: number
  readonly failures: number
  readonly elapsedSeconds: number
  readonly latencyP50Ms: number
  readonly latencyP99Ms: number
  readonly batches: number
  readonly meanBatchSize: number
  readonly meanCommitMs: number
  /** This node process's CPU over wall time (100 = one core). */
  readonly nodeCpuPercent: number
  /** Every `postgres` process on the machine (the server serves other clients too, if any). */
  readonly postgresCpuPercent: number
}
export type ToWorker = { type: "run"; spec: RunSpec } | { type: "stop" }
export type FromWorker =
  | { type: "ready"; setupSeconds: number; synchronousCommit: string }
  | { type: "result"; result: RunResult }
  | { type: "error"; message: string }

const CURRENCY = "USDT"
const FEES = -2n
const TREASURY = -1n
const FIRST_ID = 2_000_001n

const layer = Layer.mergeAll(LedgerWriter.layer, TimeTicks.layer, Currencies.layer).pipe(
  Layer.provideMerge(Layer.mergeAll(Metrics.layer).pipe(Layer.provideMerge(MigratedDatabase))),
  Layer.provide(AppConfigService.fromEnv)
)
const runtime = ManagedRuntime.make(layer)
const send = (message: FromWorker) => process.send!(message)

const percentile = (sorted: Float64Array, p: number) =>
  sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]

const setup = (wallets: number) =>
  Effect.gen(function* () {
    const ledger = yield* LedgerWriter
    const ticks = yield* TimeTicks
    const ids = Array.from({ length: wallets }, (_, i) => FIRST_ID + BigInt(i))
    yield* Effect.forEach(
      ids,
      (id) =>
        insertWallet({
          id,
          clientId: id,
          project: 0,
          walletGroup: 0,
          flags: 0,
          name: "bench",
          sortOrder: 0,
          address: `W-BENCH-${id}`,
          timetickUpdate: 0n
        }),
      { concurrency: 8, discard: true }
    ).pipe(Effect.orDie)
    const amount = 10n ** 15n
    yield* Effect.forEach(
      ids,
      (id) =>
        ledger.commit({
          tx: {
            id: ticks.next(),
            typeTx: TxType.Adjustment,
            txState: TxState.Finished,
            walletFrom: TREASURY,
            walletTo: id,
            currency: CURRENCY,
            amount,
            fee: 0n,
            tag: "bench funding",
            appId: null,
            externalId: null,
            requestHash: null
          },
          postings: [
            { walletId: id, currency: CURRENCY, bucket: Bucket.free, delta: amount },
            { walletId: TREASURY, currency: CURRENCY, bucket: Bucket.free, delta: -amount }
          ]
        }),
      { concurrency: "unbounded", discard: true }
    ).pipe(Effect.orDie)
    // What this process's own connections commit with (a session could override the server's default).
    const [setting] = yield* SqlClient.SqlClient.use(
      (sql) => sql<{ synchronous_commit: string }>`SHOW synchronous_commit`
    ).pipe(Effect.orDie)
    return { ids, synchronousCommit: setting.synchronous_commit }
  })

const transfer = (ids: ReadonlyArray<bigint>, txId: bigint, withFee: boolean): LedgerOperation => {
  const from = ids[Math.floor(Math.random() * ids.length)]
  let to = ids[Math.floor(Math.random() * (ids.length - 1))]
  if (to === from) to = ids[ids.length - 1]
  const amount = BigInt(1 + Math.floor(Math.random() * 1000)),
    fee = withFee ? 1n : 0n
  const postings: Array<Posting> = [
    { walletId: from, currency: CURRENCY, bucket: Bucket.free, delta: -(amount + fee) },
    { walletId: to, currency: CURRENCY, bucket: Bucket.free, delta: amount }
  ]
  if (withFee) postings.push({ walletId: FEES, currency: CURRENCY, bucket: Bucket.free, delta: fee })
  return {
    tx: {
      id: txId,
      typeTx: TxType.InternalTx,
      txState: TxState.Finished,
      walletFrom: from,
      walletTo: to,
      currency: CURRENCY,
      amount,
      fee,
      tag: null,
      appId: null,
      externalId: null,
      requestHash: null,
      profitWallet: FEES
    },
    postings
  }
}

const sumCpu = (map: Map<number, number>, keep: Map<number, number>) =>
  [...map].reduce((s, [pid, v]) => s + (keep.has(pid) ? v - keep.get(pid)! : 0), 0)

const load = (ids: ReadonlyArray<bigint>, spec: RunSpec) =>
  Effect.gen(function* () {
    const ledger = yield* LedgerWriter
    const ticks = yield* TimeTicks
    const metrics = yield* Metrics
    let ops = 0,
      postings = 0,
      failures = 0,
      measuring = false,
      running = true
    const latencies: Array<number> = []
    const worker = Effect.gen(function* () {
      let n = 0
      while (running) {
        const op = transfer(ids, ticks.next(), n++ % 2 === 0)
        const started = performance.now()
        const exit = yield* Effect.exit(ledger.commit(op))
        if (!measuring) continue
        if (exit._tag === "Failure") {
          failures++
          continue
        }
        ops++
        postings += op.postings.length
        latencies.push(performance.now() - started)
      }
    })
    const fibers = yield* Effect.forkChild(
      Effect.forEach(Array.from({ length: spec.inflight }), () => worker, { concurrency: "unbounded", discard: true })
    )
    yield* Effect.sleep(spec.warmupSeconds * 1000)
    const before = {
      at: performance.now(),
      node: cpuMicros(process.pid),
      pg: processesCpuMicros("postgres"),
      ledger: statsOf(metrics).ledger
    }
    measuring = true
    yield* Effect.sleep(spec.seconds * 1000)
    measuring = false
    const elapsed = (performance.now() - before.at) / 1000
    const after = { node: cpuMicros(process.pid), pg: processesCpuMicros("postgres"), ledger: statsOf(metrics).ledger }
    const counted = { ops, postings, failures }
    running = false
    yield* Effect.exit(Fiber.join(fibers))
    const sorted = Float64Array.from(latencies).sort()
    const batches = after.ledger.commits - before.ledger.commits
    const commitMsSum =
      after.ledger.meanCommitMs * after.ledger.commits - before.ledger.meanCommitMs * before.ledger.commits
    return {
      ...counted,
      elapsedSeconds: elapsed,
      latencyP50Ms: percentile(sorted, 0.5),
      latencyP99Ms: percentile(sorted, 0.99),
      batches,
      meanBatchSize: batches > 0 ? (after.ledger.operations - before.ledger.operations) / batches : 0,
      meanCommitMs: batches > 0 ? commitMsSum / batches : 0,
      nodeCpuPercent: ((after.node - before.node) / 1e6 / elapsed) * 100,
      postgresCpuPercent: (sumCpu(after.pg, before.pg) / 1e6 / elapsed) * 100
    } satisfies RunResult
  })

const main = async () => {
  const { wallets } = JSON.parse(process.argv[2]) as WorkerSetup
  const started = performance.now()
  const { ids, synchronousCommit } = await runtime.runPromise(setup(wallets))
  process.on("message", (message: ToWorker) => {
    if (message.type === "stop") {
      void runtime.dispose().then(() => process.exit(0))
      return
    }
    runtime.runPromise(load(ids, message.spec)).then(
      (result) => send({ type: "result", result }),
      (error) => send({ type: "error", message: String(error) })
    )
  })
  send({ type: "ready", setupSeconds: (performance.now() - started) / 1000, synchronousCommit })
}

main().catch((error) => {
  send({ type: "error", message: String(error?.stack ?? error) })
  process.exitCode = 1
})
