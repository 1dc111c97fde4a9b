/**
 * The merchant order feed (CONTRACT C16 get_app_payments, wait_app_payment; C8): PaymentOrderOut rows
 * of the app only, oldest change first, each order once at its latest state, at most 100 a page (a
 * `limit` sent is ignored), the cursor the last row's idUpdate or with no rows the watermark (never
 * below the request's); the long-poll's 202 idle and 200 as soon as an order changes; and a follower
 * resuming from every cursor while 4 writers create, start, pay and cancel orders — in one process and
 * across two processes on one PostgreSQL — sees each change the writers caused at most once, only
 * changes they caused, and every order's final state.
 */
import { assert, describe, it } from "@effect/vitest"
import type { Party, TestClient } from "../support/Client.ts"
import { assertRejected, errorCode, serviceForFile } from "../support/Fixtures.ts"
import { type App, merchantOf } from "../support/Merchant.ts"
import { itWithServer } from "../support/Service.ts"
import { twoProcessClients } from "../support/Client.ts"

const { client, service } = serviceForFile({ setup: async () => {} })
const m = merchantOf(client)
const peers = twoProcessClients(service)

let merchant: Party
let app: App
let otherApp: App
let internalTerminal: string

const setup = async () => {
  if (merchant !== undefined) return
  merchant = await client.party()
  const other = await client.party()
  const fees = await client.party()
  app = await m.createApp(merchant.id, "Feed shop")
  otherApp = await m.createApp(other.id, "Other shop")
  await client.setTariffs([
    { txClass: "Payment", currency: "USDT", feeFixed: "0.5", feePercent: "0", profitWalletId: fees.id }
  ])
  const networks = await client.priv("GET", "tokens_networks")
  internalTerminal = String((networks.body.result as Array<any>).find((t) => t.typeNetwork === 240).id)
}

/** The app's feed drained to its end: the cursor to follow from. */
const headOf = async (of: App) => (await m.drain(of, undefined)).cursor

const waitFeed = (c: TestClient, of: App, cursor: string | undefined, timeout: number) =>
  c.call("GET", `/payorders/v1/wait_app_payment?app_id=${of.appId}&cursor=${cursor}&timeout=${timeout}`, {
    pkey: of.pkey
  })

/** longpoll_waiters{feed="merchant"} on the monitoring port. */
const merchantWaiters = async () => {
  const text = await (await fetch(service().monitoring + "/metrics")).text()
  const line = text.split("\n").find((l) => l.startsWith('longpoll_waiters{feed="merchant"} '))
  assert.isDefined(line, "longpoll_waiters{feed=merchant} is on /metrics")
  return Number(line!.slice(line!.lastIndexOf(" ") + 1))
}

/** A page's own rules: rows after the request's cursor in idUpdate order, the cursor their last or the watermark. */
const checkPage = (requested: string | undefined, body: any) => {
  const rows = body.result as Array<any>
  let last = BigInt(requested ?? "0")
  for (const row of rows) {
    assert.isTrue(BigInt(row.idUpdate) > last, `rows ascend past the cursor: ${row.idUpdate} after ${last}`)
    last = BigInt(row.idUpdate)
  }
  if (rows.length > 0) assert.strictEqual(body.cursor, rows[rows.length - 1].idUpdate)
  else assert.isTrue(BigInt(body.cursor) >= last, "an empty page's cursor never goes back")
  assert.strictEqual(new Set(rows.map((row) => row.id)).size, rows.length, "an order once per page")
}

describe("get_app_payments", () => {
  it("lists this app's orders, oldest change first, once at the latest state; limit ignored; cursor rules", async () => {
    await setup()
    const start = await headOf(app)
    const otherStart = await headOf(otherApp)
    const a = await m.put(app)
    const b = await m.put(app, { orderAmount: "2.5" })
    const c = await m.put(app)
    const foreign = await m.put(otherApp)
    const started = await m.gate("POST", "order_start", b.code, { tokenNetworkId: internalTerminal })
    assert.strictEqual(started.status, 200, JSON.stringify(started.body))

    const reply = await m.page(app, start, "&limit=1")
    assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
    checkPage(start, reply.body)
    const rows = reply.body.result as Array<any>
    assert.deepStrictEqual(
      rows.map((row) => row.id),
      [a.id, c.id, b.id],
      "b moved past c when it started; a limit sent is ignored"
    )
    const bNow = await m.order(app, b.id)
    assert.deepStrictEqual(rows[2], bNow, "the row is get_app_payment's PaymentOrderOut")
    assert.strictEqual(rows[2].state, "Started")
    assert.strictEqual(rows[2].orderAmount, "2.5")
    assert.isTrue(BigInt(rows[2].idUpdate) > BigInt(b.idUpdate), "the change moved the order's idUpdate")
    assert.strictEqual(reply.body.cursor, bNow.idUpdate)

    // Resumed from its cursor: nothing more; the cursor is then the watermark, never below the request's.
    const after = await m.page(app, reply.body.cursor)
    assert.deepStrictEqual(after.body.result, [])
    checkPage(reply.body.cursor, after.body)
    const far = "9000000000000000000"
    assert.strictEqual((await m.page(app, far)).body.cursor, far)

    // Another app's feed holds only its own order.
    const others = await m.drain(otherApp, otherStart)
    assert.deepStrictEqual(
      others.rows.map((row) => row.id),
      [foreign.id]
    )
    const all = await m.drain(app, undefined)
    assert.isFalse(
      all.rows.some((row) => row.id === foreign.id || row.appId !== app.appId),
      "no other app's order"
    )
  })

  it("at most 100 rows a page, whatever limit is sent; the next page continues after the last row", async () => {
    await setup()
    const start = await headOf(app)
    const made: Array<string> = []
    for (let batch = 0; batch < 21; batch++) {
      const orders = await Promise.all(Array.from({ length: 5 }, () => m.put(app)))
      made.push(...orders.map((order) => order.id))
    }
    const first = await m.page(app, start, "&limit=500")
    assert.strictEqual(first.status, 200, JSON.stringify(first.body))
    assert.strictEqual(first.body.result.length, 100)
    checkPage(start, first.body)
    const second = await m.page(app, first.body.cursor, "&limit=1")
    assert.strictEqual(second.body.result.length, 5)
    checkPage(first.body.cursor, second.body)
    const seen = [...first.body.result, ...second.body.result].map((row: any) => row.id)
    assert.deepStrictEqual([...seen].sort(), [...made].sort())
  })

  it("401 for a bad pkey, 403 for another app's app_id, 10001 for a bad cursor", async () => {
    await setup()
    for (const action of ["get_app_payments", "wait_app_payment?timeout=0"]) {
      assert.strictEqual((await m.call(app, "GET", action, undefined, "not-a-key")).status, 401, action)
      assert.strictEqual((await m.call(otherApp, "GET", action, undefined, app.pkey)).status, 403, action)
    }
    assertRejected(await m.call(app, "GET", "wait_app_payment?cursor=-1"), 400, errorCode.InvalidRequest)
  })
})

describe("wait_app_payment", () => {
  it("202 with result [] and the cursor when idle; 200 at once with rows waiting; 200 as soon as an order changes", async () => {
    await setup()
    const head = await headOf(app)
    const t0 = Date.now()
    const idle = await waitFeed(client, app, head, 1)
    assert.strictEqual(idle.status, 202, JSON.stringify(idle.body))
    assert.deepStrictEqual(idle.body.result, [])
    assert.isTrue(BigInt(idle.body.cursor!) >= BigInt(head))
    assert.isAtLeast(Date.now() - t0, 900, "waited for the timeout")
    const now = await waitFeed(client, app, head, 0)
    assert.strictEqual(now.status, 202, "timeout=0 answers at once")

    // Another app's change does not answer this app's wait with rows.
    const quiet = waitFeed(client, app, idle.body.cursor, 2)
    await new Promise((resolve) => setTimeout(resolve, 300))
    await m.put(otherApp)
    const quietReply = await quiet
    assert.strictEqual(quietReply.status, 202, JSON.stringify(quietReply.body))
    assert.deepStrictEqual(quietReply.body.result, [])

    // An order of this app created while waiting answers the wait long before its timeout.
    const cursor = quietReply.body.cursor
    const t1 = Date.now()
    const waiting = waitFeed(client, app, cursor, 20)
    await new Promise((resolve) => setTimeout(resolve, 300))
    assert.strictEqual(await merchantWaiters(), 1, "the parked wait is counted on longpoll_waiters")
    const order = await m.put(app)
    const woke = await waiting
    assert.strictEqual(woke.status, 200, JSON.stringify(woke.body))
    assert.isBelow(Date.now() - t1, 10_000)
    assert.deepStrictEqual(
      woke.body.result.map((row: any) => row.id),
      [order.id]
    )
    checkPage(cursor, woke.body)
    assert.strictEqual(await merchantWaiters(), 0)
    // Rows already after the cursor: 200 at once.
    const again = await waitFeed(client, app, cursor, 20)
    assert.strictEqual(again.status, 200)
    assert.strictEqual(again.body.cursor, order.idUpdate)
  })
})

interface Change {
  readonly id: string
  readonly idUpdate: string
}

/**
 * 4 writers, each making `perWriter` orders through the given clients in turn: paid at once, started
 * then paid, canceled, started then canceled. Every change is recorded as get_app_payment shows it
 * right after (the writer alone acts on its orders).
 */
const writers = async (clients: ReadonlyArray<TestClient>, perWriter: number): Promise<Array<Change>> => {
  const changes: Array<Change> = []
  await Promise.all(
    Array.from({ length: 4 }, async (_, w) => {
      const c = clients[w % clients.length]
      const mc = merchantOf(c)
      const payer = await client.party({ fund: "100" })
      for (let i = 0; i < perWriter; i++) {
        const order = await mc.put(app, { orderAmount: String(1 + i) })
        changes.push({ id: order.id, idUpdate: order.idUpdate })
        const record = async () => {
          const now = await mc.order(app, order.id)
          changes.push({ id: now.id, idUpdate: now.idUpdate })
        }
        const plan = (w + i) % 4
        if (plan === 1 || plan === 3) {
          const reply = await mc.gate("POST", "order_start", order.code, { tokenNetworkId: internalTerminal })
          assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
          await record()
        }
        if (plan === 0 || plan === 1) {
          const reply = await mc.gate("POST", "pay_internal", order.code, {}, payer.sid)
          assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
        } else {
          const reply = await mc.call(app, "POST", `cancel_payment_order?id=${order.id}`)
          assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
        }
        await record()
      }
    })
  )
  return changes
}

/** Follows with get_app_payments (pages) from `from` until `done()` and an empty page after it. */
const followPages = async (clients: ReadonlyArray<TestClient>, from: string, done: () => boolean) => {
  const seen: Array<Change> = []
  let cursor = from
  for (let n = 0; ; n++) {
    const finished = done()
    const reply = await merchantOf(clients[n % clients.length]).page(app, cursor)
    assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
    checkPage(cursor, reply.body)
    seen.push(...reply.body.result.map((row: any) => ({ id: row.id, idUpdate: row.idUpdate })))
    cursor = reply.body.cursor!
    if (finished && reply.body.result.length === 0) return seen
  }
}

/** Follows with wait_app_payment from `from` until `done()` and a 202 after it. */
const followWaits = async (c: TestClient, from: string, done: () => boolean) => {
  const seen: Array<Change> = []
  let cursor = from
  for (;;) {
    const finished = done()
    const reply = await waitFeed(c, app, cursor, finished ? 0 : 2)
    assert.include([200, 202], reply.status, JSON.stringify(reply.body))
    checkPage(cursor, reply.body)
    if (reply.status === 202) assert.deepStrictEqual(reply.body.result, [])
    seen.push(...reply.body.result.map((row: any) => ({ id: row.id, idUpdate: row.idUpdate })))
    cursor = reply.body.cursor!
    if (finished && reply.status === 202) return seen
  }
}

/** What a follower saw against what the writers caused. */
const checkFollowed = (label: string, changes: ReadonlyArray<Change>, seen: ReadonlyArray<Change>) => {
  const key = (change: Change) => `${change.id}@${change.idUpdate}`
  const caused = new Set(changes.map(key))
  const seenKeys = seen.map(key)
  assert.strictEqual(new Set(seenKeys).size, seenKeys.length, `${label}: no change twice`)
  for (const k of seenKeys) assert.isTrue(caused.has(k), `${label}: ${k} is a change a writer caused`)
  const latest = new Map<string, bigint>()
  for (const change of changes) {
    const tick = BigInt(change.idUpdate)
    if ((latest.get(change.id) ?? -1n) < tick) latest.set(change.id, tick)
  }
  const seenOrders = new Set(seen.map((change) => change.id))
  for (const [id, tick] of latest) {
    assert.isTrue(seenKeys.includes(`${id}@${tick}`), `${label}: order ${id}'s final change ${tick} was seen`)
    assert.isTrue(seenOrders.has(id))
  }
  // Each order's changes seen in order, ascending (an order can show twice only with newer changes).
  const perOrder = new Map<string, bigint>()
  for (const change of seen) {
    const tick = BigInt(change.idUpdate)
    assert.isTrue((perOrder.get(change.id) ?? -1n) < tick, `${label}: order ${change.id} never goes back`)
    perOrder.set(change.id, tick)
  }
}

const concurrentRun = async (clients: ReadonlyArray<TestClient>, perWriter: number) => {
  await setup()
  const from = await headOf(app)
  let done = false
  const following = followPages(clients, from, () => done)
  const waiting = followWaits(clients[clients.length - 1], from, () => done)
  const changes = await writers(clients, perWriter).finally(() => {
    done = true
  })
  const [pages, waits] = await Promise.all([following, waiting])
  assert.strictEqual(new Set(changes.map((c) => c.id)).size, 4 * perWriter)
  checkFollowed("get_app_payments", changes, pages)
  checkFollowed("wait_app_payment", changes, waits)
  return { changes, pages, waits }
}

describe("a follower under 4 concurrent writers", () => {
  it("resuming from every cursor sees each change at most once, only real changes, and every final state", async () => {
    await concurrentRun([client], 6)
  }, 120_000)

  itWithServer(
    "two service processes on one PostgreSQL: writers and followers through both",
    async () => {
      const [a, b] = await peers()
      await concurrentRun([a, b], 5)
    },
    180_000
  )
})
