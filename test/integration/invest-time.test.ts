/**
 * Durable time for investments (CONTRACT C17 "Maturity timer", "Profits" managed mode), each test on its
 * own service restarted on the same database:
 * - managed accrual (INVEST_ACCRUAL_SECONDS=2): each boundary credited within 2 s of it; the service
 *   stopped across boundaries catches them up after the restart; the matured total is C17's formula
 *   exactly (computed here in bigint from activatedAt and dateEnd as reported); pushes refused (10159);
 *   an early close credits the boundaries up to closedAt and forfeits the rest;
 * - kill -9 while investments fall due: after the restart each closes within 5 s, exactly once (one
 *   close transaction each, by SQL on a real server), and nothing is paid twice.
 */
import { rmSync } from "node:fs"
import { assert, describe, it } from "@effect/vitest"
import { makeClient } from "../support/Client.ts"
import { assertRejected } from "../support/Fixtures.ts"
import { investOf } from "../support/Invest.ts"
import { dropDatabase, withDatabase } from "../support/Postgres.ts"
import { type RunningService, startService } from "../support/Service.ts"

const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)))
const accrued = (amount: bigint, rateScaled: bigint, from: number, to: number): bigint =>
  (amount * rateScaled * BigInt(to - from)) / (100n * 31_536_000_000n * 100_000_000n)

/** Runs `body` with a service and a restart of it on the same database; cleans up whatever happens. */
const withRestarts = async (
  env: Record<string, string>,
  body: (ctx: {
    first: RunningService
    restart: (signal: NodeJS.Signals, pauseMs: number) => Promise<RunningService>
  }) => Promise<void>
) => {
  let current: RunningService | undefined = await startService({ env })
  const place = { dataDir: current.dataDir, databaseUrl: current.databaseUrl }
  try {
    await body({
      first: current,
      restart: async (signal, pauseMs) => {
        await current!.stop(signal, true)
        current = undefined
        await sleep(pauseMs)
        current = await startService({ env, ...place })
        return current
      }
    })
  } finally {
    await current?.stop("SIGTERM", true)
    if (place.databaseUrl === undefined) rmSync(place.dataDir, { recursive: true, force: true })
    else await dropDatabase(place.databaseUrl)
  }
}

describe("C17 durable time", () => {
  it("managed accrual: boundaries credited within 2 s, caught up across a restart, total = formula exactly", async () => {
    const env = { INVEST_PROFIT_MODE: "managed", INVEST_ACCRUAL_SECONDS: "2", INVEST_MIN_TERM_SECONDS: "1" }
    await withRestarts(env, async ({ first, restart }) => {
      let service = first
      let c = makeClient(() => service)
      let inv = investOf(c, () => service)
      const who = await c.party({ fund: "2000.000001" })
      // 1000 USDT at 987.65432101 %: a few hundred minor units a boundary.
      const rate = "987.65432101"
      const rateScaled = 98_765_432_101n
      const P = 1_000_000_000n
      const id = await inv.created(inv.body(who, { amount: String(P), ratePct: rate, tag: "managed" }, 18))
      const other = await inv.created(inv.body(who, { amount: String(P), ratePct: rate }, 60))
      // A baseline above any accrual of its term: boundaries owe nothing, so nothing is ever credited.
      const rich = await inv.created(inv.body(who, { amount: "1", ratePct: rate, profit: "1000000" }, 60))
      assertRejected(await inv.push([{ timetick: id, profit: "1" }]), 400, 10159)
      const x0 = await inv.get(id)
      const activatedAt = Date.parse(x0.activatedAt)
      const dateEnd = Date.parse(x0.dateEnd)
      // Boundary 1 (activatedAt + 2 s) credited by activatedAt + 4 s.
      await sleep(activatedAt + 4_000 - Date.now())
      const x1 = await inv.get(id)
      assert.isTrue(
        BigInt(x1.profitMinor) >= accrued(P, rateScaled, activatedAt, activatedAt + 2_000),
        `boundary 1 credited: ${x1.profitMinor}`
      )
      // Stopped from ~4.5 s to ~9.5 s: boundaries 3 and 4 fall while it is down.
      await sleep(activatedAt + 4_500 - Date.now())
      service = await restart("SIGTERM", Math.max(0, activatedAt + 9_500 - Date.now()))
      c = makeClient(() => service)
      inv = investOf(c, () => service)
      const restartedAt = Date.now()
      // Caught up within a few seconds of the restart: at least boundary 4 (activatedAt + 8 s).
      for (;;) {
        const x = await inv.get(id)
        if (BigInt(x.profitMinor) >= accrued(P, rateScaled, activatedAt, activatedAt + 8_000)) break
        assert.isBelow(Date.now() - restartedAt, 5_000, "missed boundaries not caught up within 5 s")
        await sleep(100)
      }
      // The baseline one: nothing credited, and its due time moved past the boundaries that owed nothing
      // (on a server, by SQL: the sweep does not find it again every second).
      assert.strictEqual((await inv.get(rich)).profitMinor, "1000000")
      if (service.databaseUrl !== undefined) {
        const [row] = await withDatabase(
          service.databaseUrl,
          (sql) => sql<{ due: Date }>`SELECT due_at AS due FROM investments WHERE timetick = ${rich}`
        )
        assert.isAbove(row!.due.getTime(), Date.now() - 1_500, "due_at advanced past the boundaries owing nothing")
      }
      // Early close of the other one at a non-boundary time: only whole boundaries are credited.
      const early = inv.ok(await inv.giveBack(who, other))
      const oActivated = Date.parse(early.activatedAt)
      const oClosed = Date.parse(early.closedAt)
      const boundary = oActivated + Math.floor((oClosed - oActivated) / 2_000) * 2_000
      // ReceivedEarlyCloseRequest is entered at the request; closedAt follows it by milliseconds.
      const requested = Date.parse(early.transitions.find((t: any) => t.stateName === "ReceivedEarlyCloseRequest").at)
      const forfeitBoundary = oActivated + Math.floor((requested - oActivated) / 2_000) * 2_000
      assert.strictEqual(early.profitMinor, String(accrued(P, rateScaled, oActivated, forfeitBoundary)))
      assert.isAtMost(forfeitBoundary, boundary)
      // Maturity: the final credit at dateEnd, total = formula exactly.
      const done = await inv.closed(id, 20)
      assert.strictEqual(done.profitMinor, String(accrued(P, rateScaled, activatedAt, dateEnd)))
      assert.isAtMost(Date.parse(done.closedAt) - dateEnd, 2_000)
      assert.deepStrictEqual(
        done.transitions.map((t: any) => t.stateName),
        ["Activated", "ProfitCalculated", "Closed"]
      )
      const profits = BigInt(done.profitMinor) + BigInt(early.profitMinor)
      assert.deepStrictEqual(await inv.money(who), { free: 2_000_000_000n + profits, lockOrders: 1n })
      await c.assertLedgerSound("after managed maturity")
    })
  }, 90_000)

  it("kill -9 while investments are due: each closes exactly once within 5 s of the restart, nothing paid twice", async () => {
    const env = { INVEST_MIN_TERM_SECONDS: "1" }
    await withRestarts(env, async ({ first, restart }) => {
      let service = first
      let c = makeClient(() => service)
      let inv = investOf(c, () => service)
      const who = await c.party({ fund: "100" })
      const ids: Array<string> = []
      for (let i = 0; i < 8; i++)
        ids.push(await inv.created(inv.body(who, { amount: "1000000", state: 1 + (i % 2) }, 3)))
      const batch = ids.filter((_, i) => i % 2 === 1).map((timetick, i) => ({ timetick, profit: String(500 + i) }))
      inv.ok(await inv.push(batch))
      const dueAt = Date.parse((await inv.get(ids[ids.length - 1]!)).dateEnd)
      service = await restart("SIGKILL", Math.max(0, dueAt + 1_500 - Date.now()))
      c = makeClient(() => service)
      inv = investOf(c, () => service)
      const restartedAt = Date.now()
      for (const id of ids) {
        const x = await inv.closed(id, 10)
        assert.isBelow(Date.parse(x.closedAt) - restartedAt, 5_000)
        assert.strictEqual(x.transitions.filter((t: any) => t.stateName === "Closed").length, 1)
      }
      // The batch again: every item refused (Closed), nothing credited.
      const again = inv.ok(await inv.push(batch))
      assert.deepStrictEqual(
        again.map((r: any) => [r.creditedMinor, r.error?.code]),
        batch.map(() => ["0", 10157])
      )
      const profits = batch.reduce((s, b) => s + BigInt(b.profit), 0n)
      assert.deepStrictEqual(await inv.money(who), { free: 100_000_000n + profits, lockOrders: 0n })
      await c.assertLedgerSound("after the kill -9 restart")
      const url = service.databaseUrl
      if (url === undefined) {
        process.stderr.write("\n*** close transactions per investment not counted by SQL (embedded PGlite)\n")
        return
      }
      const rows = await withDatabase(
        url,
        (sql) => sql<{ investment: string; closes: string; payments: string }>`
          SELECT it.investment_id::text AS investment,
            count(*) FILTER (WHERE t.type_tx IN (8, 9))::text AS closes,
            count(*) FILTER (WHERE t.type_tx = 10)::text AS payments
          FROM investment_txs it JOIN transactions t ON t.id = it.tx_id GROUP BY it.investment_id`
      )
      // Each investment's own DeliverAt timer was persisted (entity "Investment", tag "Timer") and delivered.
      const timers = await withDatabase(
        url,
        (sql) => sql<{ entityId: string; processed: boolean }>`
          SELECT m.entity_id AS "entityId", (r.id IS NOT NULL) AS processed FROM cluster_messages m
          LEFT JOIN cluster_replies r ON r.request_id = m.request_id
          WHERE m.entity_type = 'Investment' AND m.tag = 'Timer'`
      )
      for (const id of ids)
        assert.isTrue(
          timers.some((t) => t.entityId === id),
          `a timer for ${id}`
        )
      for (const id of ids) {
        const row = rows.find((r) => r.investment === id)
        assert.strictEqual(row?.closes, "1", `investment ${id}`)
        assert.strictEqual(row?.payments, ids.indexOf(id) % 2 === 1 ? "1" : "0", `investment ${id}`)
      }
    })
  }, 90_000)

  it("INVEST_* settings out of range stop the start, naming the variable", async () => {
    for (const [name, value] of [
      ["INVEST_PROFIT_MODE", "auto"],
      ["INVEST_EARLY_CLOSE_PENALTY_PCT", "101"],
      ["INVEST_EARLY_CLOSE_PENALTY_PCT", "100.5"],
      ["INVEST_EARLY_CLOSE_PENALTY_PCT", "0.123456789"]
    ] as const) {
      let failure = ""
      try {
        const s = await startService({ env: { [name]: value } })
        await s.stop()
      } catch (error) {
        failure = String(error)
      }
      assert.include(failure, name, `${name}=${value} must stop the start`)
    }
  }, 90_000)
})
