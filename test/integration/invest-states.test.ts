/**
 * Investments (CONTRACT C17) over HTTP, one test per row of the state table, with the wallet's free and
 * lock_orders, Treasury (−1) and Fees (−2) by SQL on a real server (skipped loudly on PGlite), and the
 * ledger audit after each test (serviceForFile). Penalty 1 %, so an early close moves money to Fees.
 */
import { assert, describe, it } from "@effect/vitest"
import { assertRejected, serviceForFile } from "../support/Fixtures.ts"
import { investOf } from "../support/Invest.ts"

const { client: c, service } = serviceForFile({
  env: { INVEST_MIN_TERM_SECONDS: "1", INVEST_EARLY_CLOSE_PENALTY_PCT: "1" }
})
const inv = investOf(c, service)
const P = 100_000_000n

describe("C17 state table over HTTP", () => {
  it("create Created: CreateInvest moves free → lock_orders; pushes and returns refused (10157); activate once", async () => {
    const who = await c.party({ fund: "150" })
    const sys0 = await inv.system()
    const id = await inv.created(inv.body(who, { state: 1 }))
    assert.deepStrictEqual(await inv.money(who), { free: 50_000_000n, lockOrders: P })
    let got = await inv.get(id)
    assert.strictEqual(got.state, 1)
    assert.strictEqual(got.stateName, "Created")
    assert.strictEqual(got.ownerId, "ops-alice")
    assert.strictEqual(got.amountMinor, "100000000")
    assert.strictEqual(got.amount, 100)
    assert.isNull(got.activatedAt)
    const pushed = inv.ok(await inv.push([{ timetick: id, profit: "5" }]))
    assert.strictEqual(pushed[0].error.code, 10157)
    assertRejected(await inv.giveBack(who, id), 400, 10157)
    // Activated
    const activated = inv.ok(await inv.activate(id))
    assert.strictEqual(activated.state, 2)
    assert.isString(activated.activatedAt)
    assert.deepStrictEqual(
      activated.transitions.map((t: any) => t.stateName),
      ["Created", "Activated"]
    )
    assertRejected(await inv.activate(id), 400, 10157)
    assertRejected(await inv.activate("123"), 404, 10156)
    // The CreateInvest transaction in invest_tx_info.
    const txs = inv.ok(await inv.txInfo(who, [id, "1"]))
    assert.strictEqual(txs.length, 1)
    assert.strictEqual(txs[0].typeTx, 7)
    assert.strictEqual(txs[0].txState, 8)
    assert.strictEqual(txs[0].investment.timetick, id)
    const sys1 = await inv.system()
    if (sys0 !== null && sys1 !== null) assert.deepStrictEqual(sys1, sys0)
    got = await inv.get(id)
    assert.strictEqual(got.state, 2)
  })

  it("Activated + profit push: running totals, PaymentInvest of the difference only, never twice; below 10160", async () => {
    const who = await c.party({ fund: "100" })
    const id = await inv.created(inv.body(who))
    const sys0 = await inv.system()
    const first = inv.ok(await inv.push([{ timetick: id, profit: "2500000" }]))
    assert.strictEqual(first[0].creditedMinor, "2500000")
    assert.isString(first[0].txId)
    assert.isNull(first[0].error)
    const again = inv.ok(
      await inv.push([
        { timetick: id, profit: 2_500_000 },
        { timetick: id, profit: "3000000" },
        { timetick: id, profit: "1" },
        { timetick: "42", profit: "1" }
      ])
    )
    assert.deepStrictEqual(
      again.map((r: any) => [r.creditedMinor, r.txId === null, r.error?.code ?? null]),
      [
        ["0", true, null],
        ["500000", false, null],
        ["0", true, 10160],
        ["0", true, 10156]
      ]
    )
    assert.deepStrictEqual(await inv.money(who), { free: 3_000_000n, lockOrders: P })
    const sys1 = await inv.system()
    if (sys0 !== null && sys1 !== null) assert.strictEqual(sys1.treasury, sys0.treasury - 3_000_000n)
    const got = await inv.get(id)
    assert.strictEqual(got.activatedAt, got.createdAt, "created Activated: activatedAt = createdAt")
    assert.strictEqual(got.profitMinor, "3000000")
    // The investment's transactions are ordinary ones: get_tx_info and the history show them.
    for (const [txId, typeTx] of [
      [id, 7],
      [first[0].txId, 10]
    ] as const) {
      const info = await c.call("GET", `/core/v1/wallet/get_tx_info?id=${txId}`, { sid: who.sid })
      assert.strictEqual(info.status, 200, JSON.stringify(info.body))
      assert.strictEqual(info.body.result.typeTx, typeTx)
    }
    const history = await c.call("GET", "/core/v1/wallet/get_history_transactions", { sid: who.sid })
    assert.strictEqual(history.status, 200, JSON.stringify(history.body))
    const types = (history.body.result as Array<any>).map((t) => t.typeTx)
    assert.includeMembers(types, [7, 10])
    assert.strictEqual(got.profit, 3)
    const txs = inv.ok(await inv.txInfo(who, [first[0].txId, again[1].txId]))
    assert.deepStrictEqual(
      txs.map((t: any) => [t.typeTx, t.amountMinor]),
      [
        [10, "2500000"],
        [10, "500000"]
      ]
    )
    // Refusals of the whole request.
    assertRejected(await inv.push([]), 400, 10001)
    assertRejected(await inv.push(Array.from({ length: 1001 }, () => ({ timetick: id, profit: "1" }))), 400, 10070)
    assertRejected(
      await inv.priv("POST", "set_profits_for_investments", [{ timetick: id, profit: "1" }], null),
      400,
      10001
    )
  })

  it("Activated + return_investment (EarlyCloseAllowed): ReceivedEarlyCloseRequest then Closed, penalty rounded up to Fees", async () => {
    const who = await c.party({ fund: "100.5" })
    const id = await inv.created(inv.body(who, { amount: "100000001" }))
    inv.ok(await inv.push([{ timetick: id, profit: "1000000" }]))
    const sys0 = await inv.system()
    const closed = inv.ok(await inv.giveBack(who, id))
    assert.strictEqual(closed.state, 128)
    assert.strictEqual(closed.stateName, "Closed")
    // 1 % of 100 000 001 = 1 000 000.01 → 1 000 001.
    assert.strictEqual(closed.penaltyMinor, "1000001")
    assert.strictEqual(closed.profitMinor, "1000000")
    assert.deepStrictEqual(
      closed.transitions.map((t: any) => t.stateName),
      ["Activated", "ReceivedEarlyCloseRequest", "Closed"]
    )
    assert.deepStrictEqual(await inv.money(who), {
      free: 500_000n - 1n + 1_000_000n + 100_000_001n - 1_000_001n,
      lockOrders: 0n
    })
    const sys1 = await inv.system()
    if (sys0 !== null && sys1 !== null) assert.strictEqual(sys1.fees, sys0.fees + 1_000_001n)
    assertRejected(await inv.giveBack(who, id), 400, 10157)
    const pushed = inv.ok(await inv.push([{ timetick: id, profit: "2000000" }]))
    assert.strictEqual(pushed[0].error.code, 10157)
    // Flags 0: 10158; another wallet's: 404 10156.
    const locked = await inv.created(inv.body(who, { flags: 0, amount: "1" }))
    assertRejected(await inv.giveBack(who, locked), 400, 10158)
    const other = await c.party()
    assertRejected(await inv.giveBack(other, locked), 404, 10156)
    assertRejected(await inv.info(other, locked), 404, 10156)
  })

  it("maturity: Created closes with CloseInvest and no profit; Activated goes ProfitCalculated then Closed, within 2 s", async () => {
    const who = await c.party({ fund: "200" })
    const created = await inv.created(inv.body(who, { state: 1 }, 2))
    const activated = await inv.created(inv.body(who, {}, 2))
    inv.ok(await inv.push([{ timetick: activated, profit: "7" }]))
    const a = await inv.closed(created)
    const b = await inv.closed(activated)
    for (const x of [a, b]) {
      const late = Date.parse(x.closedAt) - Date.parse(x.dateEnd)
      assert.isAtLeast(late, 0)
      assert.isAtMost(late, 2000, `closedAt − dateEnd ${late} ms`)
    }
    assert.deepStrictEqual(
      a.transitions.map((t: any) => t.stateName),
      ["Created", "Closed"]
    )
    assert.strictEqual(a.profitMinor, "0")
    assert.deepStrictEqual(
      b.transitions.map((t: any) => t.stateName),
      ["Activated", "ProfitCalculated", "Closed"]
    )
    assert.strictEqual(b.profitMinor, "7")
    assert.deepStrictEqual(await inv.money(who), { free: 200_000_007n, lockOrders: 0n })
    const session = inv.ok(await inv.info(who, activated))
    assert.strictEqual(session.state, 128)
    assert.isUndefined(session.ownerId)
    const listed = inv.ok(await inv.list(who))
    assert.deepStrictEqual(
      listed.map((x: any) => x.timetick),
      [activated, created]
    )
    // Filters: type names, dates (UTC, inclusive), 10032 for a bad range, 10001 for an unknown type.
    assert.strictEqual(inv.ok(await inv.list(who, "?investment_types=None")).length, 0)
    assert.strictEqual(
      inv.ok(await inv.list(who, "?investment_types=None&investment_types=interest_on_balance")).length,
      2
    )
    const today = new Date().toISOString().slice(0, 10)
    assert.strictEqual(inv.ok(await inv.list(who, `?start=${today}&end=${today}`)).length, 2)
    assert.strictEqual(inv.ok(await inv.list(who, "?start=2020-01-01&end=2020-01-02")).length, 0)
    assertRejected(await inv.list(who, "?start=2020-01-02&end=2020-01-01"), 400, 10032)
    assertRejected(await inv.list(who, "?investment_types=bonds"), 400, 10001)
    // invest_tx_info: CreateInvest, CloseInvest (ids from investment_txs order), others left out; 10070, 10001.
    const txs = inv.ok(await inv.txInfo(who, [created, activated, "5", created]))
    assert.deepStrictEqual(
      txs.map((t: any) => [t.txId, t.typeTx]),
      [
        [created, 7],
        [activated, 7],
        [created, 7]
      ]
    )
    assert.strictEqual((inv.ok(await inv.txInfo(await c.party(), [created])) as Array<any>).length, 0)
    assertRejected(
      await inv.txInfo(
        who,
        Array.from({ length: 101 }, () => created)
      ),
      400,
      10070
    )
    assertRejected(await inv.txInfo(who, ["abc"]), 400, 10001)
  })

  it("create_investment checks in C17's order; externalId replays, 10060 on another body, one winner concurrently", async () => {
    const who = await c.party({ fund: "10" })
    const base = inv.body(who, { amount: "1000000" })
    assertRejected(await inv.create(base, null), 400, 10001, "no owner", "header X-Owner-Id")
    assertRejected(await inv.create({ ...base, amount: "1.5" }), 400, 10001, "fraction", "amount")
    assertRejected(await inv.create({ ...base, walletId: "999999999" }), 404, 10030)
    assertRejected(await inv.create({ ...base, currencyId: "NOPE" }), 400, 10020)
    assertRejected(await inv.create({ ...base, investmentType: 0 }), 400, 10152)
    assertRejected(await inv.create({ ...base, state: 4 }), 400, 10151)
    assertRejected(await inv.create({ ...base, flags: 2 }), 400, 10153)
    assertRejected(await inv.create({ ...base, amount: 0 }), 400, 10150)
    assertRejected(await inv.create({ ...base, ratePct: "1000.1" }), 400, 10154)
    assertRejected(await inv.create({ ...base, ratePct: "1.123456789" }), 400, 10154)
    assertRejected(await inv.create({ ...base, dateEnd: new Date(Date.now() + 500).toISOString() }), 400, 10155)
    assertRejected(await inv.create({ ...base, amount: "10000001" }), 400, 10002)
    assert.deepStrictEqual(await inv.money(who), { free: 10_000_000n, lockOrders: 0n })
    const replies = await Promise.all(Array.from({ length: 6 }, () => inv.create(base)))
    const ids = new Set(replies.map((r) => inv.ok(r)))
    assert.strictEqual(ids.size, 1)
    assert.deepStrictEqual(await inv.money(who), { free: 9_000_000n, lockOrders: 1_000_000n })
    assertRejected(await inv.create({ ...base, amount: "2000000" }), 400, 10060)
  })
})
