/**
 * Federation reconciliation (CONTRACT C18 "Reconciliation") between two real service processes: with
 * FEDERATION_RECONCILE_SECONDS=1 on A, a partner order whose webhooks are all lost (A's record verifies
 * them with a secret B does not sign with: every attempt 401) is found by reconciliation and credited
 * once; the same Paid event arriving late (signed as A verifies) is a duplicate; partner transfers whose outcome was lost (Pending), the partner down meanwhile, are finished or released by reconciliation once it answers; an order canceled on
 * B is Canceled at home. Both ledger audits run after every test.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { assertRejected, serviceForFile } from "../support/Fixtures.ts"
import { federationEnv, federationOf, type Link, type Relay, startRelay } from "../support/Federation.ts"

// A call on the partner has one deadline of FEDERATION_HTTP_TIMEOUT_SECONDS (3 here) for all its attempts:
// 1 s, once per attempt, was enough on a loaded machine; for the whole call it is not.
const A = serviceForFile({ env: federationEnv({ FEDERATION_RECONCILE_SECONDS: "1" }) })
const B = serviceForFile({ env: federationEnv({ PAYMENT_SWEEP_SECONDS: "1" }) })
const onA = federationOf(A.client, B.client, B.service)
const FederationCredit = 26
const lostSecret = "a-secret-B-never-signs-with"

let link: Link
let relay: Relay

beforeAll(async () => {
  link = await onA.link("B", "1000", { webhookSecret: lostSecret })
  relay = await startRelay(() => B.service().base)
  const via = await A.client.priv("POST", "add_federation_partner", {
    partnerId: "Bx",
    name: "B through a relay",
    baseUrl: relay.base,
    outboundAppId: link.app.appId,
    outboundPkey: link.app.pkey,
    webhookSecret: lostSecret,
    capabilities: ["Federation", "FederationWallet"]
  })
  assert.strictEqual(via.status, 200, JSON.stringify(via.body))
}, 60_000)
afterAll(async () => {
  await relay?.close()
})

/** A partner transfer through the relay (step one, then step two with the inline code): step two's reply. */
const transfer = async (sid: string, body: Record<string, unknown>) => {
  const one = await onA.wallet("create_partner_transfer", sid, body)
  assert.strictEqual(one.status, 200, JSON.stringify(one.body))
  const query = new URLSearchParams({
    confirmationTimetick: one.body.result.txId,
    confirmationCode: one.body.result.confirmationCode
  })
  return { txId: one.body.result.txId as string, two: await onA.wallet(`create_partner_transfer?${query}`, sid, body) }
}

describe("reconciliation", () => {
  it("lost webhooks: reconciliation reads the order back and credits once; a late Paid webhook is a duplicate", async () => {
    const user = await A.client.party()
    const order = (await onA.createOrder(user.sid, { partnerId: "B", currency: "USDT", amount: "7.25" })).body.result
    await onA.payOnAway(order.code, await B.client.party({ fund: "10" }))
    await onA.eventually(
      () => onA.free(user),
      (free) => free === 7.25
    )
    assert.strictEqual((await onA.txInfo(user.sid, order.txId)).state, "Finished")
    // B's own attempts were refused (its secret is not the one A holds).
    await onA.eventually(
      async () =>
        onA.mAway.ok(await onA.mAway.call(link.app, "GET", `get_webhook_deliveries?id=${order.remoteOrderId}`)),
      (deliveries: Array<any>) => deliveries.some((d) => d.history.some((h: any) => h.httpStatus === 401))
    )
    const { refunds: _r, ...data } = await onA.mAway.view(link.app, order.remoteOrderId)
    const late = await onA.postHook("B", onA.event("PaymentOrder.Paid", link.app.appId, data), lostSecret)
    assert.strictEqual(late.status, 200, JSON.stringify(late.body))
    assert.deepStrictEqual(late.body.result, { accepted: true, duplicate: true, txId: order.txId })
    // B's real secret does not verify here: 401.
    assertRejected(
      await onA.postHook("B", onA.event("PaymentOrder.Paid", link.app.appId, data), link.app.webhookSecret),
      401,
      10171
    )
    await new Promise((r) => setTimeout(r, 2_500))
    assert.strictEqual(await onA.free(user), 7.25)
    assert.strictEqual((await onA.historyOf(user.sid, FederationCredit)).length, 1)
    await B.client.assertLedgerSound("B")
  })

  it("an order canceled on the partner, its webhooks lost: Canceled at home by reconciliation, nothing moves", async () => {
    const user = await A.client.party()
    const order = (
      await onA.createOrder(user.sid, { partnerId: "B", currency: "USDT", amount: 1, expiresInSeconds: 60 })
    ).body.result
    const canceled = await onA.mAway.call(link.app, "POST", `cancel_payment_order?id=${order.remoteOrderId}`)
    assert.strictEqual(canceled.status, 200, JSON.stringify(canceled.body))
    await onA.eventually(
      () => onA.txInfo(user.sid, order.txId),
      (tx) => tx.state === "Canceled"
    )
    assert.strictEqual(await onA.free(user), 0)
    await B.client.assertLedgerSound("B")
  })

  it("a partner transfer whose pay_transfer answer is lost, the partner then down: Pending, still reserved while it is down; it returns: reconciliation finishes it once", async () => {
    const sender = await A.client.party({ fund: "10" })
    const recipient = await B.client.party()
    relay.set("pay_transfer", "lose-answer")
    // No read-back gets through before the relay is down (reconciliation runs every second).
    relay.set("get_app_payment", "drop")
    const lost = await transfer(sender.sid, { partnerId: "Bx", recipient: recipient.id, currency: "USDT", amount: "3" })
    await relay.down()
    relay.clear()
    assert.strictEqual(lost.two.body.result?.confirmationStatusCode, "Pending", JSON.stringify(lost.two.body))
    // B pays (the relay passed the request on; its answer is what was lost).
    await onA.eventually(
      async () => (await B.client.bucketsOf(recipient)).free,
      (free) => free === 3
    )
    await new Promise((r) => setTimeout(r, 2_500))
    assert.strictEqual((await onA.txInfo(sender.sid, lost.txId)).state, "Processing")
    assert.deepStrictEqual(await A.client.bucketsOf(sender), { free: 7, lockOut: 3, lockIn: 0, lockOrders: 0 })
    await relay.up()
    await onA.eventually(
      () => onA.txInfo(sender.sid, lost.txId),
      (tx) => tx.state === "Finished"
    )
    await new Promise((r) => setTimeout(r, 1_500))
    assert.deepStrictEqual(await A.client.bucketsOf(sender), { free: 7, lockOut: 0, lockIn: 0, lockOrders: 0 })
    await B.client.assertLedgerSound("B")
  })

  it("a partner transfer whose pay_transfer never reached the partner: Pending; reconciliation cancels the unpaid order there and releases", async () => {
    const sender = await A.client.party({ fund: "10" })
    const recipient = await B.client.party()
    relay.set("pay_transfer", "drop")
    const lost = await transfer(sender.sid, { partnerId: "Bx", recipient: recipient.id, currency: "USDT", amount: "2" })
    relay.clear()
    assert.strictEqual(lost.two.body.result?.confirmationStatusCode, "Pending", JSON.stringify(lost.two.body))
    // Canceled on B once unpaid three HTTP timeouts after step one (9 s here), then released.
    await onA.eventually(
      () => onA.txInfo(sender.sid, lost.txId),
      (tx) => tx.state === "Canceled",
      60_000
    )
    assert.deepStrictEqual(await A.client.bucketsOf(sender), { free: 10, lockOut: 0, lockIn: 0, lockOrders: 0 })
    assert.strictEqual((await B.client.bucketsOf(recipient)).free, 0)
    assert.strictEqual((await B.client.bucketsOf(link.float)).free, 1000 + 7.25 - 3, "the float's reserve returned")
    await B.client.assertLedgerSound("B")
  })
})
