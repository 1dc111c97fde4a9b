/**
 * Federation reconciliation (CONTRACT C18 "Reconciliation") between two real service processes: with
 * FEDERATION_RECONCILE_SECONDS=1 on A, a partner order whose webhooks are all lost (A's record verifies
 * them with a secret B does not sign with: every attempt 401) is found by reconciliation and credited
 * once; the same Paid event arriving late (signed as A verifies) is a duplicate; an order canceled on
 * B is Canceled at home. Both ledger audits run after every test.
 */
import { assert, beforeAll, describe, it } from "@effect/vitest"
import { assertRejected, serviceForFile } from "../support/Fixtures.ts"
import { federationEnv, federationOf, type Link } from "../support/Federation.ts"

const A = serviceForFile({ env: federationEnv({ FEDERATION_RECONCILE_SECONDS: "1" }) })
const B = serviceForFile({ env: federationEnv({ PAYMENT_SWEEP_SECONDS: "1" }) })
const onA = federationOf(A.client, B.client, B.service)
const FederationCredit = 26
const lostSecret = "a-secret-B-never-signs-with"

let link: Link

beforeAll(async () => {
  link = await onA.link("B", "1000", { webhookSecret: lostSecret })
}, 60_000)

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
})
