/**
 * C19 §9 over HTTP: crypto rails an attacker (or a confused signer) could take money through.
 * - The attack: a late `failed` report after a broadcast used to return withdrawn funds that still
 *   confirmed on chain. Now it is 400 10413, the money stays out, and the chain settles it once.
 * - release_withdrawal (admin keys only; a signer key is 403 10405): a Broadcast item whose txHash is in no
 *   pushed block ends Failed with its money back; one whose hash a scanner pushed, or that is not Broadcast,
 *   is 10413. Reports and releases are idempotent.
 * - pay_crypto reuses the order's detached address on a terminal and gives an order at most
 *   PAYMENT_MAX_ADDRESSES_PER_ORDER distinct addresses (here 3), then 10412 before the order moves.
 * The ledger audit runs after every test (serviceForFile).
 */
import { assert, describe, it } from "@effect/vitest"
import { addCryptoTerminal, type ItemIn, pushOk } from "../support/Chain.ts"
import { XPUB_ETH } from "../support/CryptoAddresses.ts"
import { ethAddress, usdtFee, withdrawFile } from "../support/CryptoWithdrawals.ts"
import { assertRejected, errorCode, TxState } from "../support/Fixtures.ts"
import { merchantOf } from "../support/Merchant.ts"

const signerKey = "signer-" + "4f6b0c1d2e3f40516273849506a7b8c9"
const { service, client, terminals, queue, list, report, txOf, assertBuckets, party } = withdrawFile({
  env: {
    XPUB_ETHEREUM: XPUB_ETH,
    SERVICE_KEYS: `{key},signer:${signerKey}`,
    PAYMENT_MAX_ADDRESSES_PER_ORDER: "3"
  }
})
const shop = merchantOf(client)

/** The USDT terminal's chain: each push extends it by one block. */
let height = 0
const push = (items: ReadonlyArray<ItemIn> = []) => {
  height++
  return pushOk(client, terminals.usdt, { height, hash: `tr${height}`, parentHash: `tr${height - 1}`, items })
}

/** A withdrawal of `amount` USDT to ethAddress, handed off to the signer (listed) and then broadcast with `txHash`. */
const broadcast = async (who: Awaited<ReturnType<typeof party>>, amount: number, txHash: string | null) => {
  const one = await queue(who, { amount })
  const listed = await list({ tokenNetwork: terminals.usdt, cursor: "0", limit: 1000 })
  assert.include(
    (listed.body.result as Array<any>).map((i) => i.txId),
    one.txId
  )
  if (txHash !== null) {
    const sent = await report({ txId: one.txId, result: "broadcast", txHash })
    assert.strictEqual(sent.status, 200, JSON.stringify(sent.body))
  }
  return one
}

const signer = (action: string, body: unknown) =>
  client.call("POST", `/private/v1/${action}`, { body, headers: { authorization: `Bearer ${signerKey}` } })

describe("tx_send_report after a broadcast (the issue's attack)", () => {
  it("a late failed report is 10413 and returns nothing; the withdrawal still confirms on chain and settles once", async () => {
    const who = await party()
    const one = await broadcast(who, 10, "late1")
    const out = { free: 100 - 10 - usdtFee(10), lockOut: 10 + usdtFee(10) }
    // The same request the attack sent, with the signer's own key and with the admin key.
    for (const send of [
      () => signer("tx_send_report", { txId: one.txId, result: "failed" }),
      () => report({ txId: one.txId, result: "failed", message: "nonce too low" })
    ]) {
      assertRejected(await send(), 400, errorCode.WithdrawalBroadcast, "failed after broadcast", "txId")
      await assertBuckets(who, out.free, out.lockOut, "USDT", "nothing returned")
    }
    // The chain shows it: bound, then final; the money leaves once.
    await push([{ txHash: "late1", direction: "out", to: ethAddress, amount: "10", txId: one.txId }])
    for (let i = 0; i < 12; i++) await push()
    assert.strictEqual((await txOf(who, one.txId)).txState, TxState.Finished)
    await assertBuckets(who, out.free, 0, "USDT", "settled")
    assertRejected(await report({ txId: one.txId, result: "failed" }), 400, errorCode.SendReportRefused, "final")
    await assertBuckets(who, out.free, 0, "USDT", "still settled")
  })

  it("reports are idempotent: a repeated broadcast keeps Broadcast, a repeated failed answers the first answer", async () => {
    const who = await party()
    const one = await broadcast(who, 3, null)
    const first = await report({ txId: one.txId, result: "failed" })
    assert.strictEqual(first.status, 200, JSON.stringify(first.body))
    assert.strictEqual(first.body.result.stage, "Failed")
    await assertBuckets(who, 100, 0)
    const again = await signer("tx_send_report", { txId: one.txId, result: "failed" })
    assert.strictEqual(again.status, 200, JSON.stringify(again.body))
    assert.deepStrictEqual(again.body.result, first.body.result)
    await assertBuckets(who, 100, 0, "USDT", "returned once")
    const two = await broadcast(who, 4, "idem2")
    for (let i = 0; i < 2; i++) {
      const sent = await report({ txId: two.txId, result: "broadcast", txHash: "idem2" })
      assert.strictEqual(sent.status, 200, JSON.stringify(sent.body))
      assert.strictEqual(sent.body.result.stage, "Broadcast")
    }
    const released = await client.priv("POST", "release_withdrawal", { txId: two.txId })
    assert.strictEqual(released.status, 200, JSON.stringify(released.body))
    await assertBuckets(who, 100, 0)
  })
})

describe("release_withdrawal", () => {
  it("admin only: a signer key is 403 10405 and nothing moves", async () => {
    const who = await party()
    const one = await broadcast(who, 5, "scope1")
    assertRejected(await signer("release_withdrawal", { txId: one.txId }), 403, errorCode.KeyScope)
    await assertBuckets(who, 100 - 5 - usdtFee(5), 5 + usdtFee(5))
    const released = await client.priv("POST", "release_withdrawal", { txId: one.txId })
    assert.strictEqual(released.status, 200, JSON.stringify(released.body))
  })

  it("a Broadcast item whose txHash is in no pushed block: Failed, Canceled, amount + fee back to free; once", async () => {
    const who = await party()
    const one = await broadcast(who, 7, "lost1")
    await push([]) // blocks go by without it
    const released = await client.priv("POST", "release_withdrawal", { txId: one.txId })
    assert.strictEqual(released.status, 200, JSON.stringify(released.body))
    assert.deepInclude(released.body.result, { txId: one.txId, stage: "Failed", txState: TxState.Canceled })
    await assertBuckets(who, 100, 0)
    assert.strictEqual((await txOf(who, one.txId)).txState, TxState.Canceled)
    const listed = await list({ tokenNetwork: terminals.usdt, cursor: "0", limit: 1000 })
    assert.notInclude(
      (listed.body.result as Array<any>).map((i) => i.txId),
      one.txId,
      "off the queue"
    )
    const again = await client.priv("POST", "release_withdrawal", { txId: one.txId })
    assert.strictEqual(again.status, 200, JSON.stringify(again.body))
    assert.deepStrictEqual(again.body.result, released.body.result)
    await assertBuckets(who, 100, 0, "USDT", "returned once")
    assertRejected(
      await report({ txId: one.txId, result: "broadcast", txHash: "lost1" }),
      400,
      errorCode.SendReportRefused
    )
  })

  it("10413: its txHash is in a pushed block, it is only HandedOff, or it is already on chain", async () => {
    const who = await party()
    // A scanner pushed an out item of this hash that did not bind (another amount): it is on chain.
    const seen = await broadcast(who, 6, "seen1")
    await push([{ txHash: "seen1", direction: "out", to: ethAddress, amount: "5" }])
    assertRejected(
      await client.priv("POST", "release_withdrawal", { txId: seen.txId }),
      400,
      errorCode.WithdrawalBroadcast,
      "in a block",
      "txId"
    )
    const handed = await broadcast(who, 2, null)
    assertRejected(
      await client.priv("POST", "release_withdrawal", { txId: handed.txId }),
      400,
      errorCode.WithdrawalBroadcast,
      "HandedOff",
      "txId"
    )
    const bound = await broadcast(who, 1, "bound1")
    await push([{ txHash: "bound1", direction: "out", to: ethAddress, amount: "1", txId: bound.txId }])
    assertRejected(
      await client.priv("POST", "release_withdrawal", { txId: bound.txId }),
      400,
      errorCode.WithdrawalBroadcast,
      "on chain",
      "txId"
    )
    await assertBuckets(who, 100 - 9 - usdtFee(6) - usdtFee(2) - usdtFee(1), 9 + usdtFee(6) + usdtFee(2) + usdtFee(1))
    assertRejected(
      await client.priv("POST", "release_withdrawal", { txId: "123456789" }),
      404,
      errorCode.TransactionNotFound
    )
    // Leave nothing in flight that the test could not end: the HandedOff one fails, the unbound one stays out.
    assert.strictEqual((await report({ txId: handed.txId, result: "failed" })).status, 200)
  })
})

describe("pay_crypto addresses (PAYMENT_MAX_ADDRESSES_PER_ORDER=3)", () => {
  it("a terminal where the order had an address reuses it; a 4th distinct address is 10412 and the order does not move", async () => {
    const merchant = await client.party()
    const app = await shop.createApp(merchant.id, "Address shop")
    const order = shop.ok(
      await shop.call(app, "POST", "put_payment_order", { currency: "ETH", orderAmount: "1", externalId: "addr-1" })
    ) as { code: string; id: string }
    const gate = (action: string, body: unknown) => shop.gate("POST", action, order.code, body)
    const ts = [] as Array<string>
    for (let i = 0; i < 4; i++) ts.push((await addCryptoTerminal(client)).id)
    const given = [] as Array<string>
    for (const t of ts.slice(0, 3)) {
      const started = shop.ok(await gate("pay_crypto", { tokenNetworkId: t }))
      given.push(started.address.address)
      shop.ok(await gate("cancel_crypto", {}))
    }
    assert.strictEqual(new Set(given).size, 3)
    // Back on the first terminal: the same address, not a 4th.
    const back = shop.ok(await gate("pay_crypto", { tokenNetworkId: ts[0] }))
    assert.strictEqual(back.address.address, given[0])
    shop.ok(await gate("cancel_crypto", {}))
    const before = shop.ok(await shop.gate("GET", "get_order_info", order.code))
    assertRejected(
      await gate("pay_crypto", { tokenNetworkId: ts[3] }),
      400,
      errorCode.TooManyOrderAddresses,
      "4th",
      "tokenNetworkId"
    )
    const after = shop.ok(await shop.gate("GET", "get_order_info", order.code))
    assert.deepInclude(after, { state: before.state, stateCode: before.stateCode, terminal: null, address: null })
    // The ones it had still work.
    const again = shop.ok(await gate("pay_crypto", { tokenNetworkId: ts[1] }))
    assert.strictEqual(again.address.address, given[1])
    assert.isDefined(service().base)
  })
})
