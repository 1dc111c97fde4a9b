/**
 * Investments over HTTP (CONTRACT C17): the private actions with an operator's X-Owner-Id, the session
 * reads, and the system wallets' free figures read by SQL on a real server (null on PGlite, said loudly).
 */
import { assert } from "@effect/vitest"
import type { Party, TestClient } from "./Client.ts"
import { withDatabase } from "./Postgres.ts"
import type { RunningService } from "./Service.ts"

let warned = false
const OWNER = "ops-alice"

export const investOf = (c: TestClient, service: () => RunningService) => {
  const priv = (method: string, action: string, body?: unknown, owner: string | null = OWNER) =>
    c.call(method, `/private/v1/${action}`, {
      bearer: service().key,
      body,
      headers: owner === null ? {} : { "x-owner-id": owner }
    })
  const ok = (reply: { status: number; body: any }) => {
    assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
    return reply.body.result
  }
  let next = 0
  /** A create_investment body for `who` (USDT, 100 USDT = 100_000_000 minor, 10 %, dateEnd in `seconds`). */
  const body = (who: Party, fields: Record<string, unknown> = {}, seconds = 3600) => ({
    walletId: who.id,
    currencyId: "USDT",
    investmentType: 1,
    state: 2,
    flags: 1,
    amount: "100000000",
    ratePct: "10",
    dateEnd: new Date(Date.now() + seconds * 1000).toISOString(),
    externalId: `inv-${Date.now()}-${next++}`,
    ...fields
  })
  const create = (b: Record<string, unknown>, owner: string | null = OWNER) =>
    priv("POST", "create_investment", b, owner)
  const created = async (b: Record<string, unknown>) => ok(await create(b)) as string
  const get = async (timetick: string) => ok(await priv("GET", `get_investment?timetick=${timetick}`)) as any
  const activate = (timetick: string) => priv("POST", "activate_investment", { timetick })
  const push = (items: ReadonlyArray<{ timetick: string; profit: string | number }>) =>
    priv("POST", "set_profits_for_investments", items)
  const info = (who: Party, id: string) =>
    c.call("GET", `/core/v1/invest/get_investment_info?investment_id=${id}`, { sid: who.sid })
  const list = (who: Party, query = "") => c.call("GET", `/core/v1/invest/get_investments${query}`, { sid: who.sid })
  const giveBack = (who: Party, id: string) =>
    c.call("POST", `/core/v1/invest/return_investment?investment=${id}`, { sid: who.sid })
  const txInfo = (who: Party, ids: ReadonlyArray<string>) =>
    c.call("POST", "/core/v1/invest_tx_info", { sid: who.sid, body: ids })
  /** Waits until the investment is Closed; answers it. */
  const closed = async (timetick: string, seconds = 15) => {
    const until = Date.now() + seconds * 1000
    for (;;) {
      const inv = await get(timetick)
      if (inv.state === 128) return inv
      if (Date.now() > until)
        assert.fail(`investment ${timetick} not Closed after ${seconds} s: ${JSON.stringify(inv)}`)
      await new Promise((r) => setTimeout(r, 100))
    }
  }
  /** Treasury (−1) and Fees (−2) free USDT in minor units by SQL; null on PGlite. */
  const system = async (): Promise<{ treasury: bigint; fees: bigint } | null> => {
    const url = service().databaseUrl
    if (url === undefined) {
      if (!warned) process.stderr.write("\n*** Treasury and Fees not read (embedded PGlite): needs DATABASE_URL\n")
      warned = true
      return null
    }
    const rows = await withDatabase(
      url,
      (sql) => sql<{ wallet: string; free: string }>`
        SELECT wallet_id::text AS wallet, free::text AS free FROM balances WHERE wallet_id IN (-1, -2) AND currency = 'USDT'`
    )
    const of = (w: string) => BigInt(rows.find((r) => r.wallet === w)?.free ?? "0")
    return { treasury: of("-1"), fees: of("-2") }
  }
  /** free and lock_orders of a party in USDT minor units. */
  const money = async (who: Party) => {
    const b = await c.bucketsOf(who)
    return { free: BigInt(Math.round(b.free * 1e6)), lockOrders: BigInt(Math.round(b.lockOrders * 1e6)) }
  }
  return { priv, ok, body, create, created, get, activate, push, info, list, giveBack, txInfo, closed, system, money }
}
