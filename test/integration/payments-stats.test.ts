/**
 * Daily payment statistics (CONTRACT C16 "Daily statistics"): my_payment_stats for the session's own
 * app (403 10403 otherwise, appId required) and payment_stat_get for one app or all. Orders made today
 * in two currencies and two apps — paid, canceled, started only — give today's rows (total created,
 * finished = now Paid, amountFinished as decimal strings, integers as JSON integers, sorted by
 * dayNumber, appId, currency, txType); the range rules (default seven days ending today, the 366-day
 * cap, from > to, calendar dates only) are checked over HTTP.
 */
import { assert, describe, it } from "@effect/vitest"
import type { Party } from "../support/Client.ts"
import { assertRejected, errorCode, serviceForFile } from "../support/Fixtures.ts"
import { type App, merchantOf } from "../support/Merchant.ts"

const { client } = serviceForFile({ setup: async () => {} })
const m = merchantOf(client)

const DAY_MS = 86_400_000
let merchantA: Party
let merchantB: Party
let appA: App
let appB: App
let today: number

const dayText = (dayNumber: number) => new Date(dayNumber * DAY_MS).toISOString().slice(0, 10)

const pay = async (order: any, payer: Party) => {
  const reply = await m.gate("POST", "pay_internal", order.code, {}, payer.sid)
  assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
}

const setup = async () => {
  if (merchantA !== undefined) return
  merchantA = await client.party()
  merchantB = await client.party()
  const fees = await client.party()
  const payer = await client.party({ fund: { USDT: "100", EUR: "100" } })
  appA = await m.createApp(merchantA.id, "Stats A")
  appB = await m.createApp(merchantB.id, "Stats B")
  await client.setTariffs(
    ["USDT", "EUR"].map((currency) => ({
      txClass: "Payment",
      currency,
      feeFixed: "0.5",
      feePercent: "0",
      profitWalletId: fees.id
    }))
  )
  today = Math.floor(Date.now() / DAY_MS)
  // A, USDT: 1.25 and 2 paid, 3 canceled, 0.5 started only.
  await pay(await m.put(appA, { orderAmount: "1.25" }), payer)
  await pay(await m.put(appA, { orderAmount: "2" }), payer)
  const canceled = await m.put(appA, { orderAmount: "3" })
  assert.strictEqual((await m.call(appA, "POST", `cancel_payment_order?id=${canceled.id}`)).status, 200)
  const started = await m.put(appA, { orderAmount: "0.5" })
  const networks = await client.priv("GET", "tokens_networks")
  const internal = String((networks.body.result as Array<any>).find((t) => t.typeNetwork === 240).id)
  assert.strictEqual((await m.gate("POST", "order_start", started.code, { tokenNetworkId: internal })).status, 200)
  // A, EUR: 10.5 paid, 4 open.
  await pay(await m.put(appA, { currency: "EUR", orderAmount: "10.5" }), payer)
  await m.put(appA, { currency: "EUR", orderAmount: "4" })
  // B, USDT: 7 paid.
  await pay(await m.put(appB, { orderAmount: "7" }), payer)
}

const row = (app: App, currency: string, total: number, finished: number, amountFinished: string) => ({
  appId: app.appId,
  dayNumber: today,
  day: dayText(today),
  currency,
  txType: 20,
  total,
  finished,
  amountFinished
})

const mine = (who: Party, query: string) => client.call("GET", `/core/v1/my_payment_stats?${query}`, { sid: who.sid })
const all = (query: string) => client.priv("GET", `payment_stat_get?${query}`)

describe("my_payment_stats", () => {
  it("today's rows of the session's app: created, finished (now Paid) and the finished amount, per currency", async () => {
    await setup()
    const reply = await mine(merchantA, `appId=${appA.appId}`)
    assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
    assert.deepStrictEqual(reply.body.result, [row(appA, "EUR", 2, 1, "10.5"), row(appA, "USDT", 4, 2, "3.25")])
    const same = await mine(merchantA, `appId=${appA.appId}&from=${dayText(today)}&to=${dayText(today)}`)
    assert.deepStrictEqual(same.body.result, reply.body.result)
  })

  it("default range: seven days ending `to` (today by default); a range ending yesterday has no rows of today", async () => {
    await setup()
    const ofA = `appId=${appA.appId}`
    assert.strictEqual((await mine(merchantA, `${ofA}&to=${dayText(today + 6)}`)).body.result.length, 2)
    assert.deepStrictEqual((await mine(merchantA, `${ofA}&to=${dayText(today + 7)}`)).body.result, [])
    assert.deepStrictEqual((await mine(merchantA, `${ofA}&to=${dayText(today - 1)}`)).body.result, [])
    assert.strictEqual((await mine(merchantA, `${ofA}&from=${dayText(today - 365)}`)).body.result.length, 2)
  })

  it("range rules: from > to and over 366 days 10330; not a calendar date 10001; appId missing 10001", async () => {
    await setup()
    const ofA = `appId=${appA.appId}`
    const to = dayText(today)
    assertRejected(await mine(merchantA, `${ofA}&from=${dayText(today + 1)}&to=${to}`), 400, 10330)
    assertRejected(await mine(merchantA, `${ofA}&from=${dayText(today - 366)}&to=${to}`), 400, 10330)
    assertRejected(await mine(merchantA, `${ofA}&from=${dayText(today - 366)}`), 400, 10330)
    assert.strictEqual((await mine(merchantA, `${ofA}&from=${dayText(today - 365)}&to=${to}`)).status, 200)
    for (const bad of ["2026-02-30", "2026-1-01", "20260101", "yesterday", "2026-13-01", ""]) {
      assertRejected(await mine(merchantA, `${ofA}&from=${bad}`), 400, errorCode.InvalidRequest, bad)
      assertRejected(await mine(merchantA, `${ofA}&to=${bad}`), 400, errorCode.InvalidRequest, bad)
    }
    assertRejected(await mine(merchantA, ""), 400, errorCode.InvalidRequest, "appId missing")
  })

  it("another wallet's app or no such app: 403 10403; no session 401", async () => {
    await setup()
    assertRejected(await mine(merchantA, `appId=${appB.appId}`), 403, errorCode.Forbidden)
    assertRejected(await mine(merchantB, `appId=${appA.appId}`), 403, errorCode.Forbidden)
    assertRejected(await mine(merchantA, `appId=987654321`), 403, errorCode.Forbidden)
    const anonymous = await client.call("GET", `/core/v1/my_payment_stats?appId=${appA.appId}`)
    assert.strictEqual(anonymous.status, 401)
  })
})

describe("payment_stat_get", () => {
  it("every app without appId, sorted by dayNumber, appId, currency; one app with it; same range rules; 401", async () => {
    await setup()
    const everything = await all("")
    assert.strictEqual(everything.status, 200, JSON.stringify(everything.body))
    const [first, second] = BigInt(appA.appId) < BigInt(appB.appId) ? [appA, appB] : [appB, appA]
    const expected = [
      ...(first === appA
        ? [row(appA, "EUR", 2, 1, "10.5"), row(appA, "USDT", 4, 2, "3.25")]
        : [row(appB, "USDT", 1, 1, "7")]),
      ...(second === appA
        ? [row(appA, "EUR", 2, 1, "10.5"), row(appA, "USDT", 4, 2, "3.25")]
        : [row(appB, "USDT", 1, 1, "7")])
    ]
    assert.deepStrictEqual(everything.body.result, expected)
    assert.deepStrictEqual((await all(`appId=${appB.appId}`)).body.result, [row(appB, "USDT", 1, 1, "7")])
    assert.deepStrictEqual((await all(`appId=987654321`)).body.result, [])
    assertRejected(await all(`from=${dayText(today + 1)}&to=${dayText(today)}`), 400, 10330)
    assertRejected(await all(`from=${dayText(today - 400)}`), 400, 10330)
    assertRejected(await all(`to=2026-02-29`), 400, errorCode.InvalidRequest)
    const anonymous = await client.call("GET", "/private/v1/payment_stat_get")
    assert.strictEqual(anonymous.status, 401)
  })
})
