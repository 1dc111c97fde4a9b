/**
 * `npm run bench -- <name>`: runs one benchmark (or `all`, one after another) and prints its table;
 * without a known name, lists the benchmarks. Settings: BENCH_SECONDS, BENCH_WARMUP_SECONDS,
 * BENCH_CONNECTIONS, BENCH_ROUNDS, BENCH_PROFILE=1 (CPU profile of our service); DATABASE_URL selects
 * PostgreSQL instead of embedded PGlite.
 */
import { getBalance } from "./benchmarks/get_balance.ts"
import { getInfo } from "./benchmarks/get_info.ts"
import { runBenchmark, type Benchmark } from "./support/Harness.ts"

const benchmarks: ReadonlyArray<Benchmark> = [getInfo, getBalance]

const usage = () => {
  console.log("usage: npm run bench -- <name>\n\nbenchmarks:")
  for (const b of benchmarks) console.log(`  ${b.name.padEnd(12)} ${b.summary}`)
  console.log(`  ${"all".padEnd(12)} every benchmark above, one after another`)
  console.log("\nenvironment: BENCH_SECONDS (5), BENCH_WARMUP_SECONDS (1), BENCH_CONNECTIONS (32), BENCH_ROUNDS (3),")
  console.log("             BENCH_PROFILE=1 (our service under --cpu-prof; summarise with bench/profile/top.ts),")
  console.log("             DATABASE_URL (unset: embedded PGlite)")
}

const name = process.argv[2]
const chosen = name === "all" ? benchmarks : benchmarks.filter((b) => b.name === name)

if (chosen.length === 0) {
  if (name !== undefined) console.log(`unknown benchmark "${name}"\n`)
  usage()
  process.exitCode = name === undefined ? 0 : 2
} else {
  for (const benchmark of chosen) await runBenchmark(benchmark)
}
