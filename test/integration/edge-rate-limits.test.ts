/**
 * Limits (CONTRACT C19 §8), over real HTTP against a service with the default limits: 100 requests a
 * second per client address without a valid credential and 200 per session, app or non-admin service
 * key, bursts twice that. Each client here sends from its own loopback address, and floods until the
 * limit shows (a loaded machine serves slower than the refill, so the flood grows until it does): past
 * it the answer is 429 10408 with Retry-After in whole seconds, other callers are unaffected, admin keys
 * are never limited, and after Retry-After the caller gets through again. Long-polls: at most 8 parked
 * per credential (429 10409), and a merchant's waiters wake only when their own app's feed moves (one
 * merchant cannot hold everyone's slots, nor make every other merchant's waiters re-read on its commits).
 * A second service with both rates 0 shows that 0 turns the limits off.
 */
import { assert, describe, it } from "@effect/vitest"
import { makeClient, type Reply } from "../support/Client.ts"
import { flood, raw, type RawRequest } from "../support/Edge.ts"
import { assertRejected, errorCode, serviceForFile } from "../support/Fixtures.ts"
import { merchantOf } from "../support/Merchant.ts"
import { startService } from "../support/Service.ts"

const SCANNER = "scanner-key-0123456789abcdef"
const SECOND_ADMIN = "second-admin-key-0123456789abcdef"

const { service, client } = serviceForFile({ env: { SERVICE_KEYS: `{key},${SECOND_ADMIN},scanner:${SCANNER}` } })
const shop = merchantOf(client)

let lastAddress = 10
/** A loopback address no other test here used: a new caller. */
const newAddress = () => `127.0.3.${lastAddress++}`

/**
 * Sends `request` in concurrent waves of `wave` until one answer is 429 (or `max` were sent); answers
 * every reply. The limit must show before `max`.
 */
const floodUntilLimited = async (path: string, request: RawRequest, wave = 200, max = 6_000) => {
  const replies: Array<Reply> = []
  while (replies.length < max) {
    const sent = await flood(wave, () => raw(service().base, path, request))
    replies.push(...sent)
    if (sent.some((reply) => reply.status === 429)) return replies
  }
  assert.fail(`${path}: no 429 after ${replies.length} requests`)
}

/** The 429s are C19's: code 10408 in the envelope and a Retry-After of whole seconds, at least 1. */
const assertLimited = (replies: ReadonlyArray<Reply>, otherwise: ReadonlyArray<number>) => {
  const limited = replies.filter((reply) => reply.status === 429)
  assert.isAbove(limited.length, 0)
  for (const reply of limited) {
    assert.strictEqual(reply.body.error?.code, errorCode.RateLimitExceeded, JSON.stringify(reply.body))
    assert.match(reply.headers.get("retry-after") ?? "", /^[1-9][0-9]*$/)
  }
  for (const reply of replies)
    if (reply.status !== 429) assert.include(otherwise, reply.status, JSON.stringify(reply.body).slice(0, 200))
  return Math.max(...limited.map((reply) => Number(reply.headers.get("retry-after"))))
}

const later = (seconds: number) => new Promise((done) => setTimeout(done, seconds * 1000 + 100))

describe("per client address, for requests with no valid credential (RATE_LIMIT_IP_RPS 100, burst 200)", () => {
  it("a public read and the get_info fast path: 429 10408 with Retry-After past the burst; other addresses unaffected", async () => {
    const address = newAddress()
    const gate = await floodUntilLimited("/payment/v1/get_order_info?code=P0000", { from: address })
    const retry = assertLimited(gate, [404, 400])
    assert.isAtLeast(gate.filter((reply) => reply.status !== 429).length, 200, "the burst was served")
    // Another address is a caller of its own.
    assert.strictEqual(
      (await raw(service().base, "/payment/v1/get_order_info?code=P0000", { from: newAddress() })).status,
      404
    )
    await later(retry)
    assert.strictEqual(
      (await raw(service().base, "/payment/v1/get_order_info?code=P0000", { from: address })).status,
      404
    )
    // The get_info fast path, answered before the router, keeps the same limit.
    assertLimited(await floodUntilLimited("/core/v1/get_info", { from: newAddress() }), [200])
  }, 120_000)

  it("wrong keys spend the address's tokens (401 until 429); a valid admin key from that address still works", async () => {
    const address = newAddress()
    const guesses = await floodUntilLimited("/private/v1/get_wallets", {
      from: address,
      headers: { authorization: "Bearer not-a-key" }
    })
    assertLimited(guesses, [401])
    const admin = await client.call("GET", "/private/v1/get_wallets?client_id=1", {
      bearer: service().key,
      from: address
    })
    assert.strictEqual(admin.status, 200, JSON.stringify(admin.body))
  }, 120_000)
})

describe("per credential (RATE_LIMIT_CREDENTIAL_RPS 200, burst 400); admin keys unlimited", () => {
  it("one session past its burst is 429 10408; another session is not", async () => {
    const [flooder, other] = [await client.party(), await client.party()]
    // estimate_fee without its query: answered 400 right after authentication, the cheapest session request.
    const replies = await floodUntilLimited("/core/v1/estimate_fee", {
      from: newAddress(),
      headers: { cookie: `sid=${flooder.sid}` }
    })
    assertLimited(replies, [400])
    const reply = await client.call("GET", "/core/v1/wallet/get_balance", { sid: other.sid })
    assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
  }, 120_000)

  it("a scanner key is limited; an admin key sending as much is not", async () => {
    const address = newAddress()
    const scanner = await floodUntilLimited("/private/v1/address_block_list", {
      from: address,
      headers: { authorization: `Bearer ${SCANNER}` }
    })
    assertLimited(scanner, [400])
    const admin = await flood(scanner.length, () =>
      raw(service().base, "/private/v1/get_wallets?client_id=1", {
        from: address,
        headers: { authorization: `Bearer ${SECOND_ADMIN}` }
      })
    )
    assert.deepStrictEqual([...new Set(admin.map((reply) => reply.status))], [200])
  }, 120_000)
})

describe("long-poll waiters (LONGPOLL_MAX_PER_CREDENTIAL 8)", () => {
  const waiting = async (feed: string) => {
    const stats = await client.priv("GET", "monitoring_stats")
    return stats.body.result.longPollWaiters[feed] as number
  }
  const until = async (check: () => Promise<boolean>, what: string) => {
    const deadline = Date.now() + 20_000
    while (!(await check())) {
      if (Date.now() > deadline) assert.fail(`not within 20 s: ${what}`)
      await new Promise((done) => setTimeout(done, 50))
    }
  }
  /** Merchant waiters woken by a commit so far (longpoll_wakeups_total{feed="merchant"}). */
  const wakeups = async () => {
    const stats = await client.priv("GET", "monitoring_stats")
    const family = stats.body.result.series["longpoll_wakeups_total"]
    return family.values.find((value: any) => value.labels.feed === "merchant").value as number
  }

  it("a merchant holds at most 8; its 9th is 429 10409 while another merchant still parks; each wakes only for its own app", async () => {
    const a = await shop.open("Limited A")
    const b = await shop.open("Limited B")
    const headA = (await shop.drain(a.app, undefined)).cursor
    const headB = (await shop.drain(b.app, undefined)).cursor
    const wait = (app: typeof a.app, cursor: string) =>
      client.call("GET", `/payorders/v1/wait_app_payment?app_id=${app.appId}&cursor=${cursor}&timeout=30`, {
        pkey: app.pkey
      })
    const woken0 = await wakeups()
    const parked = Array.from({ length: 8 }, () => wait(a.app, headA))
    await until(async () => (await waiting("merchant")) === 8, "A's 8 waiters parked")
    assertRejected(await wait(a.app, headA), 429, errorCode.TooManyWaiters, "A's 9th")
    const other = wait(b.app, headB)
    await until(async () => (await waiting("merchant")) === 9, "B's waiter parked beside A's 8")
    // B's feed moves: B's waiter answers with its row; A's 8 go on waiting, not woken.
    const orderB = await shop.put(b.app)
    const answerB = await other
    assert.strictEqual(answerB.status, 200, JSON.stringify(answerB.body))
    assert.deepStrictEqual(
      answerB.body.result.map((row: any) => row.id),
      [orderB.id]
    )
    await shop.put(b.app)
    await shop.put(b.app)
    await later(1)
    assert.strictEqual(await waiting("merchant"), 8, "A's waiters still parked")
    assert.strictEqual((await wakeups()) - woken0, 1, "only B's waiter was woken by B's commits")
    // A's feed moves: all 8 answer with A's order.
    const orderA = await shop.put(a.app)
    for (const reply of await Promise.all(parked)) {
      assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
      assert.deepStrictEqual(
        reply.body.result.map((row: any) => row.id),
        [orderA.id]
      )
    }
    assert.strictEqual((await wakeups()) - woken0, 9)
    assert.strictEqual(await waiting("merchant"), 0)
  }, 120_000)

  it("a service key holds at most 8 wait_cursor; another key is not affected", async () => {
    const cursor = (await client.priv("GET", "wait_cursor?timeout=0")).body.cursor as string
    const wait = (key: string) =>
      client.call("GET", `/private/v1/wait_cursor?cursor=${cursor}&timeout=30`, { bearer: key })
    const parked = Array.from({ length: 8 }, () => wait(service().key))
    await until(async () => (await waiting("journal")) === 8, "8 wait_cursor parked")
    assertRejected(await wait(service().key), 429, errorCode.TooManyWaiters, "the key's 9th")
    const second = wait(SECOND_ADMIN)
    await until(async () => (await waiting("journal")) === 9, "the second key's waiter parked")
    await client.fund((await client.party()).id, "USDT", "1")
    for (const reply of await Promise.all([...parked, second])) assert.strictEqual(reply.status, 200)
  }, 120_000)
})

describe("0 turns a limit off", () => {
  it("RATE_LIMIT_IP_RPS=0 and RATE_LIMIT_CREDENTIAL_RPS=0: floods far past the defaults are never 429", async () => {
    const own = await startService({ env: { RATE_LIMIT_IP_RPS: "0", RATE_LIMIT_CREDENTIAL_RPS: "0" } })
    try {
      const c = makeClient(own)
      const party = await c.party()
      for (const request of <Array<{ path: string; headers: Record<string, string> }>>[
        { path: "/private/v1/get_wallets", headers: { authorization: "Bearer not-a-key" } },
        { path: "/core/v1/estimate_fee", headers: { cookie: `sid=${party.sid}` } },
        { path: "/core/v1/get_info", headers: {} }
      ]) {
        const address = newAddress()
        const replies: Array<Reply> = []
        for (let wave = 0; wave < 6; wave++)
          replies.push(
            ...(await flood(200, () => raw(own.base, request.path, { from: address, headers: request.headers })))
          )
        assert.notInclude(
          replies.map((reply) => reply.status),
          429,
          request.path
        )
      }
    } finally {
      await own.stop()
    }
  }, 240_000)
})
