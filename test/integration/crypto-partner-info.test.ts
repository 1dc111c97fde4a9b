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

describe('a deep reorg of a deposit whose refund is under way (C15 "Orphaned block")', () => {
  /** A held deposit of 1 ETH at height 2 (2 confirmations, final at tip 3) with its refund initiated. */
  const refunding = async () => {
    const payer = await client.party()
    const t = await addCryptoTerminal(client, { flags: 1 | 8, confirmations: 2, networkFee: "0.002" })
    await pushOk(client, t.id, { height: 1, hash: "d1", parentHash: "d0" })
    const pushed = await pushOk(client, t.id, {
      height: 2,
      hash: "d2",
      parentHash: "d1",
      items: [{ txHash: "di", to: someEvmAddress(), from: someEvmAddress(), amount: "1" }]
    })
    const txId = pushed.items[0].txId!
    const linked = await client.priv("POST", "link_address_transactions", [{ txId, walletId: payer.id }])
    assert.isNull(linked.body.result[0].error, JSON.stringify(linked.body))
    await pushOk(client, t.id, { height: 3, hash: "d3", parentHash: "d2" })
    const started = await refund(payer.sid, txId)
    assert.strictEqual(started.status, 200, JSON.stringify(started.body))
    assert.deepStrictEqual(await client.bucketsOf(payer, "ETH"), { free: 0, lockOut: 1, lockIn: 0, lockOrders: 0 })
    return { payer, terminal: t.id, txId, refundTxId: started.body.result.txId as string }
  }
  const addressInfo = async (sid: string, ids: Array<string>) => {
    const reply = await client.call("POST", "/core/v1/address_tx_info", { sid, body: ids })
    assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
    return reply.body.result as Array<any>
  }
  const deepReorgOf = async (terminal: string) =>
    (await client.allEvents()).filter((e: any) => e.kind === "DeepReorg" && e.payload.tokenNetwork === terminal)

  for (const handedOff of [false, true])
    it(`cancels the deposit, stops its ${handedOff ? "HandedOff" : "Queued"} refund and lists it in DeepReorg`, async () => {
      const { payer, terminal, txId, refundTxId } = await refunding()
      if (handedOff) {
        const listed = await client.priv("GET", `list_txs_to_send?tokenNetwork=${terminal}`)
        assert.include(
          (listed.body.result as Array<any>).map((i) => i.txId),
          refundTxId
        )
      }
      // Blocks 2 and 3 replaced: 2 blocks orphaned ≥ the terminal's 2 confirmations.
      const reorg = await pushOk(client, terminal, { height: 2, hash: "e2", parentHash: "d1" })
      assert.deepStrictEqual(reorg.orphaned, [2, 3])
      const [income, out] = await addressInfo(payer.sid, [txId, refundTxId])
      assert.deepInclude(income, { txId, txState: 16, stage: "Canceled", orphaned: true })
      assert.deepInclude(out, { txId: refundTxId, typeTx: 19, txState: 16, stage: "Canceled" })
      assert.deepStrictEqual(await client.bucketsOf(payer, "ETH"), { free: 0, lockOut: 0, lockIn: 0, lockOrders: 0 })
      const queue = await client.priv("GET", `list_txs_to_send?tokenNetwork=${terminal}`)
      assert.notInclude(
        (queue.body.result as Array<any>).map((i) => i.txId),
        refundTxId,
        "never sent"
      )
      const report = await client.priv("POST", "tx_send_report", {
        txId: refundTxId,
        result: "broadcast",
        txHash: "late"
      })
      assert.strictEqual(report.status, 400, JSON.stringify(report.body))
      const [event] = await deepReorgOf(terminal)
      assert.isDefined(event, "a DeepReorg event")
      assert.include(event.payload.finishedTxIds, txId)
    })
})
