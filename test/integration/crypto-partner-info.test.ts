/**
 * Partner info and refunds over HTTP (C15 "Partner info and refunds"): a deposit on a
 * RequirePartnerInfo terminal is held at finality until its partner info is sealed; sealing credits
 * it; init_refund moves it to lock_out and queues a Refund; every refusal with its code.
 */
import { assert, describe, it } from "@effect/vitest"
import type { Party, TestClient } from "../support/Client.ts"
import { addCryptoTerminal, emptyBlocks, pushOk, someEvmAddress, txInfo } from "../support/Chain.ts"
import { assertRejected, errorCode, serviceForFile, TxState } from "../support/Fixtures.ts"

const { client } = serviceForFile({
  setup: (c) => c.setTariffs([{ txClass: "Deposit", currency: "ETH", feeFixed: "0.01", feePercent: "0" }])
})

/** A deposit of `amount` ETH to `party` on a fresh terminal (linked while unconfirmed), `blocks` blocks deep. */
const heldDeposit = async (
  c: TestClient,
  party: Party,
  options: { amount?: string; blocks?: number; flags?: number; networkFee?: string | null; from?: string | null } = {}
) => {
  const t = await addCryptoTerminal(c, {
    flags: options.flags ?? 1 | 8,
    confirmations: 2,
    networkFee: options.networkFee ?? "0.002"
  })
  const pushed = await pushOk(c, t.id, {
    height: 1,
    hash: "p1",
    parentHash: "p0",
    items: [
      {
        txHash: "pi1",
        to: someEvmAddress(),
        from: options.from === undefined ? someEvmAddress() : options.from,
        amount: options.amount ?? "1"
      }
    ]
  })
  const txId = pushed.items[0].txId!
  const linked = await c.priv("POST", "link_address_transactions", [{ txId, walletId: party.id }])
  assert.isNull(linked.body.result[0].error, JSON.stringify(linked.body))
  if ((options.blocks ?? 2) >= 2) await emptyBlocks(c, t.id, "p", 2, options.blocks ?? 2)
  return { terminal: t, txId }
}

const seal = (sid: string, body: Record<string, unknown>) =>
  client.call("POST", "/core/v1/wallet/update_tx_partner_info", { sid, body })
const refund = (sid: string, txId: string) =>
  client.call("POST", "/core/v1/wallet/init_refund", { sid, body: { txId } })

describe("partner info holds", () => {
  it("a final deposit on a RequirePartnerInfo terminal is held in lock_in until sealed, then credited", async () => {
    const payer = await client.party()
    const { txId } = await heldDeposit(client, payer)
    assert.strictEqual((await txInfo(client, payer.sid, txId)).txState, TxState.Created | TxState.Confirmed)
    assert.deepStrictEqual(await client.bucketsOf(payer, "ETH"), { free: 0, lockOut: 0, lockIn: 1, lockOrders: 0 })
    const sealed = await seal(payer.sid, { txId, partnerInfo: "ACME Ltd, invoice 42", description: "goods" })
    assert.strictEqual(sealed.status, 200, JSON.stringify(sealed.body))
    assert.strictEqual(sealed.body.result.txState, TxState.Finished)
    assert.deepStrictEqual(await client.bucketsOf(payer, "ETH"), { free: 0.99, lockOut: 0, lockIn: 0, lockOrders: 0 })
    assertRejected(
      await seal(payer.sid, { txId, partnerInfo: "again" }),
      400,
      errorCode.PartnerInfoSealed,
      "sealed",
      "txId"
    )
  })

  it("sealed before finality, the deposit is credited when final", async () => {
    const payer = await client.party()
    const { terminal, txId } = await heldDeposit(client, payer, { blocks: 1 })
    const sealed = await seal(payer.sid, { txId, partnerInfo: "early" })
    assert.strictEqual(sealed.body.result.txState, TxState.Created)
    await emptyBlocks(client, terminal.id, "p", 2, 2)
    assert.strictEqual((await txInfo(client, payer.sid, txId)).txState, TxState.Finished)
    assert.strictEqual((await client.bucketsOf(payer, "ETH")).free, 0.99)
  })

  it("refuses others' Incomes (404 10083), terminals without the flag (10230) and malformed bodies (10001)", async () => {
    const payer = await client.party()
    const other = await client.party()
    const { txId } = await heldDeposit(client, payer)
    assertRejected(await seal(other.sid, { txId, partnerInfo: "x" }), 404, errorCode.TransactionNotFound, "other")
    assertRejected(await seal(payer.sid, { txId, partnerInfo: "" }), 400, errorCode.InvalidRequest, "empty")
    assertRejected(await seal(payer.sid, { txId, partnerInfo: "x".repeat(101) }), 400, errorCode.InvalidRequest, "long")
    const plain = await heldDeposit(client, payer, { flags: 1 })
    assertRejected(await seal(payer.sid, { txId: plain.txId, partnerInfo: "x" }), 400, errorCode.PartnerInfoNotRequired)
  })
})

describe("init_refund", () => {
  it("moves the held deposit to lock_out and queues a Refund of A − networkFee to its source", async () => {
    const payer = await client.party()
    const from = someEvmAddress()
    const { txId } = await heldDeposit(client, payer, { from })
    const reply = await refund(payer.sid, txId)
    assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
    const out = reply.body.result
    assert.deepStrictEqual(
      { incomeTxId: out.incomeTxId, toAddress: out.toAddress, amount: out.amount, networkFee: out.networkFee },
      { incomeTxId: txId, toAddress: from, amount: "0.998", networkFee: "0.002" }
    )
    assert.deepStrictEqual(await client.bucketsOf(payer, "ETH"), { free: 0, lockOut: 1, lockIn: 0, lockOrders: 0 })
    const row = await txInfo(client, payer.sid, out.txId)
    assert.deepStrictEqual([row.typeTx, row.txState, row.amount, row.fee], [19, 3, 0.998, 0.002])
    assertRejected(await refund(payer.sid, txId), 400, errorCode.IncomeNotRefundable, "twice", "txId")
    assertRejected(await seal(payer.sid, { txId, partnerInfo: "late" }), 400, errorCode.PartnerInfoSealed, "refunding")
  })

  it("refuses what is not held (10232), a deposit without source (10232) and one not above the network fee (10233)", async () => {
    const payer = await client.party()
    const unconfirmed = await heldDeposit(client, payer, { blocks: 1 })
    assertRejected(await refund(payer.sid, unconfirmed.txId), 400, errorCode.IncomeNotRefundable, "not final")
    const sourceless = await heldDeposit(client, payer, { from: null })
    assertRejected(await refund(payer.sid, sourceless.txId), 400, errorCode.IncomeNotRefundable, "no from")
    const tiny = await heldDeposit(client, payer, { amount: "0.002" })
    assertRejected(await refund(payer.sid, tiny.txId), 400, errorCode.RefundBelowNetworkFee, "tiny")
    const other = await client.party()
    assertRejected(await refund(other.sid, tiny.txId), 404, errorCode.TransactionNotFound, "other")
  })
})
