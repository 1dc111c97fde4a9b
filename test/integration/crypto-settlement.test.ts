/**
 * Withdrawals and deposit refunds settled by the chain (C15 "Withdrawals", "Partner info and
 * refunds"): an out item naming a handed-off withdrawal binds it (OnChain) and finality settles it
 * (lock_out spent, Treasury and the profit wallet paid); an orphaned binding goes back to HandedOff
 * and binds again; mismatched out items record OutgoingMismatch; a refund pays the Income's source
 * and cancels the Income as Refunded, or on failure puts it back on hold. Audit after every test.
 */
import { assert, describe, it } from "@effect/vitest"
import { addCryptoTerminal, emptyBlocks, pushOk, someEvmAddress } from "../support/Chain.ts"
import { ethAddress, withdrawFile } from "../support/CryptoWithdrawals.ts"
import { assertRejected, errorCode, TxState } from "../support/Fixtures.ts"

const { client, terminals, queue, list, report, txOf, assertBuckets, party } = withdrawFile()

const info = async (sid: string, txId: string) => {
  const reply = await client.call("POST", "/core/v1/address_tx_info", { sid, body: [txId] })
  assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
  return reply.body.result[0] as { stage: string; txState: number; orphaned: boolean; txHash: string | null }
}
const handOff = async (tokenNetwork: string, txId: string) => {
  const reply = await list({ tokenNetwork, limit: 1000 })
  assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
  assert.isTrue(
    (reply.body.result as Array<any>).some((i) => i.txId === txId),
    "handed off"
  )
}
let fork = 0

describe("withdrawals settled on chain", () => {
  it("bound by its out item, final after the terminal's confirmations: money leaves lock_out once", async () => {
    const who = await party()
    const w = await queue(who, { amount: 10 })
    await handOff(terminals.usdt, w.txId)
    assert.strictEqual((await report({ txId: w.txId, result: "broadcast", txHash: "sent1" })).status, 200)
    const f = `w${fork++}x`
    const bound = await pushOk(client, terminals.usdt, {
      height: 1,
      hash: `${f}1`,
      parentHash: `${f}0`,
      items: [
        { txHash: "sent1", direction: "out", from: someEvmAddress(), to: ethAddress, amount: "10", txId: w.txId },
        { txHash: "sent1", index: 1, direction: "out", to: ethAddress, amount: "9", txId: w.txId }
      ]
    })
    assert.deepStrictEqual(
      bound.items.map((i) => i.txId),
      [w.txId, null]
    )
    assert.strictEqual((await info(who.sid, w.txId)).stage, "OnChain")
    assertRejected(await report({ txId: w.txId, result: "failed" }), 400, errorCode.SendReportRefused, "bound")
    await assertBuckets(who, 88.4, 11.6, "USDT", "bound, not final")
    await emptyBlocks(client, terminals.usdt, f, 2, 6)
    assert.strictEqual((await txOf(who, w.txId)).txState, TxState.Finished)
    assert.strictEqual((await info(who.sid, w.txId)).stage, "Finished")
    await assertBuckets(who, 88.4, 0, "USDT", "final")
    const mismatch = (await client.allEvents()).filter(
      (e) => e.kind === "OutgoingMismatch" && (e.payload as any).txId === w.txId
    )
    assert.deepStrictEqual(
      mismatch.map((e) => (e.payload as any).index),
      ["1"]
    )
  })

  it("a binding orphaned before final goes back to HandedOff and binds again on the new branch", async () => {
    const who = await party()
    const usdt = (
      await addCryptoTerminal(client, { currencyId: "USDT", decimals: 6, networkFee: "1", confirmations: 6 })
    ).id
    const w = await queue(who, { amount: 5, tokenNetwork: usdt })
    await handOff(usdt, w.txId)
    const f = `o${fork++}x`
    await pushOk(client, usdt, { height: 100, hash: `${f}100`, parentHash: `${f}99` })
    const out = { txHash: "sent2", direction: "out" as const, to: ethAddress, amount: "5", txId: w.txId }
    await pushOk(client, usdt, { height: 101, hash: `${f}101`, parentHash: `${f}100`, items: [out] })
    assert.strictEqual((await info(who.sid, w.txId)).stage, "OnChain")
    const reorg = await pushOk(client, usdt, { height: 101, hash: `${f}y101`, parentHash: `${f}100` })
    assert.deepStrictEqual(reorg.orphaned, [101])
    assert.strictEqual((await info(who.sid, w.txId)).stage, "HandedOff")
    await assertBuckets(who, 100 - 5 - 1.55, 6.55, "USDT", "back to handed off")
    await pushOk(client, usdt, { height: 102, hash: `${f}y102`, parentHash: `${f}y101`, items: [out] })
    assert.strictEqual((await info(who.sid, w.txId)).stage, "OnChain")
    await emptyBlocks(client, usdt, `${f}y`, 103, 107)
    assert.strictEqual((await txOf(who, w.txId)).txState, TxState.Finished)
    await assertBuckets(who, 100 - 5 - 1.55, 0, "USDT", "final")
  })
})

describe("deposit refunds settled on chain", () => {
  /** A 1 ETH deposit held for partner info on a fresh terminal (networkFee 0.002, 2 confirmations). */
  const held = async () => {
    const who = await party("0")
    const t = await addCryptoTerminal(client, { flags: 1 | 2 | 8, confirmations: 2, networkFee: "0.002" })
    const from = someEvmAddress()
    const dep = await pushOk(client, t.id, {
      height: 1,
      hash: "h1",
      parentHash: "h0",
      items: [{ txHash: "in1", to: someEvmAddress(), from, amount: "1" }]
    })
    const txId = dep.items[0].txId!
    await client.priv("POST", "link_address_transactions", [{ txId, walletId: who.id }])
    await emptyBlocks(client, t.id, "h", 2, 2)
    assert.strictEqual((await info(who.sid, txId)).stage, "AwaitingPartnerInfo")
    const refund = await client.call("POST", "/core/v1/wallet/init_refund", { sid: who.sid, body: { txId } })
    assert.strictEqual(refund.status, 200, JSON.stringify(refund.body))
    return { who, t, from, txId, refundTxId: refund.body.result.txId as string }
  }

  it("paid to the Income's source and final: the Refund Finished, the Income Canceled as Refunded", async () => {
    const { who, t, from, txId, refundTxId } = await held()
    assert.strictEqual((await info(who.sid, txId)).stage, "Refunding")
    await handOff(t.id, refundTxId)
    await pushOk(client, t.id, {
      height: 3,
      hash: "h3",
      parentHash: "h2",
      items: [{ txHash: "back1", direction: "out", to: from, amount: "0.998", txId: refundTxId }]
    })
    assert.strictEqual((await info(who.sid, refundTxId)).stage, "OnChain")
    await emptyBlocks(client, t.id, "h", 4, 4)
    assert.deepStrictEqual(
      [(await info(who.sid, refundTxId)).stage, (await info(who.sid, txId)).stage],
      ["Finished", "Refunded"]
    )
    assert.strictEqual((await txOf(who, txId)).txState, TxState.Canceled)
    assert.deepStrictEqual(await client.bucketsOf(who, "ETH"), { free: 0, lockOut: 0, lockIn: 0, lockOrders: 0 })
  })

  it("a refund the signer reports failed puts the Income back on hold, to be refunded again or sealed", async () => {
    const { who, t, txId, refundTxId } = await held()
    await handOff(t.id, refundTxId)
    assert.strictEqual((await report({ txId: refundTxId, result: "failed", message: "nonce too low" })).status, 200)
    assert.deepStrictEqual(
      [(await info(who.sid, refundTxId)).stage, (await info(who.sid, txId)).stage],
      ["Failed", "AwaitingPartnerInfo"]
    )
    assert.deepStrictEqual(await client.bucketsOf(who, "ETH"), { free: 0, lockOut: 0, lockIn: 1, lockOrders: 0 })
    const sealed = await client.call("POST", "/core/v1/wallet/update_tx_partner_info", {
      sid: who.sid,
      body: { txId, partnerInfo: "known after all" }
    })
    assert.strictEqual(sealed.body.result.txState, TxState.Finished)
    assert.strictEqual((await client.bucketsOf(who, "ETH")).free, 1)
  })
})
