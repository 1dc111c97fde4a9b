/**
 * Payment-order expiry without anyone acting (CONTRACT C16 "now > expiresAt"; docs/DURABLE-TIMERS.md):
 * - the sweep (a periodic job every PAYMENT_SWEEP_SECONDS, 1 here): an order nobody touches is Expired in
 *   the merchant's feed (a raw read that expires nothing) within about a beat of expiresAt;
 * - a restart: an order whose expiresAt passes while the service is killed (SIGKILL) is Expired within
 *   seconds of the restart on the same database;
 * - a pay_internal racing the expiry, 20 times with the pay landing around expiresAt: each order ends
 *   Paid or Expired, the pay's answer agrees, and payer, merchant and fee wallet hold exactly the money
 *   of the Paid ones;
 * - on a PostgreSQL server: cluster_messages holds nothing per order, nothing for a pay_internal flow (ordinary
 *   actor messages are never stored) and nothing for the sweep (its lease is in job_leases); with WORKERS=2 each order
 *   expires once.
 * The ledger audit runs after each test of the file's service.
 */
import { assert, describe, it } from "@effect/vitest"
import { type Party, makeClient, type TestClient } from "../support/Client.ts"
import { assertRejected, serviceForFile } from "../support/Fixtures.ts"
import { merchantOf } from "../support/Merchant.ts"
import { withDatabase } from "../support/Postgres.ts"
import { itWithServer, type RunningService, startService } from "../support/Service.ts"

const { client } = serviceForFile({ env: { PAYMENT_SWEEP_SECONDS: "1" } })

const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)))

interface Shop {
  readonly merchant: Party
  readonly fees: Party
  readonly app: { appId: string; pkey: string }
  next: number
}

/** A merchant wallet with its app, and a fee wallet for the Payment tariff (0.5 USDT fixed). */
const newShop = async (c: TestClient): Promise<Shop> => {
  const { merchant, fees, app } = await merchantOf(c).open("Shop")
  await c.setTariffs([
    { txClass: "Payment", currency: "USDT", feeFixed: "0.5", feePercent: "0", profitWalletId: fees.id }
  ])
  return { merchant, fees, app, next: 0 }
}

const merchantCall = (c: TestClient, shop: Shop, method: string, action: string, body?: unknown) =>
  merchantOf(c).call(shop.app, method, action, body)

const newOrder = async (c: TestClient, shop: Shop, expiresInSeconds: number) => {
  const reply = await merchantCall(c, shop, "POST", "put_payment_order", {
    currency: "USDT",
    orderAmount: "10",
    externalId: `exp-${Date.now()}-${shop.next++}`,
    expiresInSeconds
  })
  return merchantOf(c).ok(reply) as { id: string; code: string; expiresAt: string }
}

/** txState of each of the app's transactions in get_app_payments (raw rows: reading them expires nothing). */
const feedStates = async (c: TestClient, shop: Shop): Promise<Map<string, number>> => {
  const states = new Map<string, number>()
  let cursor = "0"
  for (let page = 0; page < 100; page++) {
    const reply = await merchantCall(c, shop, "GET", `get_app_payments?cursor=${cursor}`)
    assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
    const rows = reply.body.result as Array<{ id: string; txState: number }>
    for (const row of rows) states.set(row.id, row.txState)
    if (rows.length === 0 || reply.body.cursor === cursor) break
    cursor = reply.body.cursor ?? cursor
  }
  return states
}

/** Waits until every order shows txState 16 (Expired/Canceled) in the feed; the time it happened. */
const waitExpiredInFeed = async (c: TestClient, shop: Shop, ids: ReadonlyArray<string>, seconds: number) => {
  const until = Date.now() + seconds * 1000
  for (;;) {
    const states = await feedStates(c, shop)
    if (ids.every((id) => states.get(id) === 16)) return Date.now()
    if (Date.now() > until)
      assert.fail(
        `not Expired in the feed after ${seconds} s: ${JSON.stringify(ids.map((id) => [id, states.get(id)]))}`
      )
    await sleep(100)
  }
}

const orderView = async (c: TestClient, shop: Shop, id: string) => {
  const reply = await merchantCall(c, shop, "GET", `get_app_payment?id=${id}`)
  assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
  return reply.body.result as { state: string; stateCode: number; txState: number; paidAmount: string }
}

describe("the expiry sweep", () => {
  it("an order nobody touches is Expired in the feed within about a sweep beat (1 s) of expiresAt", async () => {
    const shop = await newShop(client)
    const orders = await Promise.all([1, 2, 2].map((s) => newOrder(client, shop, s)))
    const states = await feedStates(client, shop)
    for (const o of orders) assert.strictEqual(states.get(o.id), 1, "Created before expiresAt")
    const latest = Math.max(...orders.map((o) => Date.parse(o.expiresAt)))
    const at = await waitExpiredInFeed(
      client,
      shop,
      orders.map((o) => o.id),
      10
    )
    assert.isBelow(at - latest, 3_000, "within the beat (1 s), the storage poll (1 s) and the feed's polling")
    for (const o of orders) assert.deepInclude(await orderView(client, shop, o.id), { state: "Expired", stateCode: 16 })
  }, 30_000)

  it("pay_internal racing the expiry, 20 times: Paid or Expired, never both, money consistent", async () => {
    const shop = await newShop(client)
    const merchantBefore = (await client.bucketsOf(shop.merchant)).free
    const feesBefore = (await client.bucketsOf(shop.fees)).free
    const payers = await Promise.all(Array.from({ length: 20 }, () => client.party({ fund: "20" })))
    const outcomes = await Promise.all(
      payers.map(async (payer, i) => {
        const order = await newOrder(client, shop, 3)
        // Pay from 1 s before expiresAt to 140 ms after it (a pay takes some 100 ms to commit; the timer
        // fires within ~1 s after expiresAt): on a quiet machine both outcomes occur.
        await sleep(Date.parse(order.expiresAt) - Date.now() - 1_000 + i * 60)
        const reply = await client.call("POST", `/payment/v1/pay_internal?code=${encodeURIComponent(order.code)}`, {
          body: {},
          sid: payer.sid
        })
        return { order, payer, reply }
      })
    )
    await sleep(2_500) // every timer has fired
    let paid = 0
    for (const { order, payer, reply } of outcomes) {
      const view = await orderView(client, shop, order.id)
      const free = (await client.bucketsOf(payer)).free
      if (reply.status === 200) {
        paid++
        assert.strictEqual(reply.body.result.state, "Paid")
        assert.deepInclude(view, { state: "Paid", stateCode: 8, txState: 8, paidAmount: "10" })
        assert.strictEqual(free, 9.5)
      } else {
        assertRejected(reply, 400, 10301, "expired")
        assert.deepInclude(view, { state: "Expired", stateCode: 16, txState: 16, paidAmount: "0" })
        assert.strictEqual(free, 20)
      }
    }
    assert.strictEqual((await client.bucketsOf(shop.merchant)).free, merchantBefore + 10 * paid)
    assert.strictEqual((await client.bucketsOf(shop.fees)).free, feesBefore + 0.5 * paid)
    process.stderr.write(`expiry race: ${paid} of 20 paid, ${20 - paid} expired\n`)
  }, 60_000)
})

describe("restarts and processes", () => {
  it("an order whose expiresAt passes while the service is killed is Expired within seconds of the restart", async () => {
    let service: RunningService | undefined = await startService({ env: { PAYMENT_SWEEP_SECONDS: "3600" } }) // hourly: only the start-up sweep can do it
    const place = { dataDir: service.dataDir, databaseUrl: service.databaseUrl }
    try {
      let c = makeClient(service)
      const shop = await newShop(c)
      const early = await newOrder(c, shop, 2)
      const late = await newOrder(c, shop, 30)
      await service.stop("SIGKILL", true)
      service = undefined
      await sleep(Date.parse(early.expiresAt) + 500 - Date.now())
      service = await startService({ env: { PAYMENT_SWEEP_SECONDS: "3600" }, ...place })
      const restarted = Date.now()
      c = makeClient(service)
      const at = await waitExpiredInFeed(c, shop, [early.id], 15)
      assert.isBelow(at - restarted, 5_000)
      assert.strictEqual((await feedStates(c, shop)).get(late.id), 1, "the other order is not due: still Created")
      await c.assertLedgerSound("after the restart")
    } finally {
      await service?.stop("SIGTERM", true)
      if (place.databaseUrl === undefined) {
        const { rmSync } = await import("node:fs")
        rmSync(place.dataDir, { recursive: true, force: true })
      } else {
        const { dropDatabase } = await import("../support/Postgres.ts")
        await dropDatabase(place.databaseUrl)
      }
    }
  }, 120_000)

  itWithServer(
    "cluster_messages holds nothing per order, nor for a pay_internal flow, nor for the sweep (its lease is in job_leases)",
    async () => {
      const service = await startService({ env: { PAYMENT_SWEEP_SECONDS: "1" } })
      try {
        const c = makeClient(service)
        const shop = await newShop(c)
        const kinds = () =>
          withDatabase(
            service.databaseUrl!,
            (sql) =>
              sql<{
                entityType: string
              }>`SELECT DISTINCT entity_type AS "entityType" FROM cluster_messages ORDER BY entity_type`
          )
        // Orders and a pay_internal flow: order, start, pay (wallet and order actors, all volatile messages).
        const paidOrder = await newOrder(c, shop, 600)
        await Promise.all(Array.from({ length: 5 }, () => newOrder(c, shop, 600)))
        const payer = await c.party({ fund: "20" })
        const paid = await c.call("POST", `/payment/v1/pay_internal?code=${encodeURIComponent(paidOrder.code)}`, {
          body: {},
          sid: payer.sid
        })
        assert.strictEqual(paid.status, 200, JSON.stringify(paid.body))
        await sleep(2_500) // a few beats of the sweep
        // The periodic jobs (this sweep, card reconciliation, ...) keep a beat lease per job in job_leases
        // (issue #22 item 16), no persisted message at all.
        const types = (await kinds()).map((r) => r.entityType)
        assert.deepStrictEqual(types, [], "nothing persisted per order or payment, nor for the sweep")
        const leases = await withDatabase(
          service.databaseUrl!,
          (sql) => sql<{ job: string }>`SELECT job FROM job_leases WHERE job = 'PaymentExpirySweep'`
        )
        assert.lengthOf(leases, 1, "the sweep's beat lease")
        await c.assertLedgerSound()
      } finally {
        await service.stop()
      }
    },
    90_000
  )

  itWithServer(
    "WORKERS=2 (two processes, a sweep in both): each order expires once, the ledger stays sound",
    async () => {
      const service = await startService({ env: { WORKERS: "2", PAYMENT_SWEEP_SECONDS: "1" }, monitoringPorts: 2 })
      try {
        const c = makeClient(service)
        const shop = await newShop(c)
        const orders = await Promise.all(Array.from({ length: 12 }, () => newOrder(c, shop, 2)))
        const ids = orders.map((o) => o.id)
        await waitExpiredInFeed(c, shop, ids, 15)
        const ticks = (rows: ReadonlyArray<{ id: string; idUpdate: string; state: number }>) =>
          Object.fromEntries(rows.map((r) => [r.id, `${r.state}@${r.idUpdate}`]))
        const read = () =>
          withDatabase(
            service.databaseUrl!,
            (sql) =>
              sql<{
                id: string
                idUpdate: string
                state: number
              }>`SELECT t.id::text AS id, t.id_update::text AS "idUpdate", o.state_code::int AS state
                 FROM transactions t JOIN payment_orders o ON o.tx_id = t.id WHERE t.id IN ${sql.in(ids)}`
          )
        const first = ticks(await read())
        await sleep(3_000) // both processes' sweeps have had their go
        const second = ticks(await read())
        assert.deepStrictEqual(second, first, "no commit after the expiry")
        for (const id of ids) assert.match(first[id]!, /^16@[0-9]+$/)
        const postings = await withDatabase(
          service.databaseUrl!,
          (sql) => sql<{ n: number }>`SELECT count(*)::int AS n FROM postings WHERE tx_id IN ${sql.in(ids)}`
        )
        assert.strictEqual(postings[0]!.n, 0, "an expiry moves no money")
        await c.assertLedgerSound()
      } finally {
        await service.stop()
      }
    },
    120_000
  )
})
