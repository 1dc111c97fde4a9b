/**
 * Investments under concurrency (CONTRACT C17): maturity racing return_investment ends in exactly one
 * of CloseInvest / EarlyCloseInvest with the money of that one; the same profit batch pushed
 * concurrently is paid once. The ledger audit runs after each test (serviceForFile).
 */
import { assert, describe, it } from "@effect/vitest"
import { serviceForFile } from "../support/Fixtures.ts"
import { investOf } from "../support/Invest.ts"

const { client: c, service } = serviceForFile({
  env: { INVEST_MIN_TERM_SECONDS: "1", INVEST_EARLY_CLOSE_PENALTY_PCT: "10" }
})
const inv = investOf(c, service)
const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)))

describe("C17 races", () => {
  it("maturity racing return_investment: each investment closes once, by one of them, with that one's money", async () => {
    const who = await c.party({ fund: "20" })
    const n = 12
    const ids: Array<string> = []
    const ends: Array<number> = []
    for (let i = 0; i < n; i++) {
      const b = inv.body(who, { amount: "1000000" }, 2)
      ids.push(await inv.created(b))
      ends.push(Date.parse(b.dateEnd as string))
    }
    // Returns land from 300 ms before to 1.5 s after dateEnd (the sweep may or may not have matured it).
    const answers = await Promise.all(
      ids.map(async (id, i) => {
        await sleep(ends[i]! - 300 + i * 150 - Date.now())
        return inv.giveBack(who, id)
      })
    )
    let early = 0
    for (const [i, id] of ids.entries()) {
      const x = await inv.closed(id)
      const names = x.transitions.map((t: any) => t.stateName)
      const answer = answers[i]!
      if (answer.status === 200) {
        early++
        assert.deepStrictEqual(names, ["Activated", "ReceivedEarlyCloseRequest", "Closed"])
        assert.strictEqual(x.penaltyMinor, "100000")
      } else {
        assert.strictEqual(answer.body.error?.code, 10157, JSON.stringify(answer.body))
        assert.deepStrictEqual(names, ["Activated", "ProfitCalculated", "Closed"])
        assert.strictEqual(x.penaltyMinor, "0")
      }
    }
    assert.deepStrictEqual(await inv.money(who), { free: 20_000_000n - BigInt(early) * 100_000n, lockOrders: 0n })
    process.stderr.write(`maturity race: ${early} of ${n} closed early, ${n - early} matured\n`)
  }, 60_000)

  it("the same profit batch pushed concurrently is paid once", async () => {
    const who = await c.party({ fund: "10" })
    const ids = await Promise.all(Array.from({ length: 4 }, () => inv.created(inv.body(who, { amount: "1000000" }))))
    const batch = ids.map((timetick, i) => ({ timetick, profit: String(1000 * (i + 1)) }))
    const replies = await Promise.all(Array.from({ length: 6 }, () => inv.push(batch)))
    const credited = replies
      .flatMap((r) => inv.ok(r) as Array<any>)
      .reduce((s: bigint, item: any) => s + BigInt(item.creditedMinor), 0n)
    assert.strictEqual(credited, 10_000n)
    assert.deepStrictEqual(await inv.money(who), { free: 6_010_000n, lockOrders: 4_000_000n })
    for (const [i, id] of ids.entries()) assert.strictEqual((await inv.get(id)).profitMinor, String(1000 * (i + 1)))
  }, 60_000)
})
