/**
 * Refunds of payment orders over HTTP (CONTRACT C16 "Refunds"): orders paid from a wallet
 * (put_payment_order + pay_internal) refunded to the paying wallet (destination Wallet) — partial then
 * full (payer, merchant and fee wallets after each step, PartiallyRefunded then Refunded), the default
 * amount, idempotency per (app, externalId) also under concurrency, every error code reachable today,
 * concurrent refunds whose sum exceeds the paid amount, get_refund_status and get_app_payment's
 * `refunds`. The ledger audit runs after each test (serviceForFile).
 */
import { assert, describe, it } from "@effect/vitest"
import { type Party, twoProcessClients } from "../support/Client.ts"
import { assertRejected, errorCode, serviceForFile } from "../support/Fixtures.ts"
import { merchantOf } from "../support/Merchant.ts"
import { itWithServer } from "../support/Service.ts"

const { service, client } = serviceForFile({ setup: async () => {} })
const m = merchantOf(client)
const bothProcesses = twoProcessClients(service)

let fees: Party
let next = 0

const setup = async () => {
  if (fees !== undefined) return
  fees = await client.party()
  await client.setTariffs([
    { txClass: "Payment", currency: "USDT", feeFixed: "0.5", feePercent: "0", profitWalletId: fees.id },
    { txClass: "Refund", currency: "USDT", feeFixed: "0.2", feePercent: "0", profitWalletId: fees.id }
  ])
}

interface Shop {
  readonly merchant: Party
  readonly app: { appId: string; pkey: string }
}

/** A merchant wallet of its own and its app, so each test reads its own balances. */
const newShop = async (): Promise<Shop> => {
  await setup()
  const merchant = await client.party()
  return { merchant, app: await m.createApp(merchant.id, `Shop ${next++}`) }
}

const merchantCall = (shop: Shop, method: string, action: string, body?: unknown) =>
  m.call(shop.app, method, action, body)

const gate = m.gate

/** A PaymentOrder of `amount` USDT paid from a new wallet funded with `fund` (it pays amount + 0.5). */
const paidOrder = async (shop: Shop, amount = "10", fund = "100") => {
  const put = await merchantCall(shop, "POST", "put_payment_order", {
    currency: "USDT",
    orderAmount: amount,
    externalId: `order-${next++}`
  })
  assert.strictEqual(put.status, 200, JSON.stringify(put.body))
  const payer = await client.party({ fund })
  const paid = await gate("POST", "pay_internal", put.body.result.code, {}, payer.sid)
  assert.strictEqual(paid.status, 200, JSON.stringify(paid.body))
  assert.strictEqual(paid.body.result.state, "Paid")
  return { order: put.body.result as { id: string; code: string }, payer }
}

const refund = (shop: Shop, body: Record<string, unknown>) => merchantCall(shop, "POST", "refund_payment", body)

const orderView = async (shop: Shop, id: string) => {
  const reply = await merchantCall(shop, "GET", `get_app_payment?id=${id}`)
  assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
  return reply.body.result
}

const free = async (who: Party) => (await client.bucketsOf(who)).free

/** Exact enough for these sums of a few decimals (JSON numbers of the balance read). */
const near = (actual: number, expected: number, label: string) =>
  assert.isTrue(Math.abs(actual - expected) < 1e-9, `${label}: ${actual} ≠ ${expected}`)

describe("refund_payment to the paying wallet", () => {
  it("partial then full: payer, merchant and fee wallet after each step; PartiallyRefunded then Refunded", async () => {
    const shop = await newShop()
    const { order, payer } = await paidOrder(shop)
    const feesStart = await free(fees)
    near(await free(payer), 89.5, "payer after paying")
    near(await free(shop.merchant), 10, "merchant after payment")
    const paidView = await orderView(shop, order.id)

    const first = await refund(shop, { id: order.id, amount: "4", externalId: "r-1", reason: "broken cup" })
    assert.strictEqual(first.status, 200, JSON.stringify(first.body))
    const r1 = first.body.result
    assert.deepInclude(r1, {
      externalId: "r-1",
      code: order.code,
      orderId: order.id,
      appId: shop.app.appId,
      amount: "4",
      currency: "USDT",
      fee: "0.2",
      stateCode: 8,
      state: "Finished",
      txState: 8,
      destination: "Wallet",
      payoutAmount: "4",
      payoutCurrency: "USDT",
      reason: "broken cup",
      replayed: false
    })
    assert.match(r1.refundId, /^[0-9]+$/)
    assert.notStrictEqual(r1.refundId, order.id)
    assert.isString(r1.finishedAt)
    near(await free(payer), 93.5, "payer after the partial refund")
    near(await free(shop.merchant), 5.8, "merchant pays amount + fee")
    near(await free(fees), feesStart + 0.2, "fee wallet takes the Refund fee")
    const partial = await orderView(shop, order.id)
    assert.deepInclude(partial, {
      state: "PartiallyRefunded",
      stateCode: 9,
      txState: 8,
      refundedAmount: "4",
      paidAmount: "10"
    })
    assert.isTrue(BigInt(partial.idUpdate) > BigInt(paidView.idUpdate), "the order's update tick moves with a refund")
    assert.strictEqual(partial.refunds.length, 1)
    assert.deepInclude(partial.refunds[0], { refundId: r1.refundId, amount: "4", state: "Finished" })
    // The refund is its own transaction in the payer's and the merchant's histories (Refund 19, Finished).
    for (const who of [payer, shop.merchant]) {
      const history = await client.call("GET", "/core/v1/wallet/get_history_transactions?limit=100", { sid: who.sid })
      assert.strictEqual(history.status, 200, JSON.stringify(history.body))
      const row = (history.body.result as Array<any>).find((t) => t.id === r1.refundId)
      assert.deepInclude(row, {
        typeTx: 19,
        txState: 8,
        walletFrom: shop.merchant.id,
        walletTo: payer.id,
        currency: "USDT",
        amount: 4,
        fee: 0.2
      })
    }

    // The rest needs 6 + 0.2 from the merchant's 5.8 free: 10002, nothing moves.
    assertRejected(
      await refund(shop, { id: order.id, amount: "6", externalId: "r-2" }),
      400,
      errorCode.BalanceNotEnough
    )
    near(await free(shop.merchant), 5.8, "merchant unchanged by a refused refund")
    await client.fund(shop.merchant.id, "USDT", "1")
    const second = await refund(shop, { code: order.code, amount: "6", externalId: "r-2" })
    assert.strictEqual(second.status, 200, JSON.stringify(second.body))
    assert.deepInclude(second.body.result, { amount: "6", fee: "0.2", state: "Finished", replayed: false })
    near(await free(payer), 99.5, "payer got the whole order amount back (not the Payment fee)")
    near(await free(shop.merchant), 0.6, "merchant after the full refund")
    near(await free(fees), feesStart + 0.4, "fee wallet after two refunds")
    const full = await orderView(shop, order.id)
    assert.deepInclude(full, { state: "Refunded", stateCode: 10, txState: 8, refundedAmount: "10" })
    assert.isTrue(BigInt(full.idUpdate) > BigInt(partial.idUpdate))
    assert.deepEqual(
      full.refunds.map((r: any) => r.externalId),
      ["r-1", "r-2"]
    )
    // Refunded is final: 10320.
    assertRejected(
      await refund(shop, { id: order.id, amount: "0.01", externalId: "r-3" }),
      400,
      errorCode.RefundNotAllowed
    )
  })

  it("amount omitted: all still refundable; replay answers the first refund, another body 10060", async () => {
    const shop = await newShop()
    const { order, payer } = await paidOrder(shop)
    await client.fund(shop.merchant.id, "USDT", "1")
    const part = await refund(shop, { id: order.id, amount: "3", externalId: "p-1" })
    assert.strictEqual(part.status, 200, JSON.stringify(part.body))
    const rest = await refund(shop, { id: order.id, externalId: "p-2" })
    assert.strictEqual(rest.status, 200, JSON.stringify(rest.body))
    assert.deepInclude(rest.body.result, { amount: "7", fee: "0.2", replayed: false })
    near(await free(payer), 99.5, "payer refunded 3 + 7")
    near(await free(shop.merchant), 11 - 3.2 - 7.2, "merchant")
    assert.strictEqual((await orderView(shop, order.id)).state, "Refunded")

    // The same body again (amount omitted both times): the first refund, replayed, nothing moves.
    const again = await refund(shop, { id: order.id, externalId: "p-2" })
    assert.strictEqual(again.status, 200, JSON.stringify(again.body))
    assert.deepInclude(again.body.result, { refundId: rest.body.result.refundId, amount: "7", replayed: true })
    // Amounts by value: "3.000" replays "3"; the order named by code replays the one named by id.
    const byValue = await refund(shop, { code: order.code, amount: "3.000", externalId: "p-1" })
    assert.strictEqual(byValue.status, 200, JSON.stringify(byValue.body))
    assert.deepInclude(byValue.body.result, { refundId: part.body.result.refundId, replayed: true })
    assertRejected(
      await refund(shop, { id: order.id, amount: "2", externalId: "p-1" }),
      400,
      errorCode.ExternalIdConflict
    )
    assertRejected(
      await refund(shop, { id: order.id, amount: "3", externalId: "p-1", reason: "other" }),
      400,
      errorCode.ExternalIdConflict
    )
    near(await free(payer), 99.5, "replays move nothing")
    // Nothing left, amount omitted, on a Refunded order: 10320.
    assertRejected(await refund(shop, { id: order.id, externalId: "p-3" }), 400, errorCode.RefundNotAllowed)
  })

  it("concurrent requests of one externalId: one refund, the others its replay", async () => {
    const shop = await newShop()
    const { order, payer } = await paidOrder(shop)
    const replies = await Promise.all(
      Array.from({ length: 6 }, () => refund(shop, { id: order.id, amount: "2", externalId: "same" }))
    )
    for (const r of replies) assert.strictEqual(r.status, 200, JSON.stringify(r.body))
    assert.strictEqual(new Set(replies.map((r) => r.body.result.refundId)).size, 1)
    assert.strictEqual(replies.filter((r) => r.body.result.replayed === false).length, 1)
    near(await free(payer), 91.5, "refunded once")
    near(await free(shop.merchant), 7.8, "merchant paid once")
    const view = await orderView(shop, order.id)
    assert.deepInclude(view, { refundedAmount: "2", state: "PartiallyRefunded" })
    assert.strictEqual(view.refunds.length, 1)
  })

  it("10 concurrent refunds whose sum exceeds the paid amount: accepted ones never exceed it", async () => {
    const shop = await newShop()
    const { order, payer } = await paidOrder(shop)
    await client.fund(shop.merchant.id, "USDT", "20")
    const replies = await Promise.all(
      Array.from({ length: 10 }, (_, i) => refund(shop, { id: order.id, amount: "3", externalId: `c-${i}` }))
    )
    const accepted = replies.filter((r) => r.status === 200)
    for (const r of replies) if (r.status !== 200) assertRejected(r, 400, errorCode.RefundExceedsPaid)
    assert.strictEqual(accepted.length, 3, JSON.stringify(replies.map((r) => r.body)))
    near(await free(payer), 89.5 + 9, "payer got 3 × 3")
    near(await free(shop.merchant), 30 - 3 * 3.2, "merchant paid 3 × 3.2")
    const view = await orderView(shop, order.id)
    assert.deepInclude(view, { refundedAmount: "9", state: "PartiallyRefunded", stateCode: 9 })
    assert.strictEqual(view.refunds.length, 3)
    // The last 1 is still refundable.
    const last = await refund(shop, { id: order.id, externalId: "c-last" })
    assert.strictEqual(last.status, 200, JSON.stringify(last.body))
    assert.deepInclude(last.body.result, { amount: "1" })
    assert.strictEqual((await orderView(shop, order.id)).state, "Refunded")
  })
})

describe("refunds through two processes (real server only)", () => {
  // Each process has its own actor of the order: both may read the same row. The order update is
  // conditional on its version, so the loser's commit is undone and decided again on the fresh row.
  itWithServer("10 refunds of 3 sent through both processes at once: Σ accepted ≤ paid, money consistent", async () => {
    const [one, other] = await bothProcesses()
    const shop = await newShop()
    const { order, payer } = await paidOrder(shop)
    await client.fund(shop.merchant.id, "USDT", "20")
    const replies = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        (i % 2 === 0 ? one : other).call("POST", `/payorders/v1/refund_payment?app_id=${shop.app.appId}`, {
          pkey: shop.app.pkey,
          body: { id: order.id, amount: "3", externalId: `two-${i}` }
        })
      )
    )
    const accepted = replies.filter((r) => r.status === 200).length
    for (const r of replies)
      if (r.status !== 200)
        assert.include(
          [errorCode.RefundExceedsPaid, errorCode.PaymentOrderNotPayable],
          r.body.error?.code,
          JSON.stringify(r.body)
        )
    assert.isAtMost(accepted, 3)
    assert.isAtLeast(accepted, 1)
    const view = await orderView(shop, order.id)
    assert.strictEqual(view.refundedAmount, String(3 * accepted))
    assert.strictEqual(view.refunds.length, accepted)
    near(await free(payer), 89.5 + 3 * accepted, "payer")
    near(await free(shop.merchant), 30 - 3.2 * accepted, "merchant")
  })
})

describe("refund_payment errors", () => {
  it("answers 10300, 10001, 10021, 10320, 10321 and 10002 and moves nothing", async () => {
    const shop = await newShop()
    const other = await newShop()
    const { order, payer } = await paidOrder(shop)
    const before = { payer: await free(payer), merchant: await free(shop.merchant) }
    assert.strictEqual(
      (
        await client.call("POST", `/payorders/v1/refund_payment?app_id=${shop.app.appId}`, {
          body: { id: order.id, externalId: "x" }
        })
      ).status,
      401
    )
    assertRejected(await refund(shop, { id: "123", externalId: "e-1" }), 404, errorCode.PaymentOrderNotFound, "", "id")
    assertRejected(await refund(shop, { code: "Pnope", externalId: "e-1" }), 404, errorCode.PaymentOrderNotFound)
    assertRejected(await refund(other, { id: order.id, externalId: "e-1" }), 404, errorCode.PaymentOrderNotFound)
    assertRejected(await refund(shop, { externalId: "e-1" }), 400, errorCode.InvalidRequest)
    assertRejected(
      await refund(shop, { id: order.id, code: order.code, externalId: "e-1" }),
      400,
      errorCode.InvalidRequest
    )
    assertRejected(await refund(shop, { id: order.id, amount: "0", externalId: "e-1" }), 400, errorCode.InvalidRequest)
    assertRejected(await refund(shop, { id: order.id, amount: "-1", externalId: "e-1" }), 400, errorCode.InvalidRequest)
    assertRejected(
      await refund(shop, { id: order.id, amount: "abc", externalId: "e-1" }),
      400,
      errorCode.InvalidRequest
    )
    assertRejected(
      await refund(shop, { id: order.id, amount: "0.0000001", externalId: "e-1" }),
      400,
      errorCode.TooManyDecimals
    )
    assertRejected(await refund(shop, { id: order.id, externalId: "" }), 400, errorCode.InvalidRequest)
    assertRejected(await refund(shop, { id: order.id, externalId: "x".repeat(101) }), 400, errorCode.InvalidRequest)
    assertRejected(
      await refund(shop, { id: order.id, externalId: "e-1", reason: "x".repeat(501) }),
      400,
      errorCode.InvalidRequest
    )
    assertRejected(
      await refund(shop, { id: order.id, amount: "10.000001", externalId: "e-1" }),
      400,
      errorCode.RefundExceedsPaid
    )
    // The merchant holds 10 free: 10 + 0.2 is not covered.
    assertRejected(await refund(shop, { id: order.id, externalId: "e-1" }), 400, errorCode.BalanceNotEnough)
    const unpaid = await merchantCall(shop, "POST", "put_payment_order", {
      currency: "USDT",
      orderAmount: "5",
      externalId: `order-${next++}`
    })
    assertRejected(
      await refund(shop, { id: unpaid.body.result.id, amount: "1", externalId: "e-1" }),
      400,
      errorCode.RefundNotAllowed
    )
    assertRejected(
      await refund(shop, { id: unpaid.body.result.id, externalId: "e-1" }),
      400,
      errorCode.RefundNotAllowed
    )
    near(await free(payer), before.payer, "payer unchanged")
    near(await free(shop.merchant), before.merchant, "merchant unchanged")
    assert.strictEqual((await orderView(shop, order.id)).refunds.length, 0)
    // A refused request stores nothing: its externalId is still free.
    const ok = await refund(shop, { id: order.id, amount: "1", externalId: "e-1" })
    assert.strictEqual(ok.status, 200, JSON.stringify(ok.body))
  })

  it("at most 100 refunds per order: the 101st answers 10324", async () => {
    const shop = await newShop()
    const { order } = await paidOrder(shop, "2")
    await client.fund(shop.merchant.id, "USDT", "30")
    for (let i = 0; i < 100; i++) {
      const r = await refund(shop, { id: order.id, amount: "0.01", externalId: `m-${i}` })
      assert.strictEqual(r.status, 200, JSON.stringify(r.body))
    }
    assertRejected(
      await refund(shop, { id: order.id, amount: "0.01", externalId: "m-100" }),
      400,
      errorCode.TooManyRefunds
    )
    const view = await orderView(shop, order.id)
    assert.deepInclude(view, { refundedAmount: "1", state: "PartiallyRefunded" })
    assert.strictEqual(view.refunds.length, 100)
  })
})

describe("get_refund_status", () => {
  it("by refundId and by externalId; another app's refund or none 404 10322; exactly one key", async () => {
    const shop = await newShop()
    const other = await newShop()
    const { order } = await paidOrder(shop)
    const made = await refund(shop, { id: order.id, amount: "1.5", externalId: "s-1" })
    assert.strictEqual(made.status, 200, JSON.stringify(made.body))
    const { replayed: _replayed, ...expected } = made.body.result
    const byId = await merchantCall(shop, "GET", `get_refund_status?refundId=${expected.refundId}`)
    assert.strictEqual(byId.status, 200, JSON.stringify(byId.body))
    assert.deepEqual(byId.body.result, expected)
    const byExternal = await merchantCall(shop, "GET", "get_refund_status?externalId=s-1")
    assert.strictEqual(byExternal.status, 200, JSON.stringify(byExternal.body))
    assert.deepEqual(byExternal.body.result, expected)
    assertRejected(
      await merchantCall(other, "GET", `get_refund_status?refundId=${expected.refundId}`),
      404,
      errorCode.RefundNotFound
    )
    assertRejected(await merchantCall(other, "GET", "get_refund_status?externalId=s-1"), 404, errorCode.RefundNotFound)
    assertRejected(await merchantCall(shop, "GET", "get_refund_status?refundId=1"), 404, errorCode.RefundNotFound)
    assertRejected(await merchantCall(shop, "GET", "get_refund_status"), 400, errorCode.InvalidRequest)
    assertRejected(
      await merchantCall(shop, "GET", `get_refund_status?refundId=${expected.refundId}&externalId=s-1`),
      400,
      errorCode.InvalidRequest
    )
    // Another app reading the order: 404 10300, refunds and all.
    assertRejected(
      await merchantCall(other, "GET", `get_app_payment?id=${order.id}`),
      404,
      errorCode.PaymentOrderNotFound
    )
  })
})
