/**
 * The monitoring figures (CONTRACT C9, issue #11) after real traffic over HTTP: funded wallets, an
 * order in a room and a redeemed transfer code, then a scrape of /metrics on the monitoring port.
 * Per actor kind there must be resident counts, activations, passivations, restarts and mailbox
 * depths with sensible values (resident wallets at least the wallets touched); the ledger writer's
 * queue depth and in-flight batch; long-poll waiters by feed, 1 while a wait_cursor is parked and 0
 * after; and monitoring_stats must report the same figures. With a PostgreSQL server, two
 * processes share a room: the one whose book missed the other's order dies on its commit, rebuilds
 * from SQL, and counts that restart. Finally a scrape taken under load passes `promtool check metrics`
 * without a finding: base units, HELP on every family (issue #28).
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { makeClient, type TestClient } from "../support/Client.ts"
import { serviceForFile } from "../support/Fixtures.ts"
import { itWithPromtool, promtoolFindings } from "../support/Promtool.ts"
import { itWithServer, type RunningService, startService } from "../support/Service.ts"

/** One Prometheus text scrape: `name{labels}` → value (histogram buckets left out). */
const scrape = async (service: RunningService): Promise<Map<string, number>> => {
  const text = await (await fetch(service.monitoring + "/metrics")).text()
  const series = new Map<string, number>()
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#") || line.includes("_bucket{")) continue
    const at = line.lastIndexOf(" ")
    series.set(line.slice(0, at), Number(line.slice(at + 1)))
  }
  return series
}

const figure = (series: Map<string, number>, key: string): number => {
  const value = series.get(key)
  assert.isDefined(value, `${key} is missing from /metrics`)
  return value!
}

const kinds = ["Wallet", "Room", "Code"] as const
const actorSeries = {
  resident: "effect_cluster_entities",
  mailboxDepthMax: "effect_cluster_entity_mailbox_size_max",
  activations: "actor_activations_total",
  passivations: "actor_passivations_total",
  restarts: "actor_restarts_total",
  buildFailures: "actor_build_failures_total"
} as const

const actorFigures = (series: Map<string, number>, kind: string) =>
  Object.fromEntries(Object.entries(actorSeries).map(([key, name]) => [key, figure(series, `${name}{type="${kind}"}`)]))

const order = (client: TestClient, sid: string, body: Record<string, unknown>) =>
  client.call("POST", "/core/v1/market/create_order", {
    sid,
    body: { fromCurrency: "BTC", toCurrency: "USDT", ...body }
  })

const walletsTouched = 5

const { service, client } = serviceForFile()

describe("monitoring figures after traffic (C9)", () => {
  it("per-kind actor figures, the ledger writer and long-poll waiters on /metrics, the same in monitoring_stats", async () => {
    const parties = []
    for (let i = 0; i < walletsTouched; i++) {
      const party = await client.walletWithSession(String(7_710_000 + i))
      await client.fund(party.id, "USDT", "1000")
      parties.push(party)
    }
    await client.fund(parties[0].id, "BTC", "1")
    const placed = await order(client, parties[0].sid, {
      clientNonce: 1,
      fromAmount: "0.01",
      toAmount: "1000",
      postOnly: true
    })
    assert.strictEqual(placed.status, 200, JSON.stringify(placed.body))
    const created = await client.call("POST", "/core/v1/create_tx_code", {
      sid: parties[1].sid,
      body: { currency: "USDT", amount: 5, typeTx: 11 }
    })
    assert.strictEqual(created.status, 200, JSON.stringify(created.body))
    const applied = await client.call("POST", `/core/v1/apply_code?code=${created.body.result.code}&client_nonce=1`, {
      sid: parties[2].sid
    })
    assert.strictEqual(applied.status, 200, JSON.stringify(applied.body))

    const series = await scrape(service())
    const actors = Object.fromEntries(kinds.map((kind) => [kind, actorFigures(series, kind)]))
    assert.isAtLeast(actors.Wallet.resident, walletsTouched, "every wallet touched is resident")
    assert.isAtLeast(actors.Room.resident, 1, "the order's room")
    assert.isAtLeast(actors.Code.resident, 1, "the redeemed code")
    for (const kind of kinds) {
      const a = actors[kind]
      // Nothing idles out, fails or restarts in a minute of calm traffic: every activation is resident.
      assert.deepInclude(a, { passivations: 0, restarts: 0, buildFailures: 0 }, kind)
      assert.strictEqual(a.activations, a.resident, `${kind}: activations are the resident actors`)
      assert.isAtLeast(a.mailboxDepthMax, 0, kind)
      assert.isAtMost(a.mailboxDepthMax, 1, `${kind}: nothing is queued once every reply is in`)
    }
    assert.isAtLeast(figure(series, "ledger_queue_depth"), 0)
    assert.isAtLeast(figure(series, "ledger_batch_in_flight"), 0)
    assert.isAtLeast(
      figure(series, "ledger_commit_batch_size_count"),
      walletsTouched + 3,
      "fundings, the order and the code were committed"
    )
    assert.strictEqual(figure(series, 'longpoll_waiters{feed="journal"}'), 0)

    // A parked long-poll is counted under its feed while it waits, and not after.
    const idle = await client.priv("GET", "wait_cursor?timeout=0")
    const parked = client.priv("GET", `wait_cursor?cursor=${idle.body.cursor}&timeout=3`)
    let waiting = 0
    for (let attempt = 0; attempt < 20 && waiting === 0; attempt++) {
      await new Promise((r) => setTimeout(r, 50))
      waiting = figure(await scrape(service()), 'longpoll_waiters{feed="journal"}')
    }
    assert.strictEqual(waiting, 1, "the parked wait_cursor")
    const stats = await client.priv("GET", "monitoring_stats")
    assert.strictEqual(stats.status, 200)
    assert.strictEqual(stats.body.result.longPollWaiters.journal, 1)
    assert.strictEqual((await parked).status, 202)
    assert.strictEqual(figure(await scrape(service()), 'longpoll_waiters{feed="journal"}'), 0)

    // monitoring_stats: the same figures, regrouped and as every family of the snapshot.
    const quiet = await scrape(service())
    const result = (await client.priv("GET", "monitoring_stats")).body.result
    for (const kind of kinds) assert.deepStrictEqual(result.actors[kind], actorFigures(quiet, kind), kind)
    assert.strictEqual(result.ledger.queueDepth, figure(quiet, "ledger_queue_depth"))
    assert.strictEqual(result.ledger.batchInFlight, figure(quiet, "ledger_batch_in_flight"))
    assert.strictEqual(result.ledger.commits, figure(quiet, "ledger_commit_batch_size_count"))
    assert.deepStrictEqual(result.longPollWaiters, { journal: 0, merchant: 0 })
    const residentSeries = result.series.effect_cluster_entities.values as Array<{
      labels: { type: string }
      value: number
    }>
    for (const { labels, value } of residentSeries)
      assert.strictEqual(value, figure(quiet, `effect_cluster_entities{type="${labels.type}"}`))
  })
})

describe("a scrape Prometheus accepts", () => {
  itWithPromtool("promtool check metrics finds nothing in a scrape taken under load", async () => {
    const party = await client.walletWithSession("7730001")
    await client.fund(party.id, "USDT", "1000")
    let running = true
    const load = Array.from({ length: 8 }, async () => {
      while (running) {
        await client.call("GET", "/core/v1/wallet/get_balance", { sid: party.sid })
        await client.call("GET", "/core/v1/get_info")
      }
    })
    await new Promise((r) => setTimeout(r, 300))
    const text = await (await fetch(service().monitoring + "/metrics")).text()
    running = false
    await Promise.all(load)
    assert.include(text, "http_request_duration_seconds_bucket", "the scrape saw the requests")
    assert.deepStrictEqual(promtoolFindings(text), { status: 0, findings: [] })
  })
})

describe("a room that dies on a failed commit and rebuilds from SQL is counted (C9)", () => {
  let peer: RunningService | undefined
  afterAll(async () => {
    await peer?.stop()
  })

  itWithServer(
    "two processes, one room: the process whose book missed the other's order restarts its room",
    async () => {
      peer = await startService({ databaseUrl: service().databaseUrl })
      const ca = client,
        cb = makeClient(peer)
      const seller = await ca.walletWithSession("7720001"),
        buyer = await ca.walletWithSession("7720002")
      await ca.fund(seller.id, "BTC", "1")
      await ca.fund(buyer.id, "USDT", "100000")
      const buyerOnB = await cb.createSession(buyer.id)
      // Both processes activate the public room; B's bid is news to A's book.
      assert.strictEqual(
        (await order(ca, seller.sid, { clientNonce: 10, fromAmount: "0.001", toAmount: "2000", postOnly: true }))
          .status,
        200
      )
      const bid = await order(cb, buyerOnB, {
        fromCurrency: "USDT",
        toCurrency: "BTC",
        clientNonce: 11,
        fromAmount: "1",
        toAmount: "0.001",
        postOnly: true
      })
      assert.strictEqual(bid.status, 200, JSON.stringify(bid.body))
      const before = figure(await scrape(service()), 'actor_restarts_total{type="Room"}')
      // A's room takes a sequence number B already used: its commit fails, it dies, rebuilds, decides again.
      const sell = await order(ca, seller.sid, { clientNonce: 12, fromAmount: "0.1", toAmount: "5000" })
      assert.strictEqual(sell.status, 200, JSON.stringify(sell.body))
      const after = await scrape(service())
      assert.isAtLeast(figure(after, 'actor_restarts_total{type="Room"}'), before + 1)
      assert.strictEqual(
        figure(after, 'actor_activations_total{type="Room"}'),
        figure(after, 'effect_cluster_entities{type="Room"}'),
        "a restart is not a new activation"
      )
      await ca.assertLedgerSound()
    },
    120_000
  )
})
