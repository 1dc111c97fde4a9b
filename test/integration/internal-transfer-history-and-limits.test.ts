/**
 * Internal transfers over real HTTP against the real service process, after the two steps: cancel_tx,
 * the TransferSent/TransferReceived events, get_tx_info and history for both parties, amount
 * validation, and estimate_fee for transfers. Balances are read through each party's own session;
 * after every test the ledger audit must show every currency summing to "0" and no user bucket below
 * zero.
 */
import { assert, describe, it } from "@effect/vitest"
import type { Party } from "../support/Client.ts"
import { assertRejected, exact, TxState, TxType } from "../support/Fixtures.ts"
import { innerFee, internalTransferFile, selfFee } from "../support/InternalTransfer.ts"

const { InternalTx } = TxType
const { Canceled, Finished } = TxState

const { client, party, assertBuckets, transfer, begin, confirm, sendAndSettle, txInfo, txOf, eventsOfTx } =
  internalTransferFile()

describe("cancel_tx", () => {
  const cancel = (who: Party, query: string) =>
    client.call("POST", `/core/v1/wallet/cancel_tx${query}`, { sid: who.sid })

  it("the sender cancels a pending transfer by id: the reservation returns and the state is Canceled (16)", async () => {
    const sender = await party()
    const recipient = await party({ fund: "0" })
    const body = { recipient: recipient.id, amount: 10 }
    const one = await begin(sender, body)
    await assertBuckets(sender, 89.4, 10.6)
    const reply = await cancel(sender, `?id=${one.txId}`)
    assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
    assert.strictEqual(reply.body.result.txId, one.txId)
    assert.isString(reply.body.result.idUpdate)
    await assertBuckets(sender, 100, 0)
    await assertBuckets(recipient, 0, 0)
    for (const who of [sender, recipient]) {
      const tx = await txOf(who, one.txId)
      assert.strictEqual(tx.txState, Canceled)
      assert.strictEqual(tx.state, "Canceled")
    }
    // Step two after the cancel finds nothing to confirm; a second cancel neither.
    assertRejected(await confirm(sender, body, one.txId, one.confirmationCode!), 400, 10082, "step two after cancel")
    assertRejected(await cancel(sender, `?id=${one.txId}`), 400, 10082, "second cancel")
    await assertBuckets(sender, 100, 0)
  })

  it("both or neither of code and id is 400 / 10001", async () => {
    const sender = await party()
    const recipient = await party({ fund: "0" })
    const one = await begin(sender, { recipient: recipient.id, amount: 1 })
    assertRejected(await cancel(sender, ""), 400, 10001, "neither")
    assertRejected(await cancel(sender, `?id=${one.txId}&code=ABC`), 400, 10001, "both")
    await assertBuckets(sender, 100 - 1.51, 1.51)
    assert.strictEqual((await cancel(sender, `?id=${one.txId}`)).status, 200)
  })

  it("cancelling a settled transfer is 10082; the recipient or a stranger cannot cancel a pending one (10082)", async () => {
    const sender = await party()
    const recipient = await party({ fund: "0" })
    const stranger = await party()
    const settled = await sendAndSettle(sender, { recipient: recipient.id, amount: 2 })
    assertRejected(await cancel(sender, `?id=${settled.txId}`), 400, 10082, "settled")
    assert.strictEqual((await txOf(sender, settled.txId)).txState, Finished)
    const pending = await begin(sender, { recipient: recipient.id, amount: 3 })
    for (const who of [recipient, stranger]) assertRejected(await cancel(who, `?id=${pending.txId}`), 400, 10082)
    await assertBuckets(sender, 100 - 2.52 - 3.53, 3.53)
    await assertBuckets(recipient, 2, 0)
    assert.strictEqual(
      (await confirm(sender, { recipient: recipient.id, amount: 3 }, pending.txId, pending.confirmationCode!)).status,
      200
    )
    await assertBuckets(recipient, 5, 0)
  })
})

describe("notifications (SPEC Events 1)", () => {
  it("after settling, the sender gets TransferSent and the recipient TransferReceived, each with the txId", async () => {
    const sender = await party()
    const recipient = await party({ fund: "0" })
    const one = await begin(sender, { recipient: recipient.id, amount: 4 })
    assert.isEmpty(
      (await eventsOfTx(one.txId)).filter((e) => e.kind === "TransferSent" || e.kind === "TransferReceived"),
      "nothing before step two"
    )
    assert.strictEqual(
      (await confirm(sender, { recipient: recipient.id, amount: 4 }, one.txId, one.confirmationCode!)).status,
      200
    )
    const events = await eventsOfTx(one.txId)
    const sent = events.filter((e) => e.kind === "TransferSent")
    const received = events.filter((e) => e.kind === "TransferReceived")
    assert.strictEqual(sent.length, 1)
    assert.strictEqual(received.length, 1)
    assert.strictEqual(sent[0].walletId, sender.id)
    assert.strictEqual(received[0].walletId, recipient.id)
    for (const e of [...sent, ...received]) {
      assert.strictEqual(e.payload.txId, one.txId)
      assert.strictEqual(e.payload.currency, "USDT")
      // Amounts in currency units as exact decimal strings (C5), not the ledger's minor units.
      assert.strictEqual(e.payload.amount, "4")
      assert.isString(e.id)
      assert.isFalse(Number.isNaN(Date.parse(e.dateUTC)))
    }
    assert.strictEqual(sent[0].payload.fee, "0.54")
    assert.strictEqual(sent[0].payload.to, recipient.id)
    assert.strictEqual(received[0].payload.from, sender.id)
    assert.isTrue(BigInt(sent[0].id) !== BigInt(received[0].id))
  })
})

describe("reads: get_tx_info and history", () => {
  it("get_tx_info shows the transfer to both parties (Processing, then Finished) and 404 / 10083 to a third wallet", async () => {
    const sender = await party()
    const recipient = await party({ fund: "0" })
    const third = await party({ fund: "0" })
    const body = { recipient: recipient.id, amount: 6, tag: "rent" }
    const one = await begin(sender, body)
    for (const who of [sender, recipient]) {
      const tx = await txOf(who, one.txId)
      assert.strictEqual(tx.id, one.txId)
      assert.strictEqual(tx.state, "Processing")
      assert.strictEqual(tx.txState & (Finished | Canceled), 0)
      assert.strictEqual(tx.typeTx, InternalTx)
      assert.strictEqual(tx.walletFrom, sender.id)
      assert.strictEqual(tx.walletTo, recipient.id)
      assert.strictEqual(tx.currency, "USDT")
      assert.strictEqual(tx.amount, 6)
      assert.strictEqual(tx.fee, 0.56)
      assert.strictEqual(tx.tag, "rent")
    }
    assertRejected(await txInfo(third, one.txId), 404, 10083, "third wallet while pending")
    assert.strictEqual((await confirm(sender, body, one.txId, one.confirmationCode!)).status, 200)
    for (const who of [sender, recipient]) {
      const tx = await txOf(who, one.txId)
      assert.strictEqual(tx.state, "Finished")
      assert.strictEqual(tx.txState, Finished)
    }
    assertRejected(await txInfo(third, one.txId), 404, 10083, "third wallet after settling")
  })

  it("get_history_transactions lists it in both wallets' histories and not in a third's", async () => {
    const sender = await party()
    const recipient = await party({ fund: "0" })
    const third = await party({ fund: "0" })
    const one = await sendAndSettle(sender, { recipient: recipient.id, amount: 7 })
    const historyOf = async (who: Party) => {
      const reply = await client.call("GET", "/core/v1/wallet/get_history_transactions?limit=100", { sid: who.sid })
      assert.strictEqual(reply.status, 200)
      return reply.body.result as Array<any>
    }
    for (const who of [sender, recipient]) {
      const row = (await historyOf(who)).find((r) => r.id === one.txId)
      assert.isDefined(row, who === sender ? "sender" : "recipient")
      assert.strictEqual(row.typeTx, InternalTx)
      assert.strictEqual(row.state, "Finished")
      assert.strictEqual(row.amount, 7)
      assert.strictEqual(row.fee, 0.57)
    }
    assert.isUndefined((await historyOf(third)).find((r) => r.id === one.txId))
  })
})

describe("amount validation", () => {
  it("more decimals than the currency is 400 / 10021; an unknown currency 400 / 10020; nothing moves", async () => {
    const sender = await party()
    const recipient = await party({ fund: "0" })
    assertRejected(
      await transfer(sender.sid, { recipient: recipient.id, amount: "1.0000001" }),
      400,
      10021,
      "7 decimals of USDT"
    )
    assertRejected(
      await transfer(sender.sid, { recipient: recipient.id, currency: "EUR", amount: 1.005 }),
      400,
      10021,
      "3 decimals of EUR"
    )
    assertRejected(
      await transfer(sender.sid, { recipient: recipient.id, currency: "NOPE", amount: 1 }),
      400,
      10020,
      "unknown currency"
    )
    for (const amount of [0, -1, "abc"]) {
      assertRejected(await transfer(sender.sid, { recipient: recipient.id, amount }), 400, 10001, `amount ${amount}`)
    }
    await assertBuckets(sender, 100, 0)
  })
})

describe("estimate_fee for transfers", () => {
  it("prices a plain transfer by the InnerTransfer tariff and, given a recipient of the same client, by SelfTransfer", async () => {
    const sender = await party()
    const sibling = await party({ clientId: sender.clientId, fund: "0" })
    const stranger = await party({ fund: "0" })
    const estimate = (recipient: string) =>
      client.call(
        "GET",
        `/core/v1/estimate_fee?tx_type=InnerTransfer&currency=USDT&amount=10&recipient=${encodeURIComponent(recipient)}`,
        { sid: sender.sid }
      )
    const plain = await estimate(stranger.address)
    assert.strictEqual(plain.status, 200)
    assert.strictEqual(plain.body.result.txClass, "InnerTransfer")
    assert.strictEqual(plain.body.result.fee, innerFee(10))
    const self = await estimate(sibling.address)
    assert.strictEqual(self.body.result.txClass, "SelfTransfer")
    assert.strictEqual(self.body.result.fee, selfFee)
    // The estimate is the fee step one then charges.
    const step = await transfer(sender.sid, { recipient: sibling.address, amount: 10 })
    assert.strictEqual(step.body.result.fee, self.body.result.fee)
    const unknown = await estimate("W0000000000000000000000000")
    assert.strictEqual(unknown.body.error?.code, 10030)
  })
})
