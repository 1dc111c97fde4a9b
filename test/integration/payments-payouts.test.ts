/**
 * Payout (transfer) orders (CONTRACT C16, docs/PAYMENTS.md "Payout orders"): put_transfer_order reserves
 * orderAmount + Payout fee from the merchant's free balance into lock_out (idempotent per externalId, the
 * `T…` code shown only by it and its replays, 10002 when free is short); the gate's pay_transfer pays an
 * internal recipient (recipient +orderAmount, reserve released, fee to the profit wallet) once under
 * concurrency; wrong kinds 10307 both ways; cancel and expiry return the reserve. A crypto payout is a C15
 * withdrawal of the reserve: Processing, then Paid when the chain makes it final, or Failed (reserve back
 * to free) when the signer reports a failure or the merchant cancels it while Queued. The ledger audit
 * runs after each test (serviceForFile).
 */
import { assert, describe, it } from "@effect/vitest"
import type { Party } from "../support/Client.ts"
import { addCryptoTerminal, blockOk, emptyBlocks, someEvmAddress } from "../support/Chain.ts"
import { assertRejected, errorCode, serviceForFile } from "../support/Fixtures.ts"
import { merchantOf } from "../support/Merchant.ts"

const { client, service } = serviceForFile({ setup: async () => {} })
const shop = merchantOf(client)

let merchant: Party
let fees: Party
let app: { appId: string; pkey: string }
let next = 0

const setup = async () => {
  if (merchant !== undefined) return
  ;({ merchant, fees, app } = await shop.open("Payout shop", { fund: "1000" }))
  await client.setTariffs([
    { txClass: "Payment", currency: "USDT", feeFixed: "0.5", feePercent: "0", profitWalletId: fees.id },
    { txClass: "Payout", currency: "USDT", feeFixed: "1", feePercent: "0", profitWalletId: fees.id }
  ])
}

const merchantCall = (method: string, action: string, body?: unknown) => shop.call(app, method, action, body)

const putTransfer = (body: Record<string, unknown> = {}) =>
  merchantCall("POST", "put_transfer_order", {
    currency: "USDT",
    orderAmount: "10",
    externalId: `payout-${next++}`,
    ...body
  })

const gate = shop.gate

const newPayout = async (body: Record<string, unknown> = {}) => {
  await setup()
  return shop.ok(await putTransfer(body))
}

describe("put_transfer_order", () => {
  it("reserves orderAmount + fee in lock_out; shows the T… code only to it and its replays; another body 10060", async () => {
    await setup()
    const before = await client.bucketsOf(merchant)
    const body = { currency: "USDT", orderAmount: "10", externalId: "payout-fixed-1", description: "Salary" }
    const first = await merchantCall("POST", "put_transfer_order", body)
    assert.strictEqual(first.status, 200, JSON.stringify(first.body))
    const order = first.body.result
    assert.match(order.code, /^T[A-Za-z0-9_-]{43}$/)
    assert.strictEqual(order.payUrl, `${service().base}/pay?code=${order.code}`)
    assert.deepInclude(order, {
      kind: "TransferOrder",
      typeTx: 21,
      state: "Created",
      stateCode: 1,
      txState: 1,
      orderAmount: "10",
      fee: "1",
      replayed: false
    })
    const after = await client.bucketsOf(merchant)
    assert.strictEqual(after.free, before.free - 11)
    assert.strictEqual(after.lockOut, before.lockOut + 11)

    const again = await merchantCall("POST", "put_transfer_order", { ...body, orderAmount: 10 })
    assert.strictEqual(again.status, 200, JSON.stringify(again.body))
    assert.deepInclude(again.body.result, { id: order.id, code: order.code, payUrl: order.payUrl, replayed: true })
    assert.strictEqual((await client.bucketsOf(merchant)).free, before.free - 11, "a replay reserves nothing")
    assertRejected(
      await merchantCall("POST", "put_transfer_order", { ...body, orderAmount: "12" }),
      400,
      errorCode.ExternalIdConflict
    )
    assertRejected(
      await merchantCall("POST", "put_payment_order", { ...body }),
      400,
      errorCode.ExternalIdConflict,
      "a payment order of a payout's externalId"
    )

    const view = await merchantCall("GET", `get_app_payment?id=${order.id}`)
    assert.strictEqual(view.status, 200, JSON.stringify(view.body))
    assert.deepInclude(view.body.result, { code: null, payUrl: null, kind: "TransferOrder", fee: "1" })
    const byCode = await merchantCall("GET", `get_app_payment?code=${order.code}`)
    assert.deepInclude(byCode.body.result, { id: order.id, code: null })
    const feed = await merchantCall("GET", "get_app_payments")
    assert.notInclude(JSON.stringify(feed.body), order.code)
    const info = await gate("GET", "get_order_info", order.code)
    assert.strictEqual(info.status, 200, JSON.stringify(info.body))
    assert.deepInclude(info.body.result, {
      code: null,
      kind: "TransferOrder",
      state: "Created",
      merchantName: "Payout shop"
    })
    assert.notInclude(JSON.stringify(info.body), order.code)
  })

  it("10002 when free is short of orderAmount + fee; nothing reserved", async () => {
    await setup()
    const before = await client.bucketsOf(merchant)
    const amount = String(before.free) // + fee 1 exceeds free
    assertRejected(await putTransfer({ orderAmount: amount }), 400, errorCode.BalanceNotEnough)
    assert.deepEqual(await client.bucketsOf(merchant), before)
  })

  it("a webhookUrl on a private host is 10340; nothing reserved", async () => {
    await setup()
    const before = await client.bucketsOf(merchant)
    const refused = await putTransfer({ webhookUrl: "http://192.168.0.10/hook" })
    assertRejected(refused, 400, errorCode.WebhookUrlRejected, "private host", "webhookUrl")
    assert.deepEqual(await client.bucketsOf(merchant), before)
  })

  it("concurrent puts of one externalId make one order and reserve once", async () => {
    await setup()
    const before = await client.bucketsOf(merchant)
    const body = { currency: "USDT", orderAmount: "2", externalId: "payout-race-1" }
    const replies = await Promise.all(Array.from({ length: 8 }, () => merchantCall("POST", "put_transfer_order", body)))
    for (const r of replies) assert.strictEqual(r.status, 200, JSON.stringify(r.body))
    assert.strictEqual(new Set(replies.map((r) => r.body.result.id)).size, 1)
    assert.strictEqual(new Set(replies.map((r) => r.body.result.code)).size, 1)
    assert.strictEqual(replies.filter((r) => !r.body.result.replayed).length, 1)
    assert.strictEqual((await client.bucketsOf(merchant)).free, before.free - 3)
  })
})

describe("pay_transfer (internal)", () => {
  it("pays the recipient orderAmount, releases the reserve, fee to the profit wallet; then 10302", async () => {
    const order = await newPayout()
    const recipient = await client.party()
    const before = { merchant: await client.bucketsOf(merchant), fees: await client.bucketsOf(fees) }
    const paid = await gate("POST", "pay_transfer", order.code, {
      recipient: recipient.address,
      meta: { invoice: "A-17" }
    })
    assert.strictEqual(paid.status, 200, JSON.stringify(paid.body))
    assert.deepInclude(paid.body.result, { kind: "TransferOrder", state: "Paid", stateCode: 8, txState: 8 })
    assert.isString(paid.body.result.paidAt)
    assert.strictEqual((await client.bucketsOf(recipient)).free, 10)
    const merchantAfter = await client.bucketsOf(merchant)
    assert.strictEqual(merchantAfter.free, before.merchant.free)
    assert.strictEqual(merchantAfter.lockOut, before.merchant.lockOut - 11)
    assert.strictEqual((await client.bucketsOf(fees)).free, before.fees.free + 1)
    const view = await merchantCall("GET", `get_app_payment?id=${order.id}`)
    assert.deepInclude(view.body.result, {
      state: "Paid",
      code: null,
      recipient: recipient.address,
      payerWalletId: recipient.id,
      paidAmount: "10"
    })
    assert.deepEqual(view.body.result.meta, { invoice: "A-17" })
    assertRejected(await gate("POST", "pay_transfer", order.code, { recipient: recipient.address }), 400, 10302)
    assertRejected(await merchantCall("POST", `cancel_payment_order?id=${order.id}`), 400, 10302)
    assert.strictEqual((await client.bucketsOf(recipient)).free, 10)
  })

  it("10030 unknown recipient, 10008 the merchant wallet, 10001 meta over 4 KiB or not an object", async () => {
    const order = await newPayout()
    assertRejected(
      await gate("POST", "pay_transfer", order.code, { recipient: "Wnope" }),
      404,
      errorCode.WalletNotFound
    )
    assertRejected(
      await gate("POST", "pay_transfer", order.code, { recipient: merchant.address }),
      400,
      errorCode.SameAccounts
    )
    const recipient = await client.party()
    assertRejected(
      await gate("POST", "pay_transfer", order.code, { recipient: recipient.address, meta: { x: "y".repeat(4100) } }),
      400,
      errorCode.InvalidRequest,
      "meta",
      "meta"
    )
    assertRejected(
      await gate("POST", "pay_transfer", order.code, { recipient: recipient.address, meta: [1] }),
      400,
      errorCode.InvalidRequest
    )
    assertRejected(await gate("POST", "pay_transfer", "Tnope", { recipient: recipient.address }), 404, 10300)
    const info = await gate("GET", "get_order_info", order.code)
    assert.strictEqual(info.body.result.state, "Created")
    assert.strictEqual((await client.bucketsOf(recipient)).free, 0)
  })

  it("wrong kind 10307 both ways", async () => {
    const payout = await newPayout()
    const payment = await merchantCall("POST", "put_payment_order", {
      currency: "USDT",
      orderAmount: "5",
      externalId: `payment-${next++}`
    })
    assert.strictEqual(payment.status, 200, JSON.stringify(payment.body))
    const payer = await client.party({ fund: "20" })
    assertRejected(
      await gate("POST", "pay_transfer", payment.body.result.code, { recipient: payer.address }),
      400,
      errorCode.WrongOrderKind
    )
    assertRejected(await gate("POST", "pay_internal", payout.code, {}, payer.sid), 400, errorCode.WrongOrderKind)
    assert.strictEqual((await client.bucketsOf(payer)).free, 20)
  })

  it("concurrent pay_transfer to 8 recipients: exactly one payout, the rest 10302", async () => {
    const order = await newPayout()
    const recipients = await Promise.all(Array.from({ length: 8 }, () => client.party()))
    const feesBefore = (await client.bucketsOf(fees)).free
    const replies = await Promise.all(
      recipients.map((r) => gate("POST", "pay_transfer", order.code, { recipient: r.address }))
    )
    const winners = replies.filter((r) => r.status === 200)
    assert.strictEqual(winners.length, 1, JSON.stringify(replies.map((r) => r.body)))
    for (const r of replies) if (r.status !== 200) assertRejected(r, 400, 10302)
    const frees = await Promise.all(recipients.map(async (r) => (await client.bucketsOf(r)).free))
    assert.strictEqual(frees.filter((f) => f === 10).length, 1)
    assert.strictEqual(frees.filter((f) => f === 0).length, 7)
    assert.strictEqual((await client.bucketsOf(fees)).free, feesBefore + 1)
  })
})

describe("cancel and expiry return the reserve", () => {
  it("cancel_payment_order: Canceled, reserve back to free; pay_transfer then 10302", async () => {
    await setup()
    const before = await client.bucketsOf(merchant)
    const order = await newPayout()
    const canceled = await merchantCall("POST", `cancel_payment_order?id=${order.id}`)
    assert.strictEqual(canceled.status, 200, JSON.stringify(canceled.body))
    assert.deepInclude(canceled.body.result, { state: "Canceled", stateCode: 17, txState: 16, code: null })
    assert.deepEqual(await client.bucketsOf(merchant), before)
    const recipient = await client.party()
    assertRejected(await gate("POST", "pay_transfer", order.code, { recipient: recipient.address }), 400, 10302)
  })

  it("after expiresAt: pay_transfer 10301, Expired, reserve back to free", async () => {
    await setup()
    const before = await client.bucketsOf(merchant)
    const order = await newPayout({ expiresInSeconds: 1 })
    assert.strictEqual((await client.bucketsOf(merchant)).lockOut, before.lockOut + 11)
    await new Promise((r) => setTimeout(r, 1500))
    const recipient = await client.party()
    assertRejected(await gate("POST", "pay_transfer", order.code, { recipient: recipient.address }), 400, 10301)
    const view = await merchantCall("GET", `get_app_payment?id=${order.id}`)
    assert.deepInclude(view.body.result, { state: "Expired", stateCode: 16, txState: 16 })
    assert.deepEqual(await client.bucketsOf(merchant), before)
    assert.strictEqual((await client.bucketsOf(recipient)).free, 0)
  })
})

describe("pay_transfer (crypto)", () => {
  /** A fresh USDT Withdraw terminal on Ethereum (3 confirmations), so each test has its own chain. */
  const usdtTerminal = async () =>
    (await addCryptoTerminal(client, { currencyId: "USDT", decimals: 6, flags: 2, confirmations: 3 })).id

  /** pay_transfer to a fresh address on `terminal`: Processing; answers the withdrawal the signer sees. */
  const payOut = async (terminal: string) => {
    const order = await newPayout()
    const address = someEvmAddress()
    const reply = await gate("POST", "pay_transfer", order.code, { tokenNetworkId: terminal, recipient: address })
    assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
    assert.deepInclude(reply.body.result, { state: "Processing", stateCode: 3, txState: 1 })
    const listed = await client.priv("GET", `list_txs_to_send?tokenNetwork=${terminal}&limit=1000`)
    assert.strictEqual(listed.status, 200, JSON.stringify(listed.body))
    const items = (listed.body.result as Array<any>).filter((i) => i.toAddress === address)
    assert.strictEqual(items.length, 1, JSON.stringify(listed.body))
    assert.deepInclude(items[0], { kind: "Withdrawal", amount: "10", currency: "USDT" })
    return { order, address, withdrawal: items[0].txId as string }
  }

  const view = async (id: string) => (await merchantCall("GET", `get_app_payment?id=${id}`)).body.result

  it("Processing with a queued withdrawal of the reserve; final on chain → Paid, lock_out spent once", async () => {
    await setup()
    const terminal = await usdtTerminal()
    const before = { merchant: await client.bucketsOf(merchant), fees: await client.bucketsOf(fees) }
    const { order, address, withdrawal } = await payOut(terminal)
    const processing = await client.bucketsOf(merchant)
    assert.strictEqual(processing.free, before.merchant.free - 11)
    assert.strictEqual(processing.lockOut, before.merchant.lockOut + 11)
    assert.deepInclude(await view(order.id), {
      state: "Processing",
      recipient: address,
      paymentMethod: "CryptoTransfer"
    })
    assertRejected(await gate("POST", "pay_transfer", order.code, { recipient: address }), 400, 10302)
    assertRejected(await merchantCall("POST", `cancel_payment_order?id=${order.id}`), 400, 10302)

    const sent = await client.priv("POST", "tx_send_report", { txId: withdrawal, result: "broadcast", txHash: "p1" })
    assert.strictEqual(sent.status, 200, JSON.stringify(sent.body))
    await blockOk(client, terminal, "pay", 1, [
      { txHash: "p1", direction: "out", to: address, amount: "10", txId: withdrawal }
    ])
    assert.strictEqual((await view(order.id)).state, "Processing", "bound, not final")
    await emptyBlocks(client, terminal, "pay", 2, 4)
    assert.deepInclude(await view(order.id), { state: "Paid", stateCode: 8, txState: 8, paidAmount: "10" })
    const after = await client.bucketsOf(merchant)
    assert.strictEqual(after.free, before.merchant.free - 11)
    assert.strictEqual(after.lockOut, before.merchant.lockOut)
    assert.strictEqual((await client.bucketsOf(fees)).free, before.fees.free + 1)
  })

  it("the signer reports a failure → Failed, the reserve back to free", async () => {
    await setup()
    const terminal = await usdtTerminal()
    const before = await client.bucketsOf(merchant)
    const { order, withdrawal } = await payOut(terminal)
    const failed = await client.priv("POST", "tx_send_report", { txId: withdrawal, result: "failed" })
    assert.strictEqual(failed.status, 200, JSON.stringify(failed.body))
    assert.deepInclude(await view(order.id), { state: "Failed", stateCode: 18, txState: 16 })
    assert.deepEqual(await client.bucketsOf(merchant), before)
  })

  it("the merchant cancels the Queued withdrawal → Failed, the reserve back to free", async () => {
    await setup()
    const terminal = await usdtTerminal()
    const before = await client.bucketsOf(merchant)
    const order = await newPayout()
    const address = someEvmAddress()
    const paid = await gate("POST", "pay_transfer", order.code, { tokenNetworkId: terminal, recipient: address })
    assert.strictEqual(paid.status, 200, JSON.stringify(paid.body))
    const history = await client.call("GET", "/core/v1/wallet/get_history_transactions?limit=100&typeTx=2", {
      sid: merchant.sid
    })
    const rows = (history.body.result ?? []) as Array<any>
    const outcome = rows.find((r) => r.tokenNetwork === terminal)
    assert.isDefined(outcome, JSON.stringify(history.body))
    const canceled = await client.call("POST", `/core/v1/wallet/cancel_withdraw?id=${outcome.id}`, {
      sid: merchant.sid
    })
    assert.strictEqual(canceled.status, 200, JSON.stringify(canceled.body))
    assert.deepInclude(await view(order.id), { state: "Failed", stateCode: 18 })
    assert.deepEqual(await client.bucketsOf(merchant), before)
  })

  it("concurrent crypto pay_transfers to 6 addresses: one withdrawal queued, the rest 10302", async () => {
    await setup()
    const terminal = await usdtTerminal()
    const order = await newPayout()
    const addresses = Array.from({ length: 6 }, () => someEvmAddress())
    const replies = await Promise.all(
      addresses.map((a) => gate("POST", "pay_transfer", order.code, { tokenNetworkId: terminal, recipient: a }))
    )
    assert.strictEqual(replies.filter((r) => r.status === 200).length, 1, JSON.stringify(replies.map((r) => r.body)))
    for (const r of replies) if (r.status !== 200) assertRejected(r, 400, 10302)
    const listed = await client.priv("GET", `list_txs_to_send?tokenNetwork=${terminal}&limit=1000`)
    const items = listed.body.result as Array<any>
    assert.strictEqual(items.length, 1, JSON.stringify(items))
    assert.strictEqual((await view(order.id)).recipient, items[0].toAddress)
    const failed = await client.priv("POST", "tx_send_report", { txId: items[0].txId, result: "failed" })
    assert.strictEqual(failed.status, 200, JSON.stringify(failed.body))
  })

  it("available tells the truth: a memo-network Withdraw terminal is offered available: false and pay_transfer there is 10303", async () => {
    await setup()
    const evm = await usdtTerminal()
    const solana = (
      await addCryptoTerminal(client, {
        typeNetwork: 5,
        typeContract: 0,
        addressContract: null,
        currencyId: "USDT",
        decimals: 6,
        flags: 2,
        defaultHotAddress: "11111111111111111111111111111111"
      })
    ).id
    const order = await newPayout()
    const offers = (await gate("GET", "get_terminals", order.code)).body.result as Array<any>
    assert.strictEqual(offers.find((o) => o.id === evm)?.available, true, "an EVM payout terminal")
    assert.strictEqual(
      offers.find((o) => o.id === solana)?.available,
      false,
      "a memo network: pay_transfer has no memo"
    )
    const before = await client.bucketsOf(merchant)
    assertRejected(
      await gate("POST", "pay_transfer", order.code, {
        tokenNetworkId: solana,
        recipient: "11111111111111111111111111111111"
      }),
      400,
      errorCode.TerminalNotAvailable
    )
    assertRejected(await gate("POST", "order_start", order.code, { tokenNetworkId: solana }), 400, 10303)
    assert.strictEqual((await view(order.id)).state, "Created")
    assert.deepStrictEqual(await client.bucketsOf(merchant), before)
  })

  it("10204 for an address not of the network, 10303 for a terminal of another currency; nothing moves", async () => {
    await setup()
    const terminal = await usdtTerminal()
    const order = await newPayout()
    assertRejected(
      await gate("POST", "pay_transfer", order.code, { tokenNetworkId: terminal, recipient: "not-an-address" }),
      400,
      errorCode.InvalidAddress,
      "address",
      "recipient"
    )
    const eth = (await addCryptoTerminal(client, { flags: 2 })).id
    assertRejected(
      await gate("POST", "pay_transfer", order.code, { tokenNetworkId: eth, recipient: someEvmAddress() }),
      400,
      errorCode.TerminalNotAvailable
    )
    assert.strictEqual((await view(order.id)).state, "Created")
  })
})
