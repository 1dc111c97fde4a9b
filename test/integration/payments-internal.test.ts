/**
 * The first slice of the payment gateway (CONTRACT C16, issue #14): a merchant's PaymentOrder paid from
 * a wallet through the built-in internal terminal — put_payment_order (idempotency, field errors),
 * get_app_payment, cancel_payment_order, the gate's get_order_info, order_start and pay_internal, money
 * of payer, merchant and fee wallet, expiry on action, and one payment under 10 concurrent payers. The
 * ledger audit runs after each test (serviceForFile).
 */
import { assert, describe, it } from "@effect/vitest"
import type { Party } from "../support/Client.ts"
import { assertRejected, errorCode, serviceForFile } from "../support/Fixtures.ts"
import { merchantOf } from "../support/Merchant.ts"

const { client, service } = serviceForFile({ setup: async () => {} })
const shop = merchantOf(client)

let merchant: Party
let other: Party
let fees: Party
let app: { appId: string; pkey: string }
let otherApp: { appId: string; pkey: string }
let internalTerminal: string
let next = 0

const setup = async () => {
  if (merchant !== undefined) return
  merchant = await client.party()
  other = await client.party()
  fees = await client.party()
  app = await shop.createApp(merchant.id, "Shop")
  otherApp = await shop.createApp(other.id, "Other shop")
  await client.setTariffs([
    { txClass: "Payment", currency: "USDT", feeFixed: "0.5", feePercent: "0", profitWalletId: fees.id }
  ])
  const networks = await client.priv("GET", "tokens_networks")
  internalTerminal = String((networks.body.result as Array<any>).find((t) => t.typeNetwork === 240).id)
}

const merchantCall = (method: string, action: string, body?: unknown, who = app, pkey = who.pkey) =>
  shop.call(who, method, action, body, pkey)

const put = (body: Record<string, unknown> = {}) =>
  merchantCall("POST", "put_payment_order", {
    currency: "USDT",
    orderAmount: "10",
    externalId: `order-${next++}`,
    ...body
  })

const gate = shop.gate

const newOrder = async (body: Record<string, unknown> = {}) => {
  await setup()
  return shop.ok(await put(body))
}

describe("put_payment_order", () => {
  it("creates a Created order with a P… code and payUrl; the same body replays it, another answers 10060", async () => {
    await setup()
    const body = { currency: "USDT", orderAmount: "10", externalId: "fixed-1", description: "Tea" }
    const first = await merchantCall("POST", "put_payment_order", body)
    assert.strictEqual(first.status, 200, JSON.stringify(first.body))
    const order = first.body.result
    assert.match(order.code, /^P[A-Za-z0-9_-]{22,}$/)
    assert.strictEqual(order.payUrl, `${service().base}/pay?code=${order.code}`)
    assert.deepInclude(order, {
      kind: "PaymentOrder",
      typeTx: 20,
      appId: app.appId,
      state: "Created",
      stateCode: 1,
      txState: 1,
      orderAmount: "10",
      paidAmount: "0",
      refundedAmount: "0",
      replayed: false,
      terminalId: null
    })
    const again = await merchantCall("POST", "put_payment_order", { ...body, orderAmount: 10.0 })
    assert.strictEqual(again.status, 200)
    assert.strictEqual(again.body.result.id, order.id)
    assert.isTrue(again.body.result.replayed)
    const changed = await merchantCall("POST", "put_payment_order", { ...body, orderAmount: "11" })
    assertRejected(changed, 400, errorCode.ExternalIdConflict, "another body")
  })

  it("concurrent puts of one externalId make one order", async () => {
    await setup()
    const body = { currency: "USDT", orderAmount: "3", externalId: "race-1" }
    const replies = await Promise.all(Array.from({ length: 8 }, () => merchantCall("POST", "put_payment_order", body)))
    for (const r of replies) assert.strictEqual(r.status, 200, JSON.stringify(r.body))
    assert.strictEqual(new Set(replies.map((r) => r.body.result.id)).size, 1)
    assert.strictEqual(replies.filter((r) => !r.body.result.replayed).length, 1)
  })

  it("field errors: 10001, 10021, 10305, 10340; bad pkey 401, another app's app_id 403", async () => {
    await setup()
    assertRejected(await put({ orderAmount: "abc" }), 400, errorCode.InvalidRequest, "amount")
    assertRejected(await put({ orderAmount: "1.1234567" }), 400, errorCode.TooManyDecimals, "decimals")
    assertRejected(await put({ returnUrlSuccess: "ftp://x" }), 400, errorCode.InvalidRequest, "url")
    assertRejected(await put({ expiresInSeconds: 0 }), 400, errorCode.InvalidRequest, "expires")
    assertRejected(await put({ payAmount: "1" }), 400, errorCode.PayAmountNeedsTerminal, "payAmount")
    // webhookUrl rules (C16): 10340 naming the rule, and nothing is created.
    for (const [webhookUrl, rule] of [
      ["http://localhost:9/hook", "localhost"],
      ["http://169.254.169.254/latest", "linkLocal"],
      ["http://10.0.0.7/hook", "private"],
      ["https://user:pw@shop.example/hook", "user name"],
      ["ftp://shop.example/hook", "http or https"],
      ["https://shop.example/" + "a".repeat(2048), "2048"]
    ]) {
      const externalId = `hook-${next++}`
      const refused = await put({ externalId, webhookUrl })
      assertRejected(refused, 400, errorCode.WebhookUrlRejected, rule, "webhookUrl")
      assert.include(refused.body.error?.message, rule)
      const fresh = await put({ externalId }) // the externalId is still free: nothing was stored
      assert.deepInclude(fresh.body.result, { externalId, replayed: false })
    }
    const hooked = await put({ webhookUrl: "https://shop.example/hook" })
    assert.strictEqual(hooked.status, 200, JSON.stringify(hooked.body))
    assert.strictEqual(hooked.body.result.webhookUrl, "https://shop.example/hook")
    const bad = await merchantCall("POST", "put_payment_order", { currency: "USDT" }, app, "nope")
    assert.strictEqual(bad.status, 401)
    const forbidden = await merchantCall("GET", "get_app_payments", undefined, otherApp, app.pkey)
    assert.strictEqual(forbidden.status, 403)
  })
})

describe("reads and cancel", () => {
  it("get_app_payment by id and code; another app's order is 404 10300; get_order_info hides merchant fields", async () => {
    const order = await newOrder({ returnUrlFail: "https://shop.example/fail" })
    const byId = await merchantCall("GET", `get_app_payment?id=${order.id}`)
    assert.strictEqual(byId.status, 200, JSON.stringify(byId.body))
    assert.strictEqual(byId.body.result.code, order.code)
    const byCode = await merchantCall("GET", `get_app_payment?code=${order.code}`)
    assert.strictEqual(byCode.body.result.id, order.id)
    assertRejected(await merchantCall("GET", `get_app_payment?id=${order.id}`, undefined, otherApp), 404, 10300)
    assertRejected(await merchantCall("GET", `get_app_payment`), 400, errorCode.InvalidRequest)
    const info = await gate("GET", "get_order_info", order.code)
    assert.strictEqual(info.status, 200, JSON.stringify(info.body))
    assert.deepInclude(info.body.result, { merchantName: "Shop", state: "Created", orderAmount: "10", returnUrl: null })
    for (const key of ["externalId", "webhookUrl", "payerWalletId", "recipient"])
      assert.notProperty(info.body.result, key)
    assertRejected(await gate("GET", "get_order_info", "Pnope"), 404, 10300)
  })

  it("cancel_payment_order: Created → Canceled; again 10302; the gate shows the fail URL", async () => {
    const order = await newOrder({ returnUrlFail: "https://shop.example/fail" })
    const canceled = await merchantCall("POST", `cancel_payment_order?id=${order.id}`)
    assert.strictEqual(canceled.status, 200, JSON.stringify(canceled.body))
    assert.deepInclude(canceled.body.result, { state: "Canceled", stateCode: 17, txState: 16 })
    assertRejected(await merchantCall("POST", `cancel_payment_order?code=${order.code}`), 400, 10302)
    const info = await gate("GET", "get_order_info", order.code)
    assert.strictEqual(info.body.result.returnUrl, "https://shop.example/fail")
  })
})

describe("paying", () => {
  it("order_start locks the internal terminal with the Payment fee; unknown terminal 404 10040", async () => {
    const order = await newOrder()
    assertRejected(await gate("POST", "order_start", order.code, { tokenNetworkId: "999999" }), 404, 10040)
    const started = await gate("POST", "order_start", order.code, { tokenNetworkId: internalTerminal })
    assert.strictEqual(started.status, 200, JSON.stringify(started.body))
    assert.deepInclude(started.body.result, {
      state: "Started",
      stateCode: 2,
      typeNetwork: 240,
      payCurrency: "USDT",
      payAmount: "10",
      fee: "0.5",
      totalToPay: "10.5"
    })
    const alias = await gate("POST", "payment_order_start", order.code, { tokenNetworkId: internalTerminal })
    assert.strictEqual(alias.body.result.state, "Started")
  })

  it("pay_internal: 401, 10008, 10002, then Paid with money moved once; repeat replayed; others 10302", async () => {
    const order = await newOrder({ returnUrlSuccess: "https://shop.example/ok" })
    const payer = await client.party({ fund: "100" })
    const poor = await client.party({ fund: "10" })
    const before = { merchant: await client.bucketsOf(merchant), fees: await client.bucketsOf(fees) }
    assert.strictEqual((await gate("POST", "pay_internal", order.code, {})).status, 401)
    assertRejected(await gate("POST", "pay_internal", order.code, {}, merchant.sid), 400, errorCode.SameAccounts)
    assertRejected(await gate("POST", "pay_internal", order.code, {}, poor.sid), 400, errorCode.BalanceNotEnough)
    const paid = await gate("POST", "pay_internal", order.code, {}, payer.sid)
    assert.strictEqual(paid.status, 200, JSON.stringify(paid.body))
    assert.deepInclude(paid.body.result, {
      state: "Paid",
      stateCode: 8,
      txState: 8,
      totalToPay: "10.5",
      replayed: false,
      returnUrl: "https://shop.example/ok"
    })
    assert.isString(paid.body.result.paidAt)
    const again = await gate("POST", "pay_internal", order.code, {}, payer.sid)
    assert.strictEqual(again.status, 200)
    assert.isTrue(again.body.result.replayed)
    assertRejected(await gate("POST", "pay_internal", order.code, {}, poor.sid), 400, 10302)
    assertRejected(await merchantCall("POST", `cancel_payment_order?id=${order.id}`), 400, 10302)
    assert.strictEqual((await client.bucketsOf(payer)).free, 89.5)
    assert.strictEqual((await client.bucketsOf(poor)).free, 10)
    assert.strictEqual((await client.bucketsOf(merchant)).free, before.merchant.free + 10)
    assert.strictEqual((await client.bucketsOf(fees)).free, before.fees.free + 0.5)
    const view = await merchantCall("GET", `get_app_payment?id=${order.id}`)
    assert.deepInclude(view.body.result, {
      paidAmount: "10",
      payerWalletId: payer.id,
      paymentMethod: "InternalPayment"
    })
  })

  it("an order past expiresAt: pay answers 10301 and get_app_payment shows Expired", async () => {
    const order = await newOrder({ expiresInSeconds: 1 })
    const payer = await client.party({ fund: "20" })
    await new Promise((r) => setTimeout(r, 1500))
    assertRejected(await gate("POST", "pay_internal", order.code, {}, payer.sid), 400, 10301)
    const view = await merchantCall("GET", `get_app_payment?id=${order.id}`)
    assert.deepInclude(view.body.result, { state: "Expired", stateCode: 16, txState: 16 })
    assert.strictEqual((await client.bucketsOf(payer)).free, 20)
  })

  it("10 concurrent payers: exactly one 200, the rest 10302, money moved once", async () => {
    const order = await newOrder()
    const payers = await Promise.all(Array.from({ length: 10 }, () => client.party({ fund: "50" })))
    const merchantBefore = (await client.bucketsOf(merchant)).free
    const replies = await Promise.all(payers.map((p) => gate("POST", "pay_internal", order.code, {}, p.sid)))
    const winners = replies.filter((r) => r.status === 200)
    assert.strictEqual(winners.length, 1, JSON.stringify(replies.map((r) => r.body)))
    for (const r of replies) if (r.status !== 200) assertRejected(r, 400, 10302)
    const frees = await Promise.all(payers.map(async (p) => (await client.bucketsOf(p)).free))
    assert.strictEqual(frees.filter((f) => f === 39.5).length, 1)
    assert.strictEqual(frees.filter((f) => f === 50).length, 9)
    assert.strictEqual((await client.bucketsOf(merchant)).free, merchantBefore + 10)
  })
})
