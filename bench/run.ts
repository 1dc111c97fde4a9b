/**
 * `npm run bench -- <name>`: runs one benchmark (or `all`, one after another) and prints its table;
 * without a known name, lists the benchmarks. Settings: BENCH_SECONDS, BENCH_WARMUP_SECONDS,
 * BENCH_CONNECTIONS, BENCH_ROUNDS, BENCH_PROFILE=1 (CPU profile of our service); DATABASE_URL selects
 * PostgreSQL instead of embedded PGlite (the PostgreSQL benchmarks default to 127.0.0.1:5432).
 */
import { getBalance } from "./benchmarks/get_balance.ts"
import { getInfo } from "./benchmarks/get_info.ts"
import { runLedgerEngine } from "./benchmarks/ledger_engine.ts"
import { runMetricCost } from "./benchmarks/metric_cost.ts"
import { runOrderbookEngine } from "./benchmarks/orderbook_engine.ts"
import { runOrdersE2e } from "./benchmarks/orders_e2e.ts"
import { runTransfersE2e } from "./benchmarks/transfers_e2e.ts"
import { runBenchmark, type Benchmark } from "./support/Harness.ts"

interface Entry {
  readonly name: string
  readonly summary: string
  readonly run: () => Promise<void>
}

const http = (b: Benchmark): Entry => ({ name: b.name, summary: b.summary, run: () => runBenchmark(b) })

const benchmarks: ReadonlyArray<Entry> = [
  http(getInfo),
  http(getBalance),
  {
    name: "ledger_engine",
    summary: "in-process LedgerWriter postings/s (durable group commits) vs pgbench -N TPS, same PostgreSQL server",
    run: runLedgerEngine
  },
  {
    name: "transfers_e2e",
    summary: "completed two-step internal transfers/s over HTTP (p50/p99) vs pgbench -N TPS, same PostgreSQL server",
    run: runTransfersE2e
  },
  {
    name: "orders_e2e",
    summary: "accepted create_order/s over HTTP (p50/p99, trades/s, ledger audit) vs pgbench -N TPS, same PostgreSQL server (target >= 3x)",
    run: runOrdersE2e
  },
  {
    name: "metric_cost",
    summary: "ns to record one HTTP latency: the service's hand-kept histogram vs Effect's Metric.histogram, same run",
    run: runMetricCost
  },
  {
    name: "orderbook_engine",
    summary: "pure order-book engine orders/s vs nodejs-order-book, same seeded 1M-order stream, same run (target >= 15x)",
    run: runOrderbookEngine
  }
]

const usage = () => {
  console.log("usage: npm run bench -- <name>\n\nbenchmarks:")
  for (const b of benchmarks) console.log(`  ${b.name.padEnd(14)} ${b.summary}`)
  console.log(`  ${"all".padEnd(14)} every benchmark above, one after another`)
  console.log("\nenvironment: BENCH_SECONDS (5), BENCH_WARMUP_SECONDS (1), BENCH_CONNECTIONS (32), BENCH_ROUNDS (3),")
  console.log("             BENCH_PROFILE=1 (our service under --cpu-prof; summarise with bench/profile/top.ts),")
  console.log("             BENCH_METRICS_SAMPLE=1 (transfers_e2e, orders_e2e: print a /metrics sample scraped during the window)")
  console.log("             DATABASE_URL (unset: embedded PGlite; ledger_engine, transfers_e2e, orders_e2e: postgres://postgres@127.0.0.1:5432)")
  console.log("             ledger_engine: BENCH_INFLIGHT (1024), BENCH_WALLETS (1000), BENCH_PGBENCH_CLIENTS (BENCH_CONNECTIONS)")
  console.log("             transfers_e2e: BENCH_WALLETS (200), BENCH_CONNECTIONS clients, same count for pgbench -c")
  console.log("             orders_e2e: BENCH_WALLETS (200), BENCH_CONNECTIONS (64 here) clients and pgbench -c, BENCH_PRIVATE_ROOMS (9),")
  console.log("             BENCH_CROSS_SHARE (0.5, share of orders priced through the mid)")
}

const name = process.argv[2]
const chosen = name === "all" ? benchmarks : benchmarks.filter((b) => b.name === name)

if (chosen.length === 0) {
  if (name !== undefined) console.log(`unknown benchmark "${name}"\n`)
  usage()
  process.exitCode = name === undefined ? 0 : 2
} else {
  for (const benchmark of chosen) await benchmark.run()
}
