/**
 * C17's smaller rules over HTTP (issue #22 items 3 and 14): `transitions` lists only the states entered;
 * the open-investment cap holds under concurrent creations (counted by the creation's own commit under
 * the wallet's lock); CloseInvest / EarlyCloseInvest are Finished when committed (on a server: the row
 * was inserted at txState 8 and never transitioned); a decimal INVEST_EARLY_CLOSE_PENALTY_PCT; ratePct
 * in exponent form; an externalId replay answered before the time-dependent checks; get_investments'
 * default window of the 366 UTC days up to today. The ledger audit runs after each test.
 */
import { assert, describe, it } from "@effect/vitest"
import { assertRejected, serviceForFile } from "../support/Fixtures.ts"
import { investOf } from "../support/Invest.ts"
import { makeClient } from "../support/Client.ts"
import { withDatabase } from "../support/Postgres.ts"
import { itWithServer, startService } from "../support/Service.ts"

const cap = 3
const { client: c, service } = serviceForFile({
  env: {
    INVEST_MIN_TERM_SECONDS: "2",
    INVEST_EARLY_CLOSE_PENALTY_PCT: "0.5",
    INVEST_MAX_OPEN_PER_WALLET: String(cap)
  }
})
const inv = investOf(c, service)
const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)))

/** The transaction's state and whether it was ever transitioned after its insert (server only; null on PGlite). */
const txRow = async (txId: string) => {
  const url = service().databaseUrl
  if (url === undefined) return null
  const [row] = await withDatabase(
    url,
    (sql) => sql<{ state: number; transitioned: boolean }>`
      SELECT tx_state AS state, updated_at <> created_at AS transitioned FROM transactions WHERE id = ${txId}`
  )
  return row ?? null
}

describe("C17 rules (issue #22)", () => {
  it("transitions: created Activated lists [Activated]; created Created lists [Created, Activated] after activation", async () => {
    const who = await c.party({ fund: "300" })
    const direct = await inv.created(inv.body(who))
    assert.deepStrictEqual(
      (await inv.get(direct)).transitions.map((t: any) => t.stateName),
      ["Activated"]
    )
    const later = await inv.created(inv.body(who, { state: 1 }))
    assert.deepStrictEqual(
      inv.ok(await inv.activate(later)).transitions.map((t: any) => t.stateName),
      ["Created", "Activated"]
    )
  })

  it(`the open-investment cap (${cap}) holds under ${cap * 4} concurrent creations over HTTP`, async () => {
    const who = await c.party({ fund: "100" })
    const n = cap * 4
    const replies = await Promise.all(Array.from({ length: n }, () => inv.create(inv.body(who, { amount: "1000000" }))))
    const okCount = replies.filter((r) => r.status === 200).length
    for (const r of replies) if (r.status !== 200) assert.strictEqual(r.body.error?.code, 10161, JSON.stringify(r.body))
    assert.strictEqual(okCount, cap, replies.map((r) => r.status).join(","))
    const open = inv.ok(await inv.list(who)).filter((x: any) => x.state !== 128)
    assert.strictEqual(open.length, cap)
    // What moved is exactly the cap's principals.
    assert.deepStrictEqual(await inv.money(who), {
      free: 100_000_000n - BigInt(cap) * 1_000_000n,
      lockOrders: BigInt(cap) * 1_000_000n
    })
    // One more, one at a time: still 10161.
    assertRejected(await inv.create(inv.body(who, { amount: "1" })), 400, 10161)
  })

  it("EarlyCloseInvest and CloseInvest are Finished when committed; the decimal penalty (0.5 %) is rounded up", async () => {
    const who = await c.party({ fund: "300" })
    // 0.5 % of 100 000 001 = 500 000.005 → 500 001.
    const early = await inv.created(inv.body(who, { amount: "100000001" }))
    const closed = inv.ok(await inv.giveBack(who, early))
    assert.strictEqual(closed.penaltyMinor, "500001")
    const matures = await inv.created(inv.body(who, { amount: "1000000" }, 3))
    await inv.closed(matures)
    const url = service().databaseUrl
    if (url === undefined) {
      process.stderr.write("\n*** close transactions' rows not read (embedded PGlite): needs DATABASE_URL\n")
      return
    }
    const closes = await withDatabase(
      url,
      (sql) => sql<{ id: string; type: number; state: number; fee: string; transitioned: boolean }>`
        SELECT t.id::text AS id, t.type_tx AS type, t.tx_state AS state, t.fee::text AS fee,
          t.updated_at <> t.created_at AS transitioned
        FROM investment_txs AS x JOIN transactions AS t ON t.id = x.tx_id
        WHERE x.investment_id IN (${early}, ${matures}) AND t.type_tx IN (8, 9) ORDER BY t.type_tx`
    )
    assert.deepStrictEqual(
      closes.map((t) => [t.type, t.state, t.fee, t.transitioned]),
      [
        [8, 8, "0", false],
        [9, 8, "500001", false]
      ]
    )
    // Over HTTP too: invest_tx_info answers them Finished.
    const txs = inv.ok(
      await inv.txInfo(
        who,
        closes.map((t) => t.id)
      )
    )
    assert.deepStrictEqual(
      txs.map((t: any) => [t.typeTx, t.txState]),
      [
        [8, 8],
        [9, 8]
      ]
    )
  })

  it("ratePct in exponent form is accepted where it is a valid decimal (else 10154 or 10001)", async () => {
    const who = await c.party({ fund: "300" })
    const a = await inv.created(inv.body(who, { amount: "1", ratePct: "1.25e1" }))
    assert.strictEqual((await inv.get(a)).ratePct, "12.5")
    const b = await inv.created(inv.body(who, { amount: "1", ratePct: 1e-7 }))
    assert.strictEqual((await inv.get(b)).ratePct, "0.0000001")
    assertRejected(await inv.create(inv.body(who, { amount: "1", ratePct: "1e-9" })), 400, 10154)
    assertRejected(await inv.create(inv.body(who, { amount: "1", ratePct: "2e3" })), 400, 10154)
    assertRejected(await inv.create(inv.body(who, { amount: "1", ratePct: "1e" })), 400, 10001)
  })

  it("an externalId replay answers the first timetick even once dateEnd is no longer far enough ahead", async () => {
    const who = await c.party({ fund: "300" })
    const body = inv.body(who, { amount: "1", state: 1 }, 3)
    const first = await inv.created(body)
    // Wait until dateEnd < now + INVEST_MIN_TERM_SECONDS: a fresh request with this body would be 10155.
    await sleep(Date.parse(body.dateEnd as string) - 2_000 - Date.now() + 300)
    assertRejected(await inv.create({ ...body, externalId: `${body.externalId}-fresh` }), 400, 10155)
    assert.strictEqual(inv.ok(await inv.create(body)), first)
    // Another body under the same externalId is still 10060.
    assertRejected(await inv.create({ ...body, tag: "other" }), 400, 10060)
  })

  it("get_investments: by default the 366 UTC days up to today, from that first day's midnight", async () => {
    const who = await c.party({ fund: "300" })
    const today = Date.parse(`${new Date().toISOString().slice(0, 10)}T00:00:00Z`)
    const ids = [
      await inv.created(inv.body(who, { amount: "1" })),
      await inv.created(inv.body(who, { amount: "1" })),
      await inv.created(inv.body(who, { amount: "1" }))
    ]
    const url = service().databaseUrl
    if (url === undefined) {
      process.stderr.write("\n*** get_investments' window edges not set (embedded PGlite): needs DATABASE_URL\n")
      assert.includeMembers(
        inv.ok(await inv.list(who)).map((x: any) => x.timetick),
        ids
      )
      return
    }
    // Backdated by SQL: the first at the window's first day (today − 365 days) just after midnight, the
    // second the minute before that midnight; the third stays today.
    const first = new Date(today - 365 * 86_400_000 + 1_000)
    const before = new Date(today - 365 * 86_400_000 - 60_000)
    await withDatabase(url, (sql) => sql`UPDATE investments SET created_at = ${first} WHERE timetick = ${ids[0]}`)
    await withDatabase(url, (sql) => sql`UPDATE investments SET created_at = ${before} WHERE timetick = ${ids[1]}`)
    const listed = inv.ok(await inv.list(who)).map((x: any) => x.timetick)
    assert.sameMembers(listed, [ids[0], ids[2]])
  })
})

describe("C17 cap across processes", () => {
  itWithServer(
    `WORKERS=2: ${cap * 4} concurrent creations for one wallet open exactly ${cap}; the ledger is sound`,
    async () => {
      const two = await startService({
        env: { WORKERS: "2", INVEST_MAX_OPEN_PER_WALLET: String(cap) },
        monitoringPorts: 2
      })
      try {
        const c2 = makeClient(two)
        const inv2 = investOf(c2, () => two)
        const who = await c2.party({ fund: "100" })
        const replies = await Promise.all(
          Array.from({ length: cap * 4 }, () => inv2.create(inv2.body(who, { amount: "1000000" })))
        )
        for (const r of replies)
          if (r.status !== 200) assert.strictEqual(r.body.error?.code, 10161, JSON.stringify(r.body))
        assert.strictEqual(replies.filter((r) => r.status === 200).length, cap)
        assert.deepStrictEqual(await inv2.money(who), {
          free: 100_000_000n - BigInt(cap) * 1_000_000n,
          lockOrders: BigInt(cap) * 1_000_000n
        })
        await c2.assertLedgerSound("after the racing creations")
      } finally {
        await two.stop()
      }
    },
    120_000
  )
})
