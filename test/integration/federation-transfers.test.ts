/**
 * Partner transfers between two real service processes (CONTRACT C18 "Partner transfers"): two-step as
 * internal_transfer, paid out on the partner by put_transfer_order + pay_transfer, in both directions,
 * with the FederationTransfer fee; the partner refusing (unknown recipient, float short), down (nothing
 * reached it: released, 10177), and the outcome lost (Pending, settled by the partner's webhook);
 * cancel_partner_transfer in 1 and in 3. A relay of the test's own stands in front of the partner for the
 * network faults. Reconciliation is off here (federation-reconcile.test.ts). Both audits after each test.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { assertRejected, serviceForFile } from "../support/Fixtures.ts"
import { federationEnv, federationOf, type Link, type Relay, startRelay } from "../support/Federation.ts"
import { freePort } from "../support/Service.ts"

const env = federationEnv({ FEDERATION_RECONCILE_SECONDS: "0" })
const A = serviceForFile({ env })
const B = serviceForFile({ env })
const onA = federationOf(A.client, B.client, B.service)
const onB = federationOf(B.client, A.client, A.service)
const FederationTransfer = 27

let aToB: Link
let bToA: Link
let relay: Relay

beforeAll(async () => {
  aToB = await onA.link("B", "100")
  bToA = await onB.link("A", "100")
  relay = await startRelay(() => B.service().base)
  const via = await A.client.priv("POST", "add_federation_partner", {
    partnerId: "Bx",
    name: "B through a relay",
    baseUrl: relay.base,
    outboundAppId: aToB.app.appId,
    outboundPkey: aToB.app.pkey,
    webhookSecret: aToB.app.webhookSecret,
    capabilities: ["Federation", "FederationWallet"]
  })
  assert.strictEqual(via.status, 200, JSON.stringify(via.body))
}, 60_000)
afterAll(async () => {
  await relay?.close()
})

const send = (fed: typeof onA, sid: string, body: Record<string, unknown>, query?: Record<string, string>) =>
  fed.wallet(`create_partner_transfer${query === undefined ? "" : "?" + new URLSearchParams(query)}`, sid, body)

/** A cancel's answer: the transfer's TxRow (C18, the C11 row shape), Canceled, with txId as cancel_tx carries it. */
const assertCanceledRow = (
  row: any,
  expected: { txId: string; walletId: string; amount: number; fee?: number; tag?: string | null }
) => {
  assert.deepStrictEqual(Object.keys(row).sort(), [
    "amount",
    "currency",
    "dateTxUTC",
    "fee",
    "id",
    "idUpdate",
    "state",
    "tag",
    "txId",
    "txState",
    "typeTx",
    "walletFrom",
    "walletTo"
  ])
  assert.deepInclude(row, {
    id: expected.txId,
    txId: expected.txId,
    typeTx: FederationTransfer,
    txState: 16,
    state: "Canceled",
    walletFrom: expected.walletId,
    walletTo: "-16",
    currency: "USDT",
    amount: expected.amount,
    fee: expected.fee ?? 0,
    tag: expected.tag ?? null
  })
  assert.match(row.idUpdate, /^[0-9]+$/)
  assert.isFalse(Number.isNaN(Date.parse(row.dateTxUTC)), row.dateTxUTC)
}

/** Step one then step two with the inline code: step two's reply. */
const transfer = async (fed: typeof onA, sid: string, body: Record<string, unknown>) => {
  const one = await send(fed, sid, body)
  assert.strictEqual(one.status, 200, JSON.stringify(one.body))
  assert.strictEqual(one.body.result.confirmationStatusCode, "NeedCodeConfirm")
  const two = await send(fed, sid, body, {
    confirmationTimetick: one.body.result.txId,
    confirmationCode: one.body.result.confirmationCode
  })
  return { txId: one.body.result.txId as string, one: one.body.result, two }
}

describe("partner transfers, both directions", () => {
  for (const direction of ["A→B", "B→A"] as const) {
    it(`${direction}: step one reserves, step two pays the recipient on the partner exactly amount; Finished at home`, async () => {
      const [home, away, fed, link] = direction === "A→B" ? [A, B, onA, aToB] : ([B, A, onB, bToA] as const)
      const fees = await home.client.party()
      await home.client.setTariffs([
        { txClass: "FederationTransfer", currency: "USDT", feeFixed: "0.5", feePercent: "0", profitWalletId: fees.id }
      ])
      const sender = await home.client.party({ fund: "50" })
      const recipient = await away.client.party()
      const body = { partnerId: link.partnerId, recipient: recipient.id, currency: "USDT", amount: "10", tag: "rent" }
      const { txId, one, two } = await transfer(fed, sender.sid, body)
      assert.strictEqual(one.fee, 0.5)
      assert.strictEqual(two.status, 200, JSON.stringify(two.body))
      assert.strictEqual(two.body.result.confirmationStatusCode, "Confirmed")
      assert.deepStrictEqual(await home.client.bucketsOf(sender), { free: 39.5, lockOut: 0, lockIn: 0, lockOrders: 0 })
      assert.strictEqual((await home.client.bucketsOf(fees)).free, 0.5)
      assert.strictEqual((await away.client.bucketsOf(recipient)).free, 10)
      assert.strictEqual((await away.client.bucketsOf(link.float)).free, 90)
      assert.strictEqual((await fed.txInfo(sender.sid, txId)).state, "Finished")
      assert.lengthOf(await fed.historyOf(sender.sid, FederationTransfer), 1)
      await home.client.setTariffs([])
      await away.client.assertLedgerSound(`${direction} away`)
    })
  }
})

describe("partner transfers: refusals and faults", () => {
  it("checks in C18's order; step one's reservation; an unknown recipient there: its order canceled, released, 10176; float short: released, 10176", async () => {
    const sender = await A.client.party({ fund: "20" })
    const body = { partnerId: "B", recipient: "424242424242", currency: "USDT", amount: "5" }
    assertRejected(await send(onA, sender.sid, { ...body, amount: 0 }), 400, 10001)
    assertRejected(await send(onA, sender.sid, { ...body, partnerId: "nobody" }), 404, 10170)
    assertRejected(await send(onA, sender.sid, { ...body, currency: "NOPE" }), 400, 10020)
    assertRejected(await send(onA, sender.sid, { ...body, amount: "0.0000001" }), 400, 10021)
    assertRejected(await send(onA, sender.sid, { ...body, amount: "21" }), 400, 10002)
    const nonce = await send(onA, sender.sid, { ...body, amount: "1", clientNonce: 77 })
    assert.strictEqual(nonce.status, 200, JSON.stringify(nonce.body))
    assertRejected(await send(onA, sender.sid, { ...body, amount: "1", clientNonce: 77 }), 400, 10130)
    assertRejected(
      await A.client.call("POST", `/core/v1/wallet/cancel_partner_transfer?id=${nonce.body.result.txId}`, {
        sid: (await A.client.party()).sid
      }),
      404,
      10083
    )
    const canceled = await A.client.call(
      "POST",
      `/core/v1/wallet/cancel_partner_transfer?id=${nonce.body.result.txId}`,
      { sid: sender.sid }
    )
    assert.strictEqual(canceled.status, 200, JSON.stringify(canceled.body))
    assertCanceledRow(canceled.body.result, { txId: nonce.body.result.txId, walletId: sender.id, amount: 1 })
    assert.deepStrictEqual(await A.client.bucketsOf(sender), { free: 20, lockOut: 0, lockIn: 0, lockOrders: 0 })
    assertRejected(
      await A.client.call("POST", `/core/v1/wallet/cancel_partner_transfer?id=${nonce.body.result.txId}`, {
        sid: sender.sid
      }),
      400,
      10082
    )

    const unknown = await transfer(onA, sender.sid, body)
    assertRejected(unknown.two, 400, 10176)
    assert.match(unknown.two.body.error!.message, /refused: 10030 /)
    assert.strictEqual((await onA.txInfo(sender.sid, unknown.txId)).state, "Canceled")
    assert.deepStrictEqual(await A.client.bucketsOf(sender), { free: 20, lockOut: 0, lockIn: 0, lockOrders: 0 })

    const rich = await A.client.party({ fund: "500" })
    const recipient = await B.client.party()
    const short = await transfer(onA, rich.sid, { ...body, recipient: recipient.id, amount: "400" })
    assertRejected(short.two, 400, 10176)
    assert.match(short.two.body.error!.message, /refused: 10002 /)
    assert.strictEqual((await A.client.bucketsOf(rich)).free, 500)
    assert.strictEqual((await B.client.bucketsOf(recipient)).free, 0)
    await B.client.assertLedgerSound("B")
  })

  it("a refusal always releases: pay_transfer refused and the cancel of the partner's order lost on the way: Canceled, lock_out → free, 10176", async () => {
    const sender = await A.client.party({ fund: "10" })
    const seenBefore = relay.seen.length
    relay.set("cancel_payment_order", "drop")
    const refused = await transfer(onA, sender.sid, {
      partnerId: "Bx",
      recipient: "424242424242",
      currency: "USDT",
      amount: "4"
    })
    relay.clear()
    assertRejected(refused.two, 400, 10176)
    assert.match(refused.two.body.error!.message, /refused: 10030 /)
    assert.isTrue(
      relay.seen.slice(seenBefore).some((url) => url.includes("cancel_payment_order")),
      "the cancel was tried (and lost)"
    )
    assert.strictEqual((await onA.txInfo(sender.sid, refused.txId)).state, "Canceled")
    assert.deepStrictEqual(await A.client.bucketsOf(sender), { free: 10, lockOut: 0, lockIn: 0, lockOrders: 0 })
    await B.client.assertLedgerSound("B")
  })

  it("a disabled partner is 404 10170 in every action (step one, step two, cancel_partner_transfer, cancel_tx, create_partner_order, federation_credit) and nothing moves; enabled again, the cancel answers", async () => {
    const record = {
      partnerId: "Bd",
      name: "B, to be disabled",
      baseUrl: B.service().base,
      outboundAppId: aToB.app.appId,
      outboundPkey: aToB.app.pkey,
      webhookSecret: aToB.app.webhookSecret,
      capabilities: ["Federation", "FederationWallet"]
    }
    const setEnabled = async (enabled: boolean) => {
      const reply = await A.client.priv("POST", "add_federation_partner", { ...record, enabled })
      assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
    }
    await setEnabled(true)
    const sender = await A.client.party({ fund: "10" })
    const recipient = await B.client.party()
    const body = { partnerId: "Bd", recipient: recipient.id, currency: "USDT", amount: "3" }
    const one = await send(onA, sender.sid, body)
    assert.strictEqual(one.status, 200, JSON.stringify(one.body))
    const txId = one.body.result.txId as string
    await setEnabled(false)
    const reserved = { free: 7, lockOut: 3, lockIn: 0, lockOrders: 0 }
    assertRejected(await send(onA, sender.sid, body), 404, 10170, "step one")
    assertRejected(
      await send(onA, sender.sid, body, {
        confirmationTimetick: txId,
        confirmationCode: one.body.result.confirmationCode
      }),
      404,
      10170,
      "step two"
    )
    assert.strictEqual((await onA.txInfo(sender.sid, txId)).txState, 1, "step two changed nothing")
    const cancelPath = `/core/v1/wallet/cancel_partner_transfer?id=${txId}`
    assertRejected(await A.client.call("POST", cancelPath, { sid: sender.sid }), 404, 10170, "cancel")
    assertRejected(await A.client.cancelTx(sender.sid, txId), 404, 10170, "cancel_tx")
    assert.deepStrictEqual(await A.client.bucketsOf(sender), reserved)
    assertRejected(
      await onA.createOrder(sender.sid, { partnerId: "Bd", currency: "USDT", amount: 1 }),
      404,
      10170,
      "create_partner_order"
    )
    assertRejected(
      await A.client.priv("POST", "federation_credit", {
        partnerId: "Bd",
        reference: "r-1",
        walletId: sender.id,
        currency: "USDT",
        amount: "1"
      }),
      404,
      10170,
      "federation_credit"
    )
    assert.notInclude(
      ((await onA.wallet("get_federation_partners", sender.sid)).body.result as Array<any>).map((p) => p.partnerId),
      "Bd"
    )
    assert.strictEqual((await B.client.bucketsOf(recipient)).free, 0)
    await setEnabled(true)
    const canceled = await A.client.call("POST", cancelPath, { sid: sender.sid })
    assert.strictEqual(canceled.status, 200, JSON.stringify(canceled.body))
    assertCanceledRow(canceled.body.result, { txId, walletId: sender.id, amount: 3 })
    assert.deepStrictEqual(await A.client.bucketsOf(sender), { free: 10, lockOut: 0, lockIn: 0, lockOrders: 0 })
  })

  it("the partner down at step two (nothing reached it): released, 10177", async () => {
    const dead = await freePort()
    await A.client.priv("POST", "add_federation_partner", {
      partnerId: "down",
      name: "down",
      baseUrl: `http://127.0.0.1:${dead}`,
      outboundAppId: aToB.app.appId,
      outboundPkey: aToB.app.pkey,
      webhookSecret: aToB.app.webhookSecret,
      capabilities: ["Federation", "FederationWallet"]
    })
    const sender = await A.client.party({ fund: "10" })
    const down = await transfer(onA, sender.sid, { partnerId: "down", recipient: "1", currency: "USDT", amount: "3" })
    assertRejected(down.two, 400, 10177)
    assert.strictEqual((await onA.txInfo(sender.sid, down.txId)).state, "Canceled")
    assert.strictEqual((await A.client.bucketsOf(sender)).free, 10)
  })

  it("pay_transfer's answer lost: Pending (stays 3, reserved), then the partner's TransferOrder webhook settles it once: Finished", async () => {
    const sender = await A.client.party({ fund: "10" })
    const recipient = await B.client.party()
    relay.set("pay_transfer", "lose-answer")
    const lost = await transfer(onA, sender.sid, {
      partnerId: "Bx",
      recipient: recipient.id,
      currency: "USDT",
      amount: "4"
    })
    relay.clear()
    assert.strictEqual(lost.two.status, 200, JSON.stringify(lost.two.body))
    assert.strictEqual(lost.two.body.result.confirmationStatusCode, "Pending")
    assert.strictEqual((await B.client.bucketsOf(recipient)).free, 4, "paid on the partner")
    await onA.eventually(
      () => onA.txInfo(sender.sid, lost.txId),
      (tx) => tx.state === "Finished"
    )
    assert.deepStrictEqual(await A.client.bucketsOf(sender), { free: 6, lockOut: 0, lockIn: 0, lockOrders: 0 })
  })

  it("cancel_partner_transfer in 3 (pay_transfer never reached the partner, the answer lost): canceled there, released; Finished ones 10082", async () => {
    const sender = await A.client.party({ fund: "10" })
    const recipient = await B.client.party()
    relay.set("pay_transfer", "drop")
    const pending = await transfer(onA, sender.sid, {
      partnerId: "Bx",
      recipient: recipient.id,
      currency: "USDT",
      amount: "2"
    })
    relay.clear()
    assert.strictEqual(pending.two.body.result.confirmationStatusCode, "Pending", JSON.stringify(pending.two.body))
    assert.deepStrictEqual(await A.client.bucketsOf(sender), { free: 8, lockOut: 2, lockIn: 0, lockOrders: 0 })
    const cancel = await A.client.call("POST", `/core/v1/wallet/cancel_partner_transfer?id=${pending.txId}`, {
      sid: sender.sid
    })
    assert.strictEqual(cancel.status, 200, JSON.stringify(cancel.body))
    assertCanceledRow(cancel.body.result, { txId: pending.txId, walletId: sender.id, amount: 2 })
    assert.deepStrictEqual(await A.client.bucketsOf(sender), { free: 10, lockOut: 0, lockIn: 0, lockOrders: 0 })
    assert.strictEqual((await B.client.bucketsOf(recipient)).free, 0)
    const done = await transfer(onA, sender.sid, {
      partnerId: "B",
      recipient: recipient.id,
      currency: "USDT",
      amount: "1"
    })
    assert.strictEqual(done.two.body.result.confirmationStatusCode, "Confirmed")
    assertRejected(
      await A.client.call("POST", `/core/v1/wallet/cancel_partner_transfer?id=${done.txId}`, { sid: sender.sid }),
      400,
      10082
    )
    await B.client.assertLedgerSound("B")
  })

  it("cancel_tx?id= on a partner transfer does what cancel_partner_transfer does (in 3: canceled there, released)", async () => {
    const sender = await A.client.party({ fund: "5" })
    const recipient = await B.client.party()
    relay.set("pay_transfer", "drop")
    const pending = await transfer(onA, sender.sid, {
      partnerId: "Bx",
      recipient: recipient.id,
      currency: "USDT",
      amount: "5"
    })
    relay.clear()
    assert.strictEqual(pending.two.body.result?.confirmationStatusCode, "Pending", JSON.stringify(pending.two.body))
    const cancel = await A.client.cancelTx(sender.sid, pending.txId)
    assert.strictEqual(cancel.status, 200, JSON.stringify(cancel.body))
    assertCanceledRow(cancel.body.result, { txId: pending.txId, walletId: sender.id, amount: 5 })
    assert.deepStrictEqual(await A.client.bucketsOf(sender), { free: 5, lockOut: 0, lockIn: 0, lockOrders: 0 })
    assertRejected(await A.client.cancelTx(sender.sid, pending.txId), 400, 10082)
  })

  it("put_transfer_order's answer lost: Pending without the partner's order id; cancel_partner_transfer finds the order (its webhook, or a replay by externalId), cancels it there and releases", async () => {
    const sender = await A.client.party({ fund: "5" })
    const recipient = await B.client.party()
    const floatBefore = (await B.client.bucketsOf(aToB.float)).free
    relay.set("put_transfer_order", "lose-answer")
    const pending = await transfer(onA, sender.sid, {
      partnerId: "Bx",
      recipient: recipient.id,
      currency: "USDT",
      amount: "1.5"
    })
    relay.clear()
    assert.strictEqual(pending.two.body.result?.confirmationStatusCode, "Pending", JSON.stringify(pending.two.body))
    assert.strictEqual((await B.client.bucketsOf(aToB.float)).free, floatBefore - 1.5, "reserved on the partner")
    const cancel = await A.client.call("POST", `/core/v1/wallet/cancel_partner_transfer?id=${pending.txId}`, {
      sid: sender.sid
    })
    assert.strictEqual(cancel.status, 200, JSON.stringify(cancel.body))
    assert.deepStrictEqual(await A.client.bucketsOf(sender), { free: 5, lockOut: 0, lockIn: 0, lockOrders: 0 })
    assert.strictEqual((await B.client.bucketsOf(aToB.float)).free, floatBefore, "the reserve returned there")
    assert.strictEqual((await B.client.bucketsOf(recipient)).free, 0)
  })

  it("the inbound webhook while the partner cannot be read back: 400 10177 (the partner retries), nothing moves", async () => {
    const user = await A.client.party()
    const order = (await onA.createOrder(user.sid, { partnerId: "Bx", currency: "USDT", amount: 2 })).body.result
    await onA.payOnAway(order.code, await B.client.party({ fund: "5" }))
    relay.set("get_app_payment", "drop")
    const { refunds: _r, ...data } = await onA.mAway.view(aToB.app, order.remoteOrderId)
    const hook = await onA.postHook("Bx", onA.event("PaymentOrder.Paid", aToB.app.appId, data), aToB.app.webhookSecret)
    relay.clear()
    assertRejected(hook, 400, 10177)
    // B's own webhook (retried) then credits it once.
    await onA.eventually(
      () => onA.free(user),
      (free) => free === 2
    )
    // B sends Created, Started and Paid at once; each is read back as Paid: one credit.
    await new Promise((r) => setTimeout(r, 1_500))
    assert.strictEqual(await onA.free(user), 2)
    assert.lengthOf(await onA.historyOf(user.sid, 26), 1)
  })
})
