/**
 * Federation between two real service processes, each with its own database (CONTRACT C18): partner
 * records, partner orders paid on the partner and credited here exactly once in both directions, the
 * inbound webhook's checks (replayed, forged, stale, unknown order, a Paid claim the read-back denies),
 * chat events, federation_credit, and the partner refusing or down during create_partner_order.
 * Reconciliation is off here (federation-reconcile.test.ts has it): every credit below came by webhook or
 * federation_credit. Both ledger audits run after every test.
 */
import { assert, beforeAll, describe, it } from "@effect/vitest"
import { assertRejected, serviceForFile } from "../support/Fixtures.ts"
import { federationEnv, federationOf, type Link } from "../support/Federation.ts"
import { freePort } from "../support/Service.ts"

const env = federationEnv({ FEDERATION_RECONCILE_SECONDS: "0" })
const A = serviceForFile({ env })
const B = serviceForFile({ env })
const onA = federationOf(A.client, B.client, B.service)
const onB = federationOf(B.client, A.client, A.service)
const FederationCredit = 26

let aToB: Link
let bToA: Link

beforeAll(async () => {
  aToB = await onA.link("B")
  bToA = await onB.link("A")
}, 60_000)

describe("partner records", () => {
  it("add_federation_partner: validation in C18's terms, replace, no secret in any answer; get_federation_partners lists enabled Federation partners only", async () => {
    const base = {
      partnerId: "x-1",
      name: "X",
      baseUrl: "https://x.example",
      outboundAppId: "5",
      outboundPkey: "pk",
      webhookSecret: "0123456789abcdef",
      capabilities: ["Federation"]
    }
    const add = (body: Record<string, unknown>) => A.client.priv("POST", "add_federation_partner", body)
    assertRejected(await add({ ...base, partnerId: "bad id" }), 400, 10001)
    assertRejected(await add({ ...base, baseUrl: "https://x.example/path" }), 400, 10001, "path", "baseUrl")
    assertRejected(await add({ ...base, baseUrl: "https://u:p@x.example" }), 400, 10001, "userinfo", "baseUrl")
    assertRejected(await add({ ...base, baseUrl: "ftp://x.example" }), 400, 10001, "scheme", "baseUrl")
    assertRejected(await add({ ...base, webhookSecret: "short" }), 400, 10001)
    assertRejected(await add({ ...base, capabilities: ["Banking"] }), 400, 10001)
    assertRejected(await add({ ...base, currencies: ["NOPE"] }), 400, 10020)
    const created = (await add(base)).body.result
    assert.strictEqual(created.replaced, false)
    assert.strictEqual(created.baseUrl, "https://x.example")
    assert.deepStrictEqual(created.currencies, null)
    const replaced = await add({ ...base, name: "X2", enabled: false, currencies: ["USDT"] })
    assert.strictEqual(replaced.status, 200)
    assert.strictEqual(replaced.body.result.replaced, true)
    assert.strictEqual(replaced.body.result.createdAt, created.createdAt)
    for (const answer of [created, replaced.body.result]) {
      const text = JSON.stringify(answer)
      assert.notInclude(text, "0123456789abcdef")
      assert.notInclude(text, '"pk"')
      assert.notProperty(answer, "outboundPkey")
      assert.notProperty(answer, "webhookSecret")
    }
    await add({ ...base, partnerId: "y-2", capabilities: ["FederationWallet"] })
    const user = await A.client.party()
    const listed = (await onA.wallet("get_federation_partners", user.sid)).body.result as Array<any>
    assert.deepStrictEqual(
      listed.map((p) => p.partnerId),
      ["B"],
      "x-1 disabled, y-2 without Federation"
    )
    assert.deepStrictEqual(Object.keys(listed[0]).sort(), [
      "baseUrl",
      "capabilities",
      "currencies",
      "name",
      "partnerId"
    ])
    assert.notInclude(A.service().log(), "0123456789abcdef")
  })
})

describe("partner orders, both directions", () => {
  for (const direction of ["A→B", "B→A"] as const) {
    it(`${direction}: a user's partner order paid on the partner by pay_internal is credited once at home`, async () => {
      const [home, away, fed, link] = direction === "A→B" ? [A, B, onA, aToB] : ([B, A, onB, bToA] as const)
      const user = await home.client.party()
      const reply = await fed.createOrder(user.sid, {
        partnerId: link.partnerId,
        currency: "USDT",
        amount: "12.5",
        tag: "t"
      })
      assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
      const order = reply.body.result
      assert.strictEqual(order.amount, "12.5")
      assert.strictEqual(order.partnerId, link.partnerId)
      assert.isString(order.code)
      assert.isString(order.remoteOrderId)
      assert.strictEqual((await fed.txInfo(user.sid, order.txId)).state, "Processing", "Created 1")
      assert.strictEqual(await fed.free(user), 0)
      const payer = await away.client.party({ fund: "100" })
      await fed.payOnAway(order.code, payer)
      await fed.eventually(
        () => fed.free(user),
        (free) => free === 12.5
      )
      assert.strictEqual((await fed.txInfo(user.sid, order.txId)).state, "Finished")
      // The partner's later events (and its retries) change nothing.
      await new Promise((r) => setTimeout(r, 1_500))
      assert.strictEqual(await fed.free(user), 12.5)
      assert.strictEqual((await fed.historyOf(user.sid, FederationCredit)).length, 1)
      // The float on the partner holds the payment.
      assert.strictEqual((await away.client.bucketsOf(link.float)).free, 1000 + 12.5)
      await home.client.assertLedgerSound(`${direction} home`)
      await away.client.assertLedgerSound(`${direction} away`)
    })
  }
})

describe("the inbound webhook", () => {
  it("replayed: duplicate; forged: 401 10171; stale: 401 10171; unknown order 404 10175; wrong app 10174; a Paid claim the read-back denies: 10174, nothing moves", async () => {
    const user = await A.client.party()
    const order = (await onA.createOrder(user.sid, { partnerId: "B", currency: "USDT", amount: 3 })).body.result
    const secret = aToB.app.webhookSecret
    const view = await onA.mAway.view(aToB.app, order.remoteOrderId)
    const { refunds: _r, ...data } = view
    // Claims Paid while the order is Created on B: refused, nothing moves.
    assertRejected(
      await onA.postHook("B", onA.event("PaymentOrder.Paid", aToB.app.appId, { ...data, state: "Paid" }), secret),
      400,
      10174
    )
    assert.strictEqual((await onA.txInfo(user.sid, order.txId)).state, "Processing", "Created 1")
    // A Created event: accepted; nothing recorded, but not as a duplicate (C18: the outcome has not been yet).
    const created = await onA.postHook("B", onA.event("PaymentOrder.Created", aToB.app.appId, data), secret)
    assert.deepStrictEqual(created.body.result, { accepted: true, duplicate: false, txId: order.txId })
    // createdAt missing or not a time: malformed.
    const { createdAt: _c, ...undated } = onA.event("PaymentOrder.Created", aToB.app.appId, data)
    assertRejected(await onA.postHook("B", undated, secret), 400, 10001)
    for (const createdAt of ["yesterday", 1_700_000_000, "2026-13-01T00:00:00Z", null])
      assertRejected(
        await onA.postHook("B", { ...onA.event("PaymentOrder.Created", aToB.app.appId, data), createdAt }, secret),
        400,
        10001,
        String(createdAt),
        "createdAt"
      )
    // Forged, stale, unknown partner.
    const paidEvent = onA.event("PaymentOrder.Paid", aToB.app.appId, data)
    assertRejected(await onA.postHook("B", paidEvent, "wrong-secret-0123456789"), 401, 10171)
    assertRejected(await onA.postHook("B", paidEvent, secret, { signature: "v1=00" }), 401, 10171)
    assertRejected(
      await onA.postHook("B", paidEvent, secret, { timestamp: Math.floor(Date.now() / 1000) - 301 }),
      401,
      10171
    )
    assertRejected(await onA.postHook("nobody", paidEvent, secret), 401, 10171)
    assertRejected(await onA.postHook("B", onA.event("PaymentOrder.Paid", "999999", data), secret), 400, 10174)
    assertRejected(
      await onA.postHook("B", onA.event("PaymentOrder.Paid", aToB.app.appId, { ...data, externalId: "fed-1" }), secret),
      404,
      10175
    )
    assertRejected(await A.client.call("POST", "/auth/v1/app/federation_webhook?partner=B", { raw: "{}" }), 401, 10171)
    // Paid on B; the real webhook and a replay of the Paid event: one credit.
    await onA.payOnAway(order.code, await B.client.party({ fund: "10" }))
    await onA.eventually(
      () => onA.free(user),
      (free) => free === 3
    )
    const replay = await onA.postHook("B", paidEvent, secret)
    assert.strictEqual(replay.status, 200, JSON.stringify(replay.body))
    assert.deepStrictEqual(replay.body.result, { accepted: true, duplicate: true, txId: order.txId })
    const again = await onA.postHook("B", paidEvent, secret)
    assert.strictEqual(again.body.result.duplicate, true)
    assert.strictEqual(await onA.free(user), 3)
    assert.strictEqual((await onA.historyOf(user.sid, FederationCredit)).length, 1)
    // Other types: not accepted.
    const other = await onA.postHook("B", onA.event("Refund.Finished", aToB.app.appId, {}), secret)
    assert.deepStrictEqual(other.body.result, { accepted: false, duplicate: false, txId: null })
    await B.client.assertLedgerSound("B")
  })

  it("a partner order canceled on the partner: Canceled at home, nothing moves; federation_credit on it then 10082", async () => {
    const user = await A.client.party()
    const order = (await onA.createOrder(user.sid, { partnerId: "B", currency: "USDT", amount: 4 })).body.result
    const canceled = await onA.mAway.call(aToB.app, "POST", `cancel_payment_order?id=${order.remoteOrderId}`)
    assert.strictEqual(canceled.status, 200, JSON.stringify(canceled.body))
    await onA.eventually(
      () => onA.txInfo(user.sid, order.txId),
      (tx) => tx.state === "Canceled"
    )
    assert.strictEqual(await onA.free(user), 0)
    const credit = await A.client.priv("POST", "federation_credit", {
      partnerId: "B",
      reference: order.remoteOrderId,
      walletId: user.id,
      currency: "USDT",
      amount: "4"
    })
    assertRejected(credit, 400, 10082)
  })

  it("Chat.Message: one events item per eventId (kind FederationChat, wallet -16); malformed 10001", async () => {
    const secret = aToB.app.webhookSecret
    const chat = onA.event("Chat.Message", aToB.app.appId, { from: "operator B", text: "hello A" })
    const first = await onA.postHook("B", chat, secret)
    assert.deepStrictEqual(first.body.result, { accepted: true, duplicate: false, txId: null })
    const second = await onA.postHook("B", chat, secret)
    assert.deepStrictEqual(second.body.result, { accepted: true, duplicate: true, txId: null })
    const items = (await A.client.allEvents()).filter((e: any) => e.kind === "FederationChat")
    assert.strictEqual(items.length, 1, JSON.stringify(items))
    assert.deepStrictEqual((items[0] as any).payload, { partnerId: "B", from: "operator B", text: "hello A" })
    assertRejected(
      await onA.postHook("B", onA.event("Chat.Message", aToB.app.appId, { from: "", text: "x" }), secret),
      400,
      10001
    )
  })
})

describe("federation_credit", () => {
  it("idempotent per (partnerId, reference): replayed, another body 10060; it credits a partner order still Created (the webhook then finds it done); checks 10170, 10172, 10030, 10020, 10021", async () => {
    const user = await A.client.party()
    const body = {
      partnerId: "B",
      reference: `ref-${Date.now()}`,
      walletId: user.id,
      currency: "USDT",
      amount: "2.5",
      tag: "x"
    }
    const first = await A.client.priv("POST", "federation_credit", body)
    assert.strictEqual(first.status, 200, JSON.stringify(first.body))
    assert.strictEqual(first.body.result.replayed, false)
    const replay = await A.client.priv("POST", "federation_credit", body)
    assert.deepStrictEqual(replay.body.result, { txId: first.body.result.txId, replayed: true })
    assertRejected(await A.client.priv("POST", "federation_credit", { ...body, amount: "3" }), 400, 10060)
    assert.strictEqual(await onA.free(user), 2.5)
    assertRejected(await A.client.priv("POST", "federation_credit", { ...body, partnerId: "nobody" }), 404, 10170)
    assertRejected(await A.client.priv("POST", "federation_credit", { ...body, partnerId: "x-1" }), 404, 10170)
    await A.client.priv("POST", "add_federation_partner", {
      partnerId: "chat-only",
      name: "C",
      baseUrl: "http://127.0.0.1:1",
      outboundAppId: "1",
      outboundPkey: "p",
      webhookSecret: "0123456789abcdef-chat",
      capabilities: ["Federation", "FederationChat"]
    })
    assertRejected(await A.client.priv("POST", "federation_credit", { ...body, partnerId: "chat-only" }), 403, 10172)
    assertRejected(await A.client.priv("POST", "federation_credit", { ...body, walletId: "99999999" }), 404, 10030)
    assertRejected(await A.client.priv("POST", "federation_credit", { ...body, currency: "NOPE" }), 400, 10020)
    assertRejected(await A.client.priv("POST", "federation_credit", { ...body, amount: "0.0000001" }), 400, 10021)
    assertRejected(await A.client.priv("POST", "federation_credit", { ...body, amount: "0" }), 400, 10001)

    // A partner order still Created: credited by federation_credit; then paid there, the webhook finds it done.
    const other = await A.client.party()
    const order = (await onA.createOrder(other.sid, { partnerId: "B", currency: "USDT", amount: 6 })).body.result
    const byRef = { partnerId: "B", reference: order.remoteOrderId, walletId: other.id, currency: "USDT", amount: 6 }
    assertRejected(await A.client.priv("POST", "federation_credit", { ...byRef, amount: 7 }), 400, 10060)
    const credited = await A.client.priv("POST", "federation_credit", byRef)
    assert.deepStrictEqual(credited.body.result, { txId: order.txId, replayed: false })
    assert.deepStrictEqual((await A.client.priv("POST", "federation_credit", byRef)).body.result, {
      txId: order.txId,
      replayed: true
    })
    await onA.payOnAway(order.code, await B.client.party({ fund: "10" }))
    await new Promise((r) => setTimeout(r, 2_000))
    assert.strictEqual(await onA.free(other), 6)
    assert.strictEqual((await onA.historyOf(other.sid, FederationCredit)).length, 1)
  })
})

describe("the partner refusing or down during create_partner_order", () => {
  it("checks in C18's order; a refusal 10176 with the partner's code; no answer 10177; nothing recorded either way", async () => {
    const user = await A.client.party()
    const order = (body: Record<string, unknown>) =>
      onA.createOrder(user.sid, { partnerId: "B", currency: "USDT", amount: 1, ...body })
    assertRejected(await order({ amount: 0 }), 400, 10001)
    assertRejected(await order({ amount: -1 }), 400, 10001)
    assertRejected(await order({ partnerId: "nobody" }), 404, 10170)
    assertRejected(await order({ partnerId: "x-1" }), 404, 10170, "disabled")
    assertRejected(await order({ partnerId: "chat-only" }), 403, 10172)
    assertRejected(await order({ currency: "NOPE" }), 400, 10020)
    assertRejected(await order({ amount: "0.0000001" }), 400, 10021)
    assertRejected(await order({ expiresInSeconds: 10 }), 400, 10001)
    const dead = await freePort()
    const add = (partnerId: string, extra: Record<string, unknown>) =>
      A.client.priv("POST", "add_federation_partner", {
        partnerId,
        name: partnerId,
        baseUrl: B.service().base,
        outboundAppId: aToB.app.appId,
        outboundPkey: aToB.app.pkey,
        webhookSecret: aToB.app.webhookSecret,
        capabilities: ["Federation", "FederationWallet"],
        ...extra
      })
    await add("usdt-only", { currencies: ["BTC"] })
    assertRejected(await order({ partnerId: "usdt-only" }), 400, 10173)
    await add("wrong-key", { outboundPkey: "not-the-key" })
    const refused = await order({ partnerId: "wrong-key" })
    assertRejected(refused, 400, 10176)
    assert.match(refused.body.error!.message, /refused: 10\d{3} /)
    await add("down", { baseUrl: `http://127.0.0.1:${dead}` })
    const down = await order({ partnerId: "down" })
    assertRejected(down, 400, 10177)
    assert.lengthOf(await onA.historyOf(user.sid, FederationCredit), 0)
    const blocked = await A.client.party()
    const flags = await A.client.priv("POST", "update_wallet", { id: blocked.id, flags: 16 | 1 })
    assert.strictEqual(flags.status, 200, JSON.stringify(flags.body))
    assertRejected(await onA.createOrder(blocked.sid, { partnerId: "B", currency: "USDT", amount: 1 }), 400, 10031)
  })
})

describe("exactly once under concurrency", () => {
  it("30 Paid webhooks and 10 federation_credit calls at once for one paid order: one credit", async () => {
    for (let round = 0; round < 3; round++) {
      const user = await A.client.party()
      const order = (await onA.createOrder(user.sid, { partnerId: "B", currency: "USDT", amount: "1.5" })).body.result
      await onA.payOnAway(order.code, await B.client.party({ fund: "5" }))
      const { refunds: _r, ...data } = await onA.mAway.view(aToB.app, order.remoteOrderId)
      const paid = onA.event("PaymentOrder.Paid", aToB.app.appId, data)
      const credit = {
        partnerId: "B",
        reference: order.remoteOrderId,
        walletId: user.id,
        currency: "USDT",
        amount: "1.5"
      }
      const replies = await Promise.all([
        ...Array.from({ length: 30 }, () => onA.postHook("B", paid, aToB.app.webhookSecret)),
        ...Array.from({ length: 10 }, () => A.client.priv("POST", "federation_credit", credit))
      ])
      for (const reply of replies) assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
      const moved =
        replies.slice(0, 30).filter((r) => r.body.result.duplicate === false).length +
        replies.slice(30).filter((r) => r.body.result.replayed === false).length
      assert.isAtMost(moved, 1)
      await new Promise((r) => setTimeout(r, 1_000))
      assert.strictEqual(await onA.free(user), 1.5)
      assert.lengthOf(await onA.historyOf(user.sid, FederationCredit), 1)
    }
  })
})
