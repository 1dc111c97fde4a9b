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
import type { OrderLoadSpec, OrderLoadSummary } from "../load/orders.ts"
import {
  cpuMedianLine,
  prepareE2e,
  rateMedianLines,
  roundCpuText,
  windowFigureKeys,
  type WindowFigures
} from "../support/E2e.ts"
import { createRooms, createTradingWallets, requireSoundLedger } from "../support/Fixtures.ts"
import { fmt, labelled, log, median, mediansOf, type Benchmark } from "../support/Harness.ts"
import { queryRows } from "../support/Postgres.ts"
import { positive } from "../support/Settings.ts"

type OursRound = OrderLoadSummary & {
  readonly ordersPerSec: number
  readonly trades: number
  readonly tradesPerSec: number
  readonly refused: number
} & WindowFigures<"serviceCpuMicrosPerOrder"> & {
    /** PostgreSQL transactions (commits + rollbacks; every standalone read is one) per accepted order, from pg_stat_database. */
    readonly sqlTransactionsPerOrder: number
    /** Orders resting in all books at the end of the round. */
    readonly restingAfter: number
    /** performance.now() when the measured window's result arrived (the profile's window ends there). */
    readonly windowEndedAt: number
  }

const sumOf = (record: Record<string, number>) => Object.values(record).reduce((a, b) => a + b, 0)
const mergeCounts = (records: ReadonlyArray<Record<string, number>>) => {
  const merged: Record<string, number> = {}
  for (const record of records) for (const [key, n] of Object.entries(record)) merged[key] = (merged[key] ?? 0) + n
  return merged
}
const countsText = (record: Record<string, number>) =>
  Object.entries(record)
    .sort((a, b) => b[1] - a[1])
    .map(([key, n]) => `${key} ×${n}`)
    .join(", ")

export const ordersE2e: Benchmark<number, OursRound> = {
  name: "orders_e2e",
  summary:
    "accepted create_order/s over HTTP (p50/p99, trades/s, ledger audit) vs pgbench -N TPS, same PostgreSQL server",
  target: { ratio: 3, what: "create_order/s vs pgbench -N TPS" },
  budget: { key: "serviceCpuMicrosPerOrder", micros: 500, per: "order", ratio: 0.5 },
  prepare: async (run) => {
    const { settings } = run
    // This benchmark's default is 64 clients (BENCH_CONNECTIONS overrides; pgbench gets the same -c).
    const clients = Math.round(positive("BENCH_CONNECTIONS", 64))
    const walletCount = Math.round(positive("BENCH_WALLETS", 200))
    const privateRooms = process.env.BENCH_PRIVATE_ROOMS === "0" ? 0 : Math.round(positive("BENCH_PRIVATE_ROOMS", 9))
    const crossShare = positive("BENCH_CROSS_SHARE", 0.5)
    if (crossShare > 1) throw new Error("BENCH_CROSS_SHARE must be at most 1")
    const e2e = await prepareE2e(run, {
      clients,
      load:
        `${clients} order loops (undici keep-alive, own process) over ${walletCount} wallets, ` +
        `3 public + ${privateRooms} private rooms (BTC/USDT, ETH/USDT, USDC/USDT), ${fmt(crossShare * 100)}% of orders priced through the mid`,
      databasePrefix: "bench_orders",
      env: { MAX_ACTIVE_ORDERS_PER_WALLET: "1000000" }
    })
    const { service, client, ourUrl } = e2e
    const count = async (query: string) => Number((await queryRows(ourUrl, query))[0][0])
    const setupStarted = performance.now()
    const wallets = await createTradingWallets(client, walletCount)
    const rooms = await createRooms(client, wallets, privateRooms)
    await requireSoundLedger(client, "after setup")
    log(
      `   setup: ${walletCount} wallets created, funded in BTC, ETH, USDC, USDT and given sessions, ${privateRooms} private rooms joined by all, ` +
        `in ${fmt((performance.now() - setupStarted) / 1000, 1)} s`
    )
    const ours = e2e.oursSide<OursRound>(
      {
        label: "create_order",
        measure: async (round) => {
          const spec: OrderLoadSpec = {
            base: service.base,
            wallets,
            rooms,
            clients,
            seconds: settings.seconds,
            warmupSeconds: settings.warmupSeconds,
            crossShare,
            nonceBase: round * 1_000_000_000
          }
          const {
            summary: s,
            figures,
            before,
            after,
            wallSeconds,
            endedAt
          } = await e2e.measureLoad({
            script: "bench/load/orders.ts",
            spec,
            graceMs: 20_000,
            perKey: "serviceCpuMicrosPerOrder",
            completed: (s: OrderLoadSummary) => s.accepted,
            // Backends flush their statistics about once a second: over a window of seconds the delta is close.
            extra: async () => ({
              trades: await count("SELECT count(*) FROM trades"),
              transactions: await count(
                "SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = current_database()"
              )
            })
          })
          const resting = await count("SELECT count(*) FROM orders WHERE state = 1")
          return {
            ...s,
            ordersPerSec: s.accepted / s.elapsedSeconds,
            trades: after.trades - before.trades,
            tradesPerSec: (after.trades - before.trades) / wallSeconds,
            refused: sumOf(s.errors),
            ...figures,
            sqlTransactionsPerOrder: (after.transactions - before.transactions) / Math.max(1, s.accepted),
            restingAfter: resting,
            windowEndedAt: endedAt
          }
        },
        report: async (r, round) => {
          await requireSoundLedger(client, `after round ${round}`)
          return (
            `${fmt(r.ordersPerSec).padStart(7)} /s  p50 ${fmt(r.latencyP50Ms, 1)} p99 ${fmt(r.latencyP99Ms, 1)} ms  ` +
            `trades ${fmt(r.tradesPerSec)}/s (${fmt((r.filledOnArrival / Math.max(1, r.accepted)) * 100)}% filled on arrival, ${r.restingAfter} resting)  ` +
            `${roundCpuText(r, "serviceCpuMicrosPerOrder", "order")}  ${fmt(r.sqlTransactionsPerOrder, 1)} SQL xacts/order  audit sound` +
            (r.refused > 0 ? `  ${r.refused} REFUSED (${countsText(r.errors)})` : "")
          )
        }
      },
      (r) => r.windowEndedAt
    )
    return {
      anchor: e2e.anchor,
      ours,
      conclude: async (rounds) => {
        const oursRounds = rounds.map((r) => r.ours)
        const medians = {
          pgbenchTps: median(rounds.map((r) => r.anchor)),
          ...mediansOf(oursRounds, ["ordersPerSec", "latencyP50Ms", "latencyP99Ms", "tradesPerSec"]),
          filledOnArrivalPercent: median(oursRounds.map((r) => (r.filledOnArrival / Math.max(1, r.accepted)) * 100)),
          ...mediansOf(oursRounds, [...windowFigureKeys("serviceCpuMicrosPerOrder"), "sqlTransactionsPerOrder"])
        }
        const errors = mergeCounts(oursRounds.map((r) => r.errors))
        const refused = sumOf(errors)
        const firstErrors = Object.assign({}, ...oursRounds.map((r) => r.firstErrors)) as Record<string, string>
        const byState = mergeCounts(oursRounds.map((r) => r.byState))
        const [orderStates, totalTrades] = await Promise.all([
          queryRows(ourUrl, "SELECT state, count(*) FROM orders GROUP BY state ORDER BY state"),
          queryRows(ourUrl, "SELECT count(*) FROM trades")
        ])
        const audit = await requireSoundLedger(client, "at the end")
        const refusals =
          refused === 0
            ? [labelled("refused orders", "none")]
            : [
                `   ${refused} orders REFUSED in the measured windows: ${countsText(errors)}`,
                ...Object.entries(firstErrors).map(([key, text]) => `     first ${key}: ${text}`)
              ]
        return {
          ratio: medians.ordersPerSec / medians.pgbenchTps,
          headline: {
            anchor: `pgbench -N ${fmt(medians.pgbenchTps)} TPS`,
            ours: `${fmt(medians.ordersPerSec)} orders/s, ${fmt(medians.serviceCpuMicrosPerOrder)} µs CPU each`
          },
          lines: [
            ...rateMedianLines(rounds, medians, "accepted create_order/s", "ordersPerSec"),
            labelled("order latency", `p50 ${fmt(medians.latencyP50Ms, 1)} ms, p99 ${fmt(medians.latencyP99Ms, 1)} ms`),
            labelled(
              "trades",
              `${fmt(medians.tradesPerSec)}/s committed in the window; ${fmt(medians.filledOnArrivalPercent)}% of orders filled (at least partly) on arrival`
            ),
            cpuMedianLine(medians, "serviceCpuMicrosPerOrder", "order"),
            labelled(
              "PostgreSQL",
              `${fmt(medians.sqlTransactionsPerOrder, 1)} transactions per accepted order (standalone reads and ledger batches; pgbench: 1 per TPS)`
            ),
            labelled("accepted replies by state", countsText(byState)),
            labelled(
              "whole run in SQL",
              `orders by state ${orderStates.map(([state, n]) => `${state}: ${n}`).join(", ")}; ${totalTrades[0][0]} trades`
            ),
            labelled(
              "ledger audit",
              "sound after setup, after every round and at the end (every Σ 0, no negative user bucket)"
            ),
            ...refusals
          ],
          record: {
            server: e2e.server,
            durability: e2e.durability,
            settings: { ...settings, clients, wallets: walletCount, privateRooms, crossShare, rooms },
            refused,
            errors,
            firstErrors,
            byState,
            orderStates: Object.fromEntries(orderStates.map(([state, n]) => [state, Number(n)])),
            totalTrades: Number(totalTrades[0][0]),
            audit,
            median: medians
          }
        }
      }
    }
  }
}
