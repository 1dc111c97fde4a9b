/**
 * Refunds of crypto-paid payment orders over HTTP (CONTRACT C16 "Refunds", destination Crypto;
 * docs/PAYMENTS.md "Refunds over HTTP"): an order paid by the scanner's pushes, refund_payment with a
 * refundAddress → Pending (amount + fee free → lock_out) with a C15 withdrawal queued for the signer on
 * the order's terminal; the signer broadcasts, an out item binds it and confirmations make it final →
 * Finished (lock_out spent once, fee to the profit wallet, the order PartiallyRefunded); the signer's
 * failure or the merchant's cancel of the Queued withdrawal → Failed with the money back in free and
 * the pending amount released; 10323 and 10204; Σ pending + finished ≤ paid under 10 concurrent
 * refunds, also while the signer fails earlier ones. The ledger audit runs after each test (serviceForFile).
 */
import { assert, describe, it } from "@effect/vitest"
import { addCryptoTerminal, blockOk, emptyBlocks, pushOk, queuedFor, someEvmAddress } from "../support/Chain.ts"
import type { Party } from "../support/Client.ts"
import { SOLANA_HOT, xpubEnv } from "../support/CryptoAddresses.ts"
import { assertRejected, errorCode, serviceForFile } from "../support/Fixtures.ts"
import { merchantOf } from "../support/Merchant.ts"

const { client } = serviceForFile({ env: xpubEnv, setup: async () => {} })
const shop = merchantOf(client)

let merchant: Party
let fees: Party
let app: { appId: string; pkey: string }
let next = 0

const setup = async () => {
  if (merchant !== undefined) return
  // 1 ETH of its own beside the orders' money, so refunds of a whole order can pay their fee.
  ;({ merchant, fees, app } = await shop.open("Refund shop", { fund: { ETH: "1" } }))
  await client.setTariffs([
    { txClass: "Payment", currency: "ETH", feeFixed: "0.01", feePercent: "0", profitWalletId: fees.id },
    { txClass: "Refund", currency: "ETH", feeFixed: "0.001", feePercent: "0", profitWalletId: fees.id }
  ])
}

const merchantCall = (method: string, action: string, body?: unknown) => shop.call(app, method, action, body)

const gateOk = (action: string, code: string, body?: unknown) => shop.gateOk("POST", action, code, body)

const eth = () => client.bucketsOf(merchant, "ETH")
const feesFree = async () => (await client.bucketsOf(fees, "ETH")).free
/**
 * What the file's user wallets hold in ETH (merchant: every bucket, fee wallet). With the ledger audit
 * (Σ ETH = 0 over all wallets) its change is minus the system wallets' change; only the Treasury moves
 * among those here, so it reads the Treasury: +payoutAmount when a refund is final.
 */
const users = async () => {
  const m = await eth()
  return m.free + m.lockOut + m.lockIn + (await feesFree())
}
const close = (actual: number, expected: number, label: string) => assert.closeTo(actual, expected, 1e-9, label)

/** A fresh terminal (3 confirmations) and an order of 1 ETH paid on it by one income (heights 1–3). */
const paidOrder = async () => {
  await setup()
  const t = await addCryptoTerminal(client, { confirmations: 3 })
  const put = await merchantCall("POST", "put_payment_order", {
    currency: "ETH",
    orderAmount: "1",
    externalId: `crypto-refund-order-${next++}`
  })
  assert.strictEqual(put.status, 200, JSON.stringify(put.body))
  const order = put.body.result as { id: string; code: string }
  const started = await gateOk("pay_crypto", order.code, { tokenNetworkId: t.id })
  await blockOk(client, t.id, "c", 1, [{ txHash: "pay", to: started.address.address, amount: "1.01" }])
  await emptyBlocks(client, t.id, "c", 2, 3)
  assert.strictEqual((await view(order.id)).state, "Paid")
  return { terminal: t.id as string, order }
}

const view = (id: string) => shop.view(app, id)

const refund = (orderId: string, body: Record<string, unknown>) =>
  merchantCall("POST", "refund_payment", { id: orderId, externalId: `crypto-refund-${next++}`, ...body })

const refundOk = async (orderId: string, body: Record<string, unknown>) => {
  const reply = await refund(orderId, body)
  assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
  return reply.body.result
}

const status = (refundId: string) => shop.refundStatus(app, refundId)

/** The signer's queue item for `address` on `terminal` (exactly one). */
const queued = (terminal: string, address: string) => queuedFor(client, terminal, address)

describe("refund_payment of a crypto-paid order", () => {
  it("Pending with a withdrawal queued; broadcast, bound and final → Finished, money moved once", async () => {
    const { terminal, order } = await paidOrder()
    const before = { m: await eth(), fees: await feesFree(), users: await users() }
    const address = someEvmAddress()
    const pending = await refundOk(order.id, { amount: "0.4", refundAddress: address, reason: "damaged" })
    assert.deepInclude(pending, {
      orderId: order.id,
      amount: "0.4",
      fee: "0.001",
      currency: "ETH",
      stateCode: 1,
      state: "Pending",
      txState: 1,
      destination: "Crypto",
      payoutAmount: "0.4",
      payoutCurrency: "ETH",
      finishedAt: null,
      replayed: false
    })
    let m = await eth()
    close(m.free - before.m.free, -0.401, "free −(amount + fee)")
    close(m.lockOut - before.m.lockOut, 0.401, "lock_out +(amount + fee)")
    close((await feesFree()) - before.fees, 0, "no fee while Pending")
    close((await users()) - before.users, 0, "the Treasury unchanged while Pending")
    let order1 = await view(order.id)
    assert.deepInclude(order1, { state: "Paid", refundedAmount: "0" })
    assert.deepInclude(order1.refunds[0], { refundId: pending.refundId, state: "Pending" })

    // The refund's own transaction (typeTx 19, Pending) is not a transfer the merchant can cancel.
    const cancelRefundTx = await client.call("POST", `/core/v1/wallet/cancel_tx?id=${pending.refundId}`, {
      sid: merchant.sid
    })
    assert.notStrictEqual(cancelRefundTx.status, 200, JSON.stringify(cancelRefundTx.body))
    assert.deepEqual(await eth(), m)

    const item = await queued(terminal, address)
    // A C15 Refund (C16 "a C15 Refund on the order's terminal"): the signer's kind "Refund".
    assert.deepInclude(item, { kind: "Refund", amount: "0.4", currency: "ETH" })
    const sent = await client.priv("POST", "tx_send_report", { txId: item.txId, result: "broadcast", txHash: "r1" })
    assert.strictEqual(sent.status, 200, JSON.stringify(sent.body))
    await blockOk(client, terminal, "c", 4, [
      { txHash: "r1", direction: "out", to: address, amount: "0.4", txId: item.txId }
    ])
    assert.strictEqual((await status(pending.refundId)).state, "Pending", "bound, not final")
    await emptyBlocks(client, terminal, "c", 5, 6)
    const finished = await status(pending.refundId)
    assert.deepInclude(finished, { stateCode: 8, state: "Finished", txState: 8, amount: "0.4" })
    assert.isString(finished.finishedAt)
    order1 = await view(order.id)
    assert.deepInclude(order1, { state: "PartiallyRefunded", stateCode: 9, refundedAmount: "0.4" })
    assert.deepInclude(order1.refunds[0], { state: "Finished", finishedAt: finished.finishedAt })
    m = await eth()
    close(m.free - before.m.free, -0.401, "free spent once")
    close(m.lockOut - before.m.lockOut, 0, "lock_out released once")
    close((await feesFree()) - before.fees, 0.001, "fee to the profit wallet")
    close((await users()) - before.users, -0.4, "the Treasury +payoutAmount")
    await client.assertLedgerSound("after the first refund")

    // The rest, amount omitted: all still refundable (0.6) → Refunded once final.
    const rest = await refundOk(order.id, { refundAddress: address })
    assert.deepInclude(rest, { amount: "0.6", state: "Pending" })
    assertRejected(await refund(order.id, { amount: "0.1", refundAddress: address }), 400, errorCode.RefundExceedsPaid)
    const item2 = await queued(terminal, address)
    assert.strictEqual(item2.amount, "0.6")
    await client.priv("POST", "tx_send_report", { txId: item2.txId, result: "broadcast", txHash: "r2" })
    await blockOk(client, terminal, "c", 7, [
      { txHash: "r2", direction: "out", to: address, amount: "0.6", txId: item2.txId }
    ])
    await emptyBlocks(client, terminal, "c", 8, 9)
    assert.deepInclude(await view(order.id), { state: "Refunded", stateCode: 10, refundedAmount: "1" })
    m = await eth()
    close(m.free - before.m.free, -1.002, "both refunds paid once")
    close(m.lockOut - before.m.lockOut, 0, "nothing left locked")
    close((await feesFree()) - before.fees, 0.002, "both fees")
    close((await users()) - before.users, -1, "the Treasury +1 in all")
  })

  it("two refunds of one order final in the same block: both Finished, the order updated once with both", async () => {
    const { terminal, order } = await paidOrder()
    const before = { m: await eth(), fees: await feesFree() }
    const a = someEvmAddress(),
      b = someEvmAddress()
    const first = await refundOk(order.id, { amount: "0.2", refundAddress: a })
    const second = await refundOk(order.id, { amount: "0.3", refundAddress: b })
    const items = [await queued(terminal, a), await queued(terminal, b)]
    for (const [n, i] of items.entries()) {
      const sent = await client.priv("POST", "tx_send_report", { txId: i.txId, result: "broadcast", txHash: `t${n}` })
      assert.strictEqual(sent.status, 200, JSON.stringify(sent.body))
    }
    await pushOk(client, terminal, {
      height: 4,
      hash: "c4",
      parentHash: "c3",
      items: [
        { txHash: "t0", direction: "out", to: a, amount: "0.2", txId: items[0].txId },
        { txHash: "t1", direction: "out", to: b, amount: "0.3", txId: items[1].txId }
      ]
    })
    await emptyBlocks(client, terminal, "c", 5, 6)
    assert.strictEqual((await status(first.refundId)).state, "Finished")
    assert.strictEqual((await status(second.refundId)).state, "Finished")
    assert.deepInclude(await view(order.id), { state: "PartiallyRefunded", refundedAmount: "0.5" })
    const m = await eth()
    close(m.free - before.m.free, -0.502, "both paid once")
    close(m.lockOut - before.m.lockOut, 0, "nothing left locked")
    close((await feesFree()) - before.fees, 0.002, "both fees")
  })

  it("the signer's failure → Failed, amount + fee back to free, the pending amount released", async () => {
    const { terminal, order } = await paidOrder()
    const before = await eth()
    const address = someEvmAddress()
    const pending = await refundOk(order.id, { amount: "1", refundAddress: address })
    assertRejected(await refund(order.id, { amount: "0.1", refundAddress: address }), 400, errorCode.RefundExceedsPaid)
    const item = await queued(terminal, address)
    const failed = await client.priv("POST", "tx_send_report", { txId: item.txId, result: "failed" })
    assert.strictEqual(failed.status, 200, JSON.stringify(failed.body))
    const after = await status(pending.refundId)
    assert.deepInclude(after, { stateCode: 16, state: "Failed", txState: 16 })
    assert.isString(after.finishedAt)
    assert.deepEqual(await eth(), before)
    assert.deepInclude(await view(order.id), { state: "Paid", refundedAmount: "0" })
    // Released: the whole amount can be refunded again.
    assert.deepInclude(await refundOk(order.id, { amount: "1", refundAddress: address }), { state: "Pending" })
  })

  it("the merchant cancels the Queued C15 Refund (cancel_tx) → Failed, money back", async () => {
    const { order } = await paidOrder()
    const before = await eth()
    const pending = await refundOk(order.id, { amount: "0.5", refundAddress: someEvmAddress() })
    // The chain side is a C15 Refund (typeTx 19) beside the refund's own transaction: cancel_tx, not cancel_withdraw.
    const history = await client.call("GET", "/core/v1/wallet/get_history_transactions?limit=100&typeTx=19", {
      sid: merchant.sid
    })
    const onChain = ((history.body.result ?? []) as Array<any>).find(
      (r) => String(r.id) !== pending.refundId && (r.amount === "0.5" || r.amount === 0.5)
    )
    assert.isDefined(onChain, JSON.stringify(history.body))
    assertRejected(
      await client.call("POST", `/core/v1/wallet/cancel_withdraw?id=${onChain.id}`, { sid: merchant.sid }),
      404,
      errorCode.TransactionNotFound
    )
    const canceled = await client.call("POST", `/core/v1/wallet/cancel_tx?id=${onChain.id}`, {
      sid: merchant.sid
    })
    assert.strictEqual(canceled.status, 200, JSON.stringify(canceled.body))
    assert.deepInclude(await status(pending.refundId), { state: "Failed", stateCode: 16 })
    assert.deepEqual(await eth(), before)
  })

  it("a C15 Refund on a terminal with a networkFee: sends payoutAmount − networkFee, charged once; 10233 at or below it", async () => {
    await setup()
    const t = await addCryptoTerminal(client, { confirmations: 3, networkFee: "0.01" })
    const put = await merchantCall("POST", "put_payment_order", {
      currency: "ETH",
      orderAmount: "1",
      externalId: `crypto-refund-order-${next++}`
    })
    const order = put.body.result as { id: string; code: string }
    const started = await gateOk("pay_crypto", order.code, { tokenNetworkId: t.id })
    await blockOk(client, t.id, "n", 1, [{ txHash: "pay", to: started.address.address, amount: "1.01" }])
    await emptyBlocks(client, t.id, "n", 2, 3)
    const before = { m: await eth(), fees: await feesFree(), users: await users() }
    assertRejected(
      await refund(order.id, { amount: "0.01", refundAddress: someEvmAddress() }),
      400,
      errorCode.RefundBelowNetworkFee
    )
    assert.deepEqual(await eth(), before.m, "nothing moved")
    const address = someEvmAddress()
    const pending = await refundOk(order.id, { amount: "0.4", refundAddress: address })
    const item = await queued(t.id, address)
    assert.deepInclude(item, { kind: "Refund", amount: "0.39", currency: "ETH" })
    const info = await client.call("POST", "/core/v1/address_tx_info", { sid: merchant.sid, body: [item.txId] })
    assert.deepInclude(info.body.result[0], { typeTx: 19, amount: "0.39", fee: "0.01", networkFee: "0.01" })
    await client.priv("POST", "tx_send_report", { txId: item.txId, result: "broadcast", txHash: "n4" })
    await blockOk(client, t.id, "n", 4, [
      { txHash: "n4", direction: "out", to: address, amount: "0.39", txId: item.txId }
    ])
    await emptyBlocks(client, t.id, "n", 5, 6)
    assert.deepInclude(await status(pending.refundId), { state: "Finished" })
    const m = await eth()
    close(m.free - before.m.free, -0.401, "the merchant pays amount + the Refund fee, no more")
    close(m.lockOut - before.m.lockOut, 0, "lock_out spent")
    close((await feesFree()) - before.fees, 0.001, "the Refund fee")
    // Treasury +0.4 = 0.39 sent + the 0.01 network fee it pays the chain: read as minus the user wallets.
    close((await users()) - before.users, -0.4, "Treasury +payoutAmount")
  })

  it("10323 without refundAddress, 10204 for an address not of the order's network; nothing moves", async () => {
    const { order } = await paidOrder()
    const before = await eth()
    assertRejected(await refund(order.id, { amount: "0.1" }), 400, errorCode.RefundAddressRequired, "", "refundAddress")
    assertRejected(
      await refund(order.id, { amount: "0.1", refundAddress: "0x1234" }),
      400,
      errorCode.InvalidAddress,
      "",
      "refundAddress"
    )
    assertRejected(
      await refund(order.id, { amount: "0.1", refundAddress: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t" }),
      400,
      errorCode.InvalidAddress
    )
    assert.deepEqual(await eth(), before)
    assert.deepInclude(await view(order.id), { refunds: [] })
  })

  it("memo networks: the refund goes to the address with no memo; an address of another network 10204", async () => {
    await setup()
    const t = await addCryptoTerminal(client, {
      typeNetwork: 5,
      typeContract: 0,
      addressContract: null,
      currencyId: "USDC",
      decimals: 6,
      defaultHotAddress: SOLANA_HOT,
      confirmations: 1
    })
    const put = await merchantCall("POST", "put_payment_order", {
      currency: "USDC",
      orderAmount: "2",
      externalId: `crypto-refund-order-${next++}`
    })
    assert.strictEqual(put.status, 200, JSON.stringify(put.body))
    const order = put.body.result as { id: string; code: string }
    const started = await gateOk("pay_crypto", order.code, { tokenNetworkId: t.id })
    await blockOk(client, t.id, "s", 1, [
      { txHash: "spay", to: SOLANA_HOT, memo: started.address.memo, amount: started.totalToPay }
    ])
    assert.strictEqual((await view(order.id)).state, "Paid")
    const before = await client.bucketsOf(merchant, "USDC")
    assertRejected(
      await refund(order.id, { amount: "1", refundAddress: "0x9858EfFD232B4033E47d90003D41EC34EcaEda94" }),
      400,
      errorCode.InvalidAddress,
      "",
      "refundAddress"
    )
    const payer = "11111111111111111111111111111111"
    const pending = await refundOk(order.id, { amount: "1", refundAddress: payer })
    assert.deepInclude(pending, { state: "Pending", destination: "Crypto", payoutCurrency: "USDC" })
    const item = await queued(t.id, payer)
    assert.deepInclude(item, { amount: "1", currency: "USDC" })
    assert.isNull(item.memo, "no memo")
    const failed = await client.priv("POST", "tx_send_report", { txId: item.txId, result: "failed" })
    assert.strictEqual(failed.status, 200, JSON.stringify(failed.body))
    assert.strictEqual((await status(pending.refundId)).state, "Failed")
    assert.deepEqual(await client.bucketsOf(merchant, "USDC"), before)
  })

  it("10 concurrent refunds of 0.3 on a paid 1: three Pending, the rest 10321, money reserved three times", async () => {
    const { terminal, order } = await paidOrder()
    const before = await eth()
    const address = someEvmAddress()
    const replies = await Promise.all(
      Array.from({ length: 10 }, () => refund(order.id, { amount: "0.3", refundAddress: address }))
    )
    const accepted = replies.filter((r) => r.status === 200)
    for (const r of replies)
      if (r.status !== 200) assertRejected(r, 400, errorCode.RefundExceedsPaid, JSON.stringify(r.body))
    assert.strictEqual(accepted.length, 3)
    const m = await eth()
    close(m.free - before.free, -0.903, "three reserves")
    close(m.lockOut - before.lockOut, 0.903, "three reserves locked")
    const listed = await client.priv("GET", `list_txs_to_send?tokenNetwork=${terminal}&limit=1000`)
    assert.strictEqual((listed.body.result as Array<any>).filter((i) => i.toAddress === address).length, 3)
    const o = await view(order.id)
    const pendingSum = (o.refunds as Array<any>)
      .filter((r) => r.state !== "Failed")
      .reduce((s, r) => s + Number(r.amount), 0)
    assert.isAtMost(pendingSum, 1)

    // The signer fails all three while 3 more refunds race them: every report is taken (a failure that
    // lost the order's row to a refund is judged again), Σ pending ≤ paid, lock_out = Σ pending (+ fees).
    const handed = (listed.body.result as Array<any>).filter((i) => i.toAddress === address)
    const raced = await Promise.all([
      ...handed.map((i) => client.priv("POST", "tx_send_report", { txId: i.txId, result: "failed" })),
      ...Array.from({ length: 3 }, () => refund(order.id, { amount: "0.3", refundAddress: address }))
    ])
    for (const r of raced.slice(0, 3)) assert.strictEqual(r.status, 200, JSON.stringify(r.body))
    for (const r of raced.slice(3))
      if (r.status !== 200) assertRejected(r, 400, errorCode.RefundExceedsPaid, JSON.stringify(r.body))
    const after = await view(order.id)
    const live = (after.refunds as Array<any>).filter((r) => r.state === "Pending")
    assert.strictEqual((after.refunds as Array<any>).filter((r) => r.state === "Failed").length, 3)
    assert.isAtMost(live.length, 3)
    assert.strictEqual(live.length, raced.slice(3).filter((r) => r.status === 200).length)
    const held = await eth()
    close(held.lockOut - before.lockOut, live.length * 0.301, "lock_out holds the pending refunds only")
    close(held.free - before.free, -live.length * 0.301, "the failed ones are back in free")
  })
})
