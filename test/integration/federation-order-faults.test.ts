/**
 * Partner orders when something goes wrong between two real service processes (CONTRACT C18): a Paid
 * claim over a Canceled read-back moves nothing (decided before the read-back is applied); B's order
 * credited by federation_credit while create_partner_order still waits for B's answer (the order's link
 * and its FederationCredit are one commit: it fails whole); a link left without its transaction; a
 * partner that takes the request and never answers (10177 within one FEDERATION_HTTP_TIMEOUT_SECONDS).
 * A partner that redirects or answers more than 1 MiB did not answer (10177, C19 §6); one whose answer
 * does not decode did not answer usably (10177); a signed webhook whose body does not decode is 10001.
 * A relay of the test's own stands in front of B. Reconciliation is off. Both audits after each test.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { assertRejected, serviceForFile } from "../support/Fixtures.ts"
import { federationEnv, federationOf, type Link, type Relay, startRelay } from "../support/Federation.ts"
import { withDatabase } from "../support/Postgres.ts"
import { itWithServer } from "../support/Service.ts"

const env = federationEnv({ FEDERATION_RECONCILE_SECONDS: "0" })
const A = serviceForFile({ env })
const B = serviceForFile({ env })
const onA = federationOf(A.client, B.client, B.service)
const FederationCredit = 26
const timeoutSeconds = Number(env.FEDERATION_HTTP_TIMEOUT_SECONDS)
/** A's record of B whose webhook secret B never signs with: B's own webhooks are refused (401) here. */
const lostSecret = "a-secret-B-never-signs-with"

let aToB: Link
let relay: Relay

beforeAll(async () => {
  aToB = await onA.link("B")
  relay = await startRelay(() => B.service().base)
  // "Bo": B through the relay; "Bl": B, its webhooks lost (only the test's own events arrive).
  for (const [partnerId, baseUrl, webhookSecret] of [
    ["Bo", relay.base, aToB.app.webhookSecret],
    ["Bl", B.service().base, lostSecret]
  ]) {
    const added = await A.client.priv("POST", "add_federation_partner", {
      partnerId,
      name: partnerId,
      baseUrl,
      outboundAppId: aToB.app.appId,
      outboundPkey: aToB.app.pkey,
      webhookSecret,
      capabilities: ["Federation", "FederationWallet"]
    })
    assert.strictEqual(added.status, 200, JSON.stringify(added.body))
  }
}, 60_000)
afterAll(async () => {
  await relay?.close()
})

describe("the inbound webhook decides before anything moves", () => {
  it("a Paid claim while the partner's order reads Canceled: 10174 and nothing moves (decided before the read-back is applied); the true Canceled event then cancels it, its replay is a duplicate", async () => {
    const user = await A.client.party()
    const order = (await onA.createOrder(user.sid, { partnerId: "Bl", currency: "USDT", amount: 2 })).body.result
    const canceled = await onA.mAway.call(aToB.app, "POST", `cancel_payment_order?id=${order.remoteOrderId}`)
    assert.strictEqual(canceled.status, 200, JSON.stringify(canceled.body))
    const { refunds: _r, ...data } = await onA.mAway.view(aToB.app, order.remoteOrderId)
    assert.strictEqual(data.state, "Canceled")
    const claim = await onA.postHook("Bl", onA.event("PaymentOrder.Paid", aToB.app.appId, data), lostSecret)
    assertRejected(claim, 400, 10174)
    assert.strictEqual((await onA.txInfo(user.sid, order.txId)).state, "Processing", "still Created 1")
    const truth = onA.event("PaymentOrder.Canceled", aToB.app.appId, data)
    const first = await onA.postHook("Bl", truth, lostSecret)
    assert.deepStrictEqual(first.body.result, { accepted: true, duplicate: false, txId: order.txId })
    assert.strictEqual((await onA.txInfo(user.sid, order.txId)).state, "Canceled")
    const replay = await onA.postHook("Bl", truth, lostSecret)
    assert.deepStrictEqual(replay.body.result, { accepted: true, duplicate: true, txId: order.txId })
    assert.strictEqual(await onA.free(user), 0)
  })
})

describe("foreign payloads are decoded before anything moves", () => {
  it("a correctly signed webhook whose body does not decode: 400 10001 naming the field, nothing moves although the order is Paid on the partner; the well-formed event then credits it once", async () => {
    const user = await A.client.party()
    const order = (await onA.createOrder(user.sid, { partnerId: "Bl", currency: "USDT", amount: 2 })).body.result
    await onA.payOnAway(order.code, await B.client.party({ fund: "10" }))
    const { refunds: _r, ...data } = await onA.mAway.view(aToB.app, order.remoteOrderId)
    assert.strictEqual(data.state, "Paid")
    const paid = onA.event("PaymentOrder.Paid", aToB.app.appId, data)
    const post = (event: Record<string, unknown>, raw?: string) => onA.postHook("Bl", event, lostSecret, { raw })
    const malformed: ReadonlyArray<readonly [string, Promise<any>, string]> = [
      ["not JSON", post(paid, "{not json"), "body"],
      ["an array", post(paid, JSON.stringify([paid])), "body"],
      ["no eventId", post({ ...paid, eventId: undefined }), "eventId"],
      ["an eventId over 200 characters", post({ ...paid, eventId: "e".repeat(201) }), "eventId"],
      ["a numeric type", post({ ...paid, type: 7 }), "type"],
      ["appId a boolean", post({ ...paid, appId: true }), "appId"],
      ["data a string", post({ ...paid, data: "Paid" }), "data"],
      ["data.externalId a number", post({ ...paid, data: { ...data, externalId: 7 } }), "data.externalId"],
      ["data.id not an id", post({ ...paid, data: { ...data, id: "12; DROP" } }), "data.id"]
    ]
    for (const [label, reply, field] of malformed) assertRejected(await reply, 400, 10001, label, field)
    assert.strictEqual((await onA.txInfo(user.sid, order.txId)).state, "Processing", "still Created 1")
    assert.strictEqual(await onA.free(user), 0)
    const first = await post(paid)
    assert.deepStrictEqual(first.body.result, { accepted: true, duplicate: false, txId: order.txId })
    assert.strictEqual(await onA.free(user), 2)
    assert.lengthOf(await onA.historyOf(user.sid, FederationCredit), 1)
  })

  it("a partner answer that does not decode is a partner that did not answer usably: create_partner_order 10177 naming the field, nothing recorded; a malformed read-back 10177, nothing moves until a good one", async () => {
    const user = await A.client.party()
    relay.set("put_payment_order", "malformed")
    const refused = await onA.createOrder(user.sid, { partnerId: "Bo", currency: "USDT", amount: 3 })
    relay.clear()
    assertRejected(refused, 400, 10177)
    assert.include(refused.body.error?.message, "result.state")
    assert.lengthOf(await onA.historyOf(user.sid, FederationCredit), 0)

    const order = (await onA.createOrder(user.sid, { partnerId: "Bo", currency: "USDT", amount: 3 })).body.result
    relay.set("get_app_payment", "malformed")
    // Paid on B: B's own webhook and ours both need the read-back, which does not decode.
    await onA.payOnAway(order.code, await B.client.party({ fund: "10" }))
    const { refunds: _r, ...data } = await onA.mAway.view(aToB.app, order.remoteOrderId)
    const paid = onA.event("PaymentOrder.Paid", aToB.app.appId, data)
    const claim = await onA.postHook("Bo", paid, aToB.app.webhookSecret)
    assertRejected(claim, 400, 10177)
    assert.include(claim.body.error?.message, "result.state")
    assert.strictEqual((await onA.txInfo(user.sid, order.txId)).state, "Processing", "still Created 1")
    assert.strictEqual(await onA.free(user), 0)
    relay.clear()
    const settled = await onA.postHook("Bo", paid, aToB.app.webhookSecret)
    assert.strictEqual(settled.status, 200, JSON.stringify(settled.body))
    assert.strictEqual(await onA.free(user), 3)
    assert.lengthOf(await onA.historyOf(user.sid, FederationCredit), 1)
  })
})

describe("a partner order's link and its FederationCredit are one commit", () => {
  it("the partner's order credited by reference while create_partner_order waits for the partner's answer: the order's commit fails whole (10060), nothing recorded for it", async () => {
    const user = await A.client.party()
    const other = await A.client.party()
    const held = relay.hold("put_payment_order")
    const creating = onA.createOrder(user.sid, { partnerId: "Bo", currency: "USDT", amount: "2" })
    const remote = JSON.parse(await held.answer).result
    const credit = await A.client.priv("POST", "federation_credit", {
      partnerId: "Bo",
      reference: remote.id,
      walletId: other.id,
      currency: "USDT",
      amount: "2"
    })
    held.release()
    assert.strictEqual(credit.status, 200, JSON.stringify(credit.body))
    assert.strictEqual(credit.body.result.replayed, false)
    assertRejected(await creating, 400, 10060)
    assert.lengthOf(await onA.historyOf(user.sid, FederationCredit), 0, "no transaction without its link")
    assert.strictEqual(await onA.free(other), 2)
    assert.strictEqual(await onA.free(user), 0)
  })

  itWithServer(
    "federation_credit on a link without a transaction (a commit that never happened): a clear 10082 at once, not a 500 after 5 s",
    async () => {
      const user = await A.client.party()
      const reference = `orphan-${Date.now()}`
      const txId = 900_000_000_000_000_000n + BigInt(Math.floor(Math.random() * 1e9))
      await withDatabase(
        A.service().databaseUrl!,
        (sql) =>
          sql`INSERT INTO federation_links (tx_id, partner_id, kind, remote_id, wallet_id, currency, amount)
          VALUES (${String(txId)}, 'B', 1, ${reference}, ${user.id}, 'USDT', 1000000)`
      )
      const started = Date.now()
      const credit = await A.client.priv("POST", "federation_credit", {
        partnerId: "B",
        reference,
        walletId: user.id,
        currency: "USDT",
        amount: "1"
      })
      assertRejected(credit, 400, 10082, "", "reference")
      assert.isBelow(Date.now() - started, 3_000)
      assert.strictEqual(await onA.free(user), 0)
    }
  )
})

describe("C19 §6: the federation client follows no redirect and reads at most 1 MiB", () => {
  for (const mode of ["redirect", "huge"] as const)
    it(`a partner answering ${mode === "redirect" ? "a 307 to itself" : "a valid envelope over 1 MiB"} did not answer: 10177, nothing recorded`, async () => {
      const user = await A.client.party()
      relay.set("put_payment_order", mode)
      const reply = await onA.createOrder(user.sid, { partnerId: "Bo", currency: "USDT", amount: 1 })
      relay.clear()
      assertRejected(reply, 400, 10177)
      assert.lengthOf(await onA.historyOf(user.sid, FederationCredit), 0)
      // The same partner through the relay, answering as B does, still works.
      const ok = await onA.createOrder(user.sid, { partnerId: "Bo", currency: "USDT", amount: 1 })
      assert.strictEqual(ok.status, 200, JSON.stringify(ok.body))
    })
})

describe("a partner that never answers", () => {
  it("a partner that takes the request and never answers: 10177 within FEDERATION_HTTP_TIMEOUT_SECONDS (the retries share one deadline), nothing recorded", async () => {
    const user = await A.client.party()
    relay.set("put_payment_order", "hang")
    const started = Date.now()
    const reply = await onA.createOrder(user.sid, { partnerId: "Bo", currency: "USDT", amount: 1 })
    const elapsed = Date.now() - started
    relay.clear()
    assertRejected(reply, 400, 10177)
    assert.isAtLeast(elapsed, timeoutSeconds * 1000 - 200)
    assert.isBelow(elapsed, timeoutSeconds * 1000 + 2_000, "one deadline, not one per attempt")
    assert.lengthOf(await onA.historyOf(user.sid, FederationCredit), 0)
  })
})
