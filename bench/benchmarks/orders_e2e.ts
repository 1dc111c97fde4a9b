/**
 * Measures accepted create_order/s over HTTP (each order: the wallet actor locks and records it in
 * one group commit, the room actor matches it and commits the fills in another) with
 * BENCH_CONNECTIONS concurrent clients (bench/load/orders.ts, its own process) against the real
 * service (`src/main.ts`) on a fresh PostgreSQL database, beside `pgbench -N` TPS with the same
 * client count on the same server, in alternating rounds: medians of orders/s, of the order
 * latency (p50/p99), of trades/s (rows of `trades` committed in the window), and the ratio to
 * pgbench TPS (issue #5's target: ≥ 3×). The orders spread over the public rooms of BTC/USDT,
 * ETH/USDT and USDC/USDT and BENCH_PRIVATE_ROOMS private rooms (every room is one serial actor).
 * After every round of ours the operator's ledger audit must be sound (every Σ "0", no negative
 * user bucket), or the benchmark fails. BENCH_PROFILE=1 profiles the service.
 */
import { cpus, loadavg } from "node:os"
import { relative } from "node:path"
import { makeClient, type TestClient } from "../../test/support/Client.ts"
import { root, startService, type RunningService } from "../../test/support/Service.ts"
import type { OrderLoadSpec, OrderLoadSummary, OrderRoom } from "../load/orders.ts"
import { startChild } from "../support/Child.ts"
import { median } from "../support/Compare.ts"
import { cpuMicros, cpuSplitMicros, processesCpuMicros } from "../support/Cpu.ts"
import { createRooms, createTradingWallets, requireSoundLedger } from "../support/OrderFixture.ts"
import { profileDirectory } from "../support/OurService.ts"
import {
  createDatabase, databaseUrl, describeServer, dropDatabase, preparePgbench, queryRows, serverSetting, serverUrl
} from "../support/Pgbench.ts"
import { writeResult } from "../support/Report.ts"
import { positive, readSettings } from "../support/Settings.ts"
import { ledgerFigures, mainThreadProfile, profileTop, type BenchWallet } from "../support/TransferFixture.ts"

export const ordersTarget = 3

interface OursRound extends OrderLoadSummary {
  readonly ordersPerSec: number
  readonly trades: number
  readonly tradesPerSec: number
  readonly refused: number
  readonly serviceCpuPercent: number
  readonly serviceCpuMicrosPerOrder: number
  readonly serviceSystemPercent: number
  readonly postgresCpuPercent: number
  readonly loadCpuPercent: number
  readonly meanBatchSize: number
  readonly meanCommitMs: number
  /** PostgreSQL transactions (commits + rollbacks; every standalone read is one) per accepted order, from pg_stat_database. */
  readonly sqlTransactionsPerOrder: number
  /** Orders resting in all books at the end of the round. */
  readonly restingAfter: number
  /** performance.now() when the measured window's result arrived (the profile's window ends there). */
  readonly windowEndedAt: number
}

const fmt = (value: number, digits = 0) => value.toFixed(digits)
const pgCpu = (after: Map<number, number>, before: Map<number, number>) =>
  [...after].reduce((sum, [pid, v]) => sum + (before.has(pid) ? v - before.get(pid)! : 0), 0)
const sumOf = (record: Record<string, number>) => Object.values(record).reduce((a, b) => a + b, 0)
const mergeCounts = (records: ReadonlyArray<Record<string, number>>) => {
  const merged: Record<string, number> = {}
  for (const record of records) for (const [key, n] of Object.entries(record)) merged[key] = (merged[key] ?? 0) + n
  return merged
}
const countsText = (record: Record<string, number>) =>
  Object.entries(record).sort((a, b) => b[1] - a[1]).map(([key, n]) => `${key} ×${n}`).join(", ")

const measureOurs = async (
  service: RunningService, client: TestClient, ourUrl: string, wallets: ReadonlyArray<BenchWallet>, rooms: ReadonlyArray<OrderRoom>,
  clients: number, seconds: number, warmupSeconds: number, crossShare: number, round: number
): Promise<OursRound> => {
  const spec: OrderLoadSpec = { base: service.base, wallets, rooms, clients, seconds, warmupSeconds, crossShare, nonceBase: round * 1_000_000_000 }
  const load = startChild<"go", { type: "ready" } | { type: "result"; summary: OrderLoadSummary }>("bench/load/orders.ts", spec)
  const trades = async () => Number((await queryRows(ourUrl, "SELECT count(*) FROM trades"))[0][0])
  // Backends flush their statistics about once a second: over a window of seconds the delta is close.
  const transactions = async () =>
    Number((await queryRows(ourUrl, "SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = current_database()"))[0][0])
  let reply: { type: "ready" } | { type: "result"; summary: OrderLoadSummary }
  let before: { at: number; split: { user: number; system: number }; service: number; load: number; pg: Map<number, number>; ledger: Awaited<ReturnType<typeof ledgerFigures>>; trades: number; transactions: number }
  let after: Omit<typeof before, "at">
  let wall: number
  let windowEndedAt: number
  try {
    await load.next()
    const pid = service.child.pid!
    before = { at: performance.now(), split: cpuSplitMicros(pid), service: cpuMicros(pid), load: cpuMicros(load.process.pid!), pg: processesCpuMicros("postgres"), ledger: await ledgerFigures(client), trades: await trades(), transactions: await transactions() }
    load.send("go")
    reply = await load.next()
    windowEndedAt = performance.now()
    wall = (performance.now() - before.at) / 1000
    after = { split: cpuSplitMicros(pid), service: cpuMicros(pid), load: cpuMicros(load.process.pid!), pg: processesCpuMicros("postgres"), ledger: await ledgerFigures(client), trades: await trades(), transactions: await transactions() }
  } finally {
    await load.stop("go", 20_000)
  }
  if (reply.type !== "result") throw new Error("order load: no result")
  const s = reply.summary
  const commits = after.ledger.commits - before.ledger.commits
  const resting = Number((await queryRows(ourUrl, "SELECT count(*) FROM orders WHERE state = 1"))[0][0])
  return {
    ...s,
    ordersPerSec: s.accepted / s.elapsedSeconds,
    trades: after.trades - before.trades,
    tradesPerSec: (after.trades - before.trades) / wall,
    refused: sumOf(s.errors),
    serviceCpuPercent: (after.service - before.service) / 1e6 / wall * 100,
    serviceCpuMicrosPerOrder: (after.service - before.service) / Math.max(1, s.accepted),
    serviceSystemPercent: (after.split.system - before.split.system) / Math.max(1, after.service - before.service) * 100,
    postgresCpuPercent: pgCpu(after.pg, before.pg) / 1e6 / wall * 100,
    loadCpuPercent: (after.load - before.load) / 1e6 / wall * 100,
    meanBatchSize: commits > 0 ? (after.ledger.operations - before.ledger.operations) / commits : 0,
    meanCommitMs: commits > 0 ? (after.ledger.commitMsSum - before.ledger.commitMsSum) / commits : 0,
    sqlTransactionsPerOrder: (after.transactions - before.transactions) / Math.max(1, s.accepted),
    restingAfter: resting,
    windowEndedAt
  }
}

export const runOrdersE2e = async (): Promise<void> => {
  const settings = readSettings()
  // This benchmark's default is 64 clients (BENCH_CONNECTIONS overrides; pgbench gets the same -c).
  const clients = Math.round(positive("BENCH_CONNECTIONS", 64))
  const walletCount = Math.round(positive("BENCH_WALLETS", 200))
  const privateRooms = process.env.BENCH_PRIVATE_ROOMS === "0" ? 0 : Math.round(positive("BENCH_PRIVATE_ROOMS", 9))
  const crossShare = positive("BENCH_CROSS_SHARE", 0.5)
  if (crossShare > 1) throw new Error("BENCH_CROSS_SHARE must be at most 1")
  const server = serverUrl()
  const log = (line: string) => console.log(line)
  log(`\n== orders_e2e: accepted create_order/s over HTTP vs pgbench -N TPS on the same server (target ≥ ${ordersTarget}×)`)
  log(`   node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model ?? "?"}), load average ${loadavg().map((l) => l.toFixed(2)).join(" ")}`)
  const durability = { synchronous_commit: await serverSetting(server, "synchronous_commit"), fsync: await serverSetting(server, "fsync") }
  log(`   ${describeServer(server)}: synchronous_commit=${durability.synchronous_commit}, fsync=${durability.fsync}`)
  log(`   ${settings.rounds} alternating rounds × ${settings.seconds} s measured (ours after ${settings.warmupSeconds} s warm-up); ` +
    `${clients} clients each: pgbench -N -c ${clients} -j 2 -s 1, and ${clients} order loops (undici keep-alive, own process) over ${walletCount} wallets, ` +
    `3 public + ${privateRooms} private rooms (BTC/USDT, ETH/USDT, USDC/USDT), ${fmt(crossShare * 100)}% of orders priced through the mid`)

  const anchor = await preparePgbench(server)
  const ourDatabase = await createDatabase(server, "bench_orders")
  const ourUrl = databaseUrl(server, ourDatabase)
  let servicePid: number | undefined
  const nodeOptions = [process.env.NODE_OPTIONS ?? "", settings.profile ? `--cpu-prof --cpu-prof-dir=${profileDirectory}` : ""].join(" ").trim()
  let service: RunningService | undefined
  let lastWasOurs = false
  let oursEndedAt = 0
  let stoppedAt = 0
  try {
    service = await startService({ databaseUrl: ourUrl, env: { NODE_OPTIONS: nodeOptions, MAX_ACTIVE_ORDERS_PER_WALLET: "1000000" } })
    servicePid = service.child.pid
    const client = makeClient(service)
    const setupStarted = performance.now()
    const wallets = await createTradingWallets(client, walletCount)
    const rooms = await createRooms(client, wallets, privateRooms)
    await requireSoundLedger(client, "after setup")
    log(`   setup: ${walletCount} wallets created, funded in BTC, ETH, USDC, USDT and given sessions, ${privateRooms} private rooms joined by all, ` +
      `in ${fmt((performance.now() - setupStarted) / 1000, 1)} s`)
    const rounds: Array<{ pgbenchTps: number; ours: OursRound }> = []
    for (let round = 1; round <= settings.rounds; round++) {
      let pgbenchTps = 0
      let ours: OursRound | undefined
      const runPgbench = async () => {
        pgbenchTps = await anchor.measure(clients, settings.seconds)
        lastWasOurs = false
        log(`  round ${round}/${settings.rounds}  pgbench -N     ${fmt(pgbenchTps).padStart(7)} TPS`)
      }
      const runOurs = async () => {
        const r = ours = await measureOurs(service!, client, ourUrl, wallets, rooms, clients, settings.seconds, settings.warmupSeconds, crossShare, round)
        lastWasOurs = true
        oursEndedAt = r.windowEndedAt
        await requireSoundLedger(client, `after round ${round}`)
        log(`  round ${round}/${settings.rounds}  create_order   ${fmt(r.ordersPerSec).padStart(7)} /s  p50 ${fmt(r.latencyP50Ms, 1)} p99 ${fmt(r.latencyP99Ms, 1)} ms  ` +
          `trades ${fmt(r.tradesPerSec)}/s (${fmt(r.filledOnArrival / Math.max(1, r.accepted) * 100)}% filled on arrival, ${r.restingAfter} resting)  ` +
          `service ${fmt(r.serviceCpuPercent)}% ${fmt(r.serviceCpuMicrosPerOrder)} µs/order, postgres ${fmt(r.postgresCpuPercent)}%, load ${fmt(r.loadCpuPercent)}% CPU  ` +
          `batch ${fmt(r.meanBatchSize, 1)}/${fmt(r.meanCommitMs, 1)} ms  ${fmt(r.sqlTransactionsPerOrder, 1)} SQL xacts/order  audit sound` +
          (r.refused > 0 ? `  ${r.refused} REFUSED (${countsText(r.errors)})` : ""))
      }
      for (const step of round % 2 === 1 ? [runPgbench, runOurs] : [runOurs, runPgbench]) await step()
      rounds.push({ pgbenchTps, ours: ours! })
    }

    const per = (f: (r: OursRound) => number) => median(rounds.map((r) => f(r.ours)))
    const medians = {
      pgbenchTps: median(rounds.map((r) => r.pgbenchTps)),
      ordersPerSec: per((r) => r.ordersPerSec),
      latencyP50Ms: per((r) => r.latencyP50Ms),
      latencyP99Ms: per((r) => r.latencyP99Ms),
      tradesPerSec: per((r) => r.tradesPerSec),
      filledOnArrivalPercent: per((r) => r.filledOnArrival / Math.max(1, r.accepted) * 100),
      serviceCpuPercent: per((r) => r.serviceCpuPercent),
      serviceCpuMicrosPerOrder: per((r) => r.serviceCpuMicrosPerOrder),
      serviceSystemPercent: per((r) => r.serviceSystemPercent),
      postgresCpuPercent: per((r) => r.postgresCpuPercent),
      loadCpuPercent: per((r) => r.loadCpuPercent),
      meanBatchSize: per((r) => r.meanBatchSize),
      meanCommitMs: per((r) => r.meanCommitMs),
      sqlTransactionsPerOrder: per((r) => r.sqlTransactionsPerOrder)
    }
    const ratio = medians.ordersPerSec / medians.pgbenchTps
    const errors = mergeCounts(rounds.map((r) => r.ours.errors))
    const refused = sumOf(errors)
    const firstErrors = Object.assign({}, ...rounds.map((r) => r.ours.firstErrors)) as Record<string, string>
    const byState = mergeCounts(rounds.map((r) => r.ours.byState))
    const [orderStates, totalTrades] = await Promise.all([
      queryRows(ourUrl, "SELECT state, count(*) FROM orders GROUP BY state ORDER BY state"),
      queryRows(ourUrl, "SELECT count(*) FROM trades")
    ])
    const audit = await requireSoundLedger(client, "at the end")
    log("\n   medians")
    log(`   pgbench -N TPS            ${fmt(medians.pgbenchTps).padStart(7)}`)
    log(`   accepted create_order/s   ${fmt(medians.ordersPerSec).padStart(7)}   ${fmt(ratio, 2)}× pgbench TPS ` +
      `(rounds: ${rounds.map((r) => fmt(r.ours.ordersPerSec / r.pgbenchTps, 2) + "×").join(", ")})`)
    log(`   order latency             p50 ${fmt(medians.latencyP50Ms, 1)} ms, p99 ${fmt(medians.latencyP99Ms, 1)} ms`)
    log(`   trades                    ${fmt(medians.tradesPerSec)}/s committed in the window; ${fmt(medians.filledOnArrivalPercent)}% of orders filled (at least partly) on arrival`)
    log(`   CPU                       service ${fmt(medians.serviceCpuPercent)}% (${fmt(medians.serviceCpuMicrosPerOrder)} µs/order, ${fmt(medians.serviceSystemPercent)}% of it in the kernel), ` +
      `postgres ${fmt(medians.postgresCpuPercent)}%, load generator ${fmt(medians.loadCpuPercent)}%; ledger batch ${fmt(medians.meanBatchSize, 1)} ops in ${fmt(medians.meanCommitMs, 1)} ms`)
    log(`   PostgreSQL                ${fmt(medians.sqlTransactionsPerOrder, 1)} transactions per accepted order (standalone reads and ledger batches; pgbench: 1 per TPS)`)
    log(`   accepted replies by state ${countsText(byState)}`)
    log(`   whole run in SQL          orders by state ${orderStates.map(([state, n]) => `${state}: ${n}`).join(", ")}; ${totalTrades[0][0]} trades`)
    log(`   ledger audit              sound after setup, after every round and at the end (every Σ 0, no negative user bucket)`)
    if (refused > 0) {
      log(`   ${refused} orders REFUSED in the measured windows: ${countsText(errors)}`)
      for (const [key, text] of Object.entries(firstErrors)) log(`     first ${key}: ${text}`)
    } else log("   refused orders            none")
    const verdict = `${ratio >= ordersTarget ? "meets" : "BELOW"} the target of create_order/s ≥ ${ordersTarget}× pgbench -N TPS`
    log(`   ${verdict}`)
    const path = writeResult("orders_e2e", {
      benchmark: "orders_e2e", at: new Date().toISOString(), node: process.version, cpus: cpus().length, loadAverage: loadavg(),
      server: describeServer(server), durability,
      settings: { ...settings, clients, wallets: walletCount, privateRooms, crossShare, rooms },
      targetRatio: ordersTarget, verdict, refused, errors, firstErrors, byState,
      orderStates: Object.fromEntries(orderStates.map(([state, n]) => [state, Number(n)])), totalTrades: Number(totalTrades[0][0]), audit,
      rounds, median: medians, ratio
    })
    log(`   results: ${relative(root, path)}`)
  } finally {
    if (service !== undefined) await service.stop()
    stoppedAt = performance.now()
    await anchor.drop()
    await dropDatabase(server, ourDatabase)
  }
  if (settings.profile) {
    const file = servicePid === undefined ? undefined : mainThreadProfile(profileDirectory, servicePid)
    if (file === undefined) log("   no CPU profile was written")
    else {
      // The final measured window: it ended `skip` seconds before the service exited.
      const skip = lastWasOurs ? (stoppedAt - oursEndedAt) / 1000 : 0
      log(`\n   CPU profile of the service: ${relative(root, file)}${lastWasOurs ? ` (the final measured window: ${settings.seconds} s ending ${skip.toFixed(1)} s before exit)` : " (whole run)"}`)
      log(profileTop(file, 25, lastWasOurs ? settings.seconds : Infinity, skip))
    }
  }
}
