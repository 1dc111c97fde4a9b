/**
 * `npm run bench -- <name>`: runs one benchmark (or `all`, one after another) in the harness
 * (bench/support/Harness.ts) and prints its table; without a known name, lists the benchmarks.
 * Settings: bench/README.md.
 */
import { evmScanner } from "./benchmarks/evm_scanner.ts"
import { getBalance } from "./benchmarks/get_balance.ts"
import { getInfo } from "./benchmarks/get_info.ts"
import { ledgerEngine } from "./benchmarks/ledger_engine.ts"
import { metricCost } from "./benchmarks/metric_cost.ts"
import { orderbookEngine } from "./benchmarks/orderbook_engine.ts"
import { ordersE2e } from "./benchmarks/orders_e2e.ts"
import { paymentsE2e } from "./benchmarks/payments_e2e.ts"
import { transfersE2e } from "./benchmarks/transfers_e2e.ts"
import { startup } from "./benchmarks/startup.ts"
import { printSummary } from "./Summary.ts"
import { runBenchmark, type Benchmark, type Outcome } from "./support/Harness.ts"

const benchmarks: ReadonlyArray<Benchmark> = [
  getInfo,
  getBalance,
  ledgerEngine,
  transfersE2e,
  ordersE2e,
  paymentsE2e,
  orderbookEngine,
  metricCost,
  startup,
  evmScanner
]

const usage = () => {
  console.log("usage: npm run bench -- <name>\n\nbenchmarks:")
  for (const b of benchmarks) {
    const target = b.target === undefined ? "" : ` (target: ${b.target.what} ≥ ${b.target.ratio}×)`
    console.log(`  ${b.name.padEnd(16)} ${b.summary}${target}`)
  }
  console.log(`  ${"all".padEnd(16)} every benchmark above, one after another, then one summary table`)
  console.log("\nenvironment: BENCH_SECONDS (5), BENCH_WARMUP_SECONDS (1), BENCH_CONNECTIONS (32), BENCH_ROUNDS (3),")
  console.log("             BENCH_PROFILE=1 (our service under --cpu-prof; summarise with bench/profile/top.ts),")
  console.log(
    "             DATABASE_URL (unset: embedded PGlite; ledger_engine, transfers_e2e, orders_e2e: postgres://postgres@127.0.0.1:5432)"
  )
  console.log(
    "             ledger_engine: BENCH_INFLIGHT (1024), BENCH_WALLETS (1000), BENCH_PGBENCH_CLIENTS (BENCH_CONNECTIONS)"
  )
  console.log(
    "             transfers_e2e: BENCH_WALLETS (200), BENCH_CONNECTIONS clients, same count for pgbench -c, BENCH_WORKERS (1)"
  )
  console.log(
    "             orders_e2e: BENCH_WALLETS (200), BENCH_CONNECTIONS (64 here) clients and pgbench -c, BENCH_PRIVATE_ROOMS (9),"
  )
  console.log("             BENCH_CROSS_SHARE (0.5, share of orders priced through the mid), BENCH_WORKERS (1)")
  console.log(
    "             payments_e2e: BENCH_WALLETS (200 payers), BENCH_MERCHANTS (8 apps), BENCH_CONNECTIONS clients and pgbench -c"
  )
  console.log("             orderbook_engine: BENCH_ORDERS (1000000)")
  console.log(
    "             evm_scanner: BENCH_EVM_BLOCKS (20), BENCH_EVM_TRANSFERS (200 a block), BENCH_WALLETS (200 watched)"
  )
}

const name = process.argv[2]
const chosen = name === "all" ? benchmarks : benchmarks.filter((b) => b.name === name)

if (chosen.length === 0) {
  if (name !== undefined) console.log(`unknown benchmark "${name}"\n`)
  usage()
  process.exitCode = name === undefined ? 0 : 2
} else if (name !== "all") {
  for (const benchmark of chosen) await runBenchmark(benchmark)
} else {
  // Every benchmark, one failing not stopping the rest; then the summary table (bench/Summary.ts).
  const outcomes: Array<Outcome> = []
  for (const benchmark of chosen) {
    try {
      outcomes.push(await runBenchmark(benchmark))
    } catch (error) {
      console.error(`${benchmark.name} FAILED: ${String(error)}`)
      process.exitCode = 1
      const failed = { anchor: "-", ours: "-", ratio: 0, target: "", budget: "", resultFile: "" }
      outcomes.push({ name: benchmark.name, ...failed, verdict: "FAILED" })
    }
  }
  printSummary(outcomes)
}
