/**
 * The signer's queue over real HTTP (CONTRACT C15 "Withdrawals"): list_txs_to_send hands Queued
 * items off in the commit before its answer, answers them again from an earlier cursor, validates
 * its query and long-polls (202 idle, 200 when a withdrawal is confirmed during the wait); a cancel
 * racing the hand-off ends in exactly one outcome; tx_send_report records a broadcast or a failure
 * of a HandedOff item (money back; after a broadcast 10413, C19 §9); withdrawals_queued on /metrics. After every test the ledger audit must be sound.
 */
import { assert, describe, it } from "@effect/vitest"
import { assertRejected, TxState } from "../support/Fixtures.ts"
import { ethAddress, usdtFee, withdrawFile } from "../support/CryptoWithdrawals.ts"

const { service, client, terminals, begin, confirm, queue, cancel, list, report, txOf, assertBuckets, party } =
  withdrawFile()

/** Drains the USDT terminal's queue (everything is handed off) and answers the watermark after it. */
const drained = async (): Promise<string> => {
  let cursor = "0"
  for (;;) {
    const reply = await list({ tokenNetwork: terminals.usdt, cursor, limit: 1000 })
    assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
    if ((reply.body.result as Array<unknown>).length === 0) return cursor
    cursor = reply.body.cursor!
  }
}

const idsOf = (reply: { body: any }): Array<string> => (reply.body.result as Array<any>).map((item) => item.txId)

describe("list_txs_to_send", () => {
  it("answers a Queued withdrawal with every field and hands it off; from an earlier cursor it reappears", async () => {
    const from = await drained()
    const who = await party()
    const one = await queue(who, { amount: 10, tag: "t" })
    const reply = await list({ tokenNetwork: terminals.usdt, cursor: from })
    assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
    const items = reply.body.result as Array<any>
    assert.strictEqual(items.length, 1)
    const item = items[0]
    assert.deepStrictEqual(
      { ...item, queueTick: undefined },
      {
        txId: one.txId,
        kind: "Withdrawal",
        tokenNetwork: terminals.usdt,
        typeNetwork: 2,
        typeContract: 1,
        currency: "USDT",
        addressContract: "0xdAC17F958D2ee523a2206206994597C13D831ec7",
        toAddress: ethAddress,
        memo: null,
        amount: "10",
        sourceAddress: null,
        sourceDerivationIndex: null,
        queueTick: undefined
      }
    )
    assert.match(item.queueTick, /^[1-9][0-9]*$/)
    assert.isTrue(BigInt(item.queueTick) > BigInt(from))
    assert.strictEqual(reply.body.cursor, item.queueTick)
    // Handed off: the owner can no longer cancel; the money stays locked.
    assertRejected(await cancel(who, one.txId), 400, 10210, "handed off")
    await assertBuckets(who, 100 - 10 - usdtFee(10), 10 + usdtFee(10))
    // From the earlier cursor it is answered again; from its own tick not.
    assert.deepStrictEqual(idsOf(await list({ tokenNetwork: terminals.usdt, cursor: from })), [one.txId])
    const after = await list({ tokenNetwork: terminals.usdt, cursor: item.queueTick })
    assert.strictEqual(after.status, 200)
    assert.deepStrictEqual(after.body.result, [])
    assert.strictEqual(after.body.cursor, item.queueTick)
    // All terminals: it is there too.
    assert.include(idsOf(await list({ cursor: from })), one.txId)
    assert.strictEqual((await report({ txId: one.txId, result: "failed" })).status, 200)
  })

  it("orders by queue tick (step two's order, not step one's) and pages with limit and cursor", async () => {
    const from = await drained()
    const who = await party()
    const first = await begin(who, { amount: 1 })
    const second = await queue(who, { amount: 2 })
    const two = await confirm(who, first.txId, first.confirmationCode!)
    assert.strictEqual(two.status, 200)
    const page1 = await list({ tokenNetwork: terminals.usdt, cursor: from, limit: 1 })
    assert.deepStrictEqual(idsOf(page1), [second.txId])
    const page2 = await list({ tokenNetwork: terminals.usdt, cursor: page1.body.cursor, limit: 1 })
    assert.deepStrictEqual(idsOf(page2), [first.txId])
    for (const id of [first.txId, second.txId])
      assert.strictEqual((await report({ txId: id, result: "failed" })).status, 200)
    await assertBuckets(who, 100, 0)
  })

  it("validates limit (1..1000) and cursor (10001) and the terminal (404 10040)", async () => {
    for (const limit of ["0", "1001", "abc", "-1"]) assertRejected(await list({ limit }), 400, 10001, `limit ${limit}`)
    assertRejected(await list({ cursor: "-1" }), 400, 10001, "cursor -1")
    assertRejected(await list({ cursor: "x" }), 400, 10001, "cursor x")
    assertRejected(await list({ timeout: "-1" }), 400, 10001, "timeout -1")
    assertRejected(await list({ tokenNetwork: "999999" }), 404, 10040, "unknown terminal")
  })

  it("a cancel racing the hand-off ends in exactly one outcome (10 rounds)", async () => {
    const who = await party("1000")
    let canceled = 0,
      handed = 0
    for (let round = 0; round < 10; round++) {
      const from = await drained()
      const one = await queue(who, { amount: 1 })
      // Even rounds send the cancel first, odd ones the list (the cancel a moment later), so both
      // orders occur; which one commits first is up to the service.
      const listing = () => list({ tokenNetwork: terminals.usdt, cursor: from })
      const cancelling = () => cancel(who, one.txId)
      const [listed, cancelled] =
        round % 2 === 0
          ? await Promise.all([cancelling(), listing()]).then(([c, l]) => [l, c] as const)
          : await Promise.all([listing(), new Promise((r) => setTimeout(r, round % 4)).then(cancelling)])
      assert.strictEqual(listed.status, 200, JSON.stringify(listed.body))
      const inList = idsOf(listed).includes(one.txId)
      if (cancelled.status === 200) {
        canceled++
        assert.isFalse(inList, `round ${round}: cancelled yet handed off`)
        assert.strictEqual((await txOf(who, one.txId)).txState, TxState.Canceled)
      } else {
        handed++
        assertRejected(cancelled, 400, 10210, `round ${round}`)
        assert.isTrue(inList, `round ${round}: refused yet not handed off`)
        assert.strictEqual((await report({ txId: one.txId, result: "failed" })).status, 200)
      }
      await assertBuckets(who, 1000, 0, "USDT", `round ${round}`)
    }
    assert.strictEqual(canceled + handed, 10)
  }, 60_000)

  it("long-polls: 202 with no items after the wait, 200 when a withdrawal is confirmed during it", async () => {
    const from = await drained()
    const started = Date.now()
    const idle = await list({ tokenNetwork: terminals.usdt, cursor: from, timeout: 1 })
    assert.strictEqual(idle.status, 202, JSON.stringify(idle.body))
    assert.deepStrictEqual(idle.body.result, [])
    assert.strictEqual(idle.body.cursor, from)
    assert.isAtLeast(Date.now() - started, 900)

    const who = await party()
    const one = await begin(who, { amount: 4 })
    const waiting = list({ tokenNetwork: terminals.usdt, cursor: from, timeout: 20 })
    await new Promise((r) => setTimeout(r, 400))
    const waitStarted = Date.now()
    assert.strictEqual((await confirm(who, one.txId, one.confirmationCode!)).status, 200)
    const woke = await waiting
    assert.strictEqual(woke.status, 200, JSON.stringify(woke.body))
    assert.deepStrictEqual(idsOf(woke), [one.txId])
    assert.isBelow(Date.now() - waitStarted, 5_000)
    assert.strictEqual((await report({ txId: one.txId, result: "failed" })).status, 200)
  }, 60_000)
})

describe("tx_send_report", () => {
  it("broadcast records the hash (still listed, still locked); failed after it is 10413 (C19 §9); failed ends a HandedOff one", async () => {
    const from = await drained()
    const who = await party()
    const one = await queue(who, { amount: 10 })
    assertRejected(await report({ txId: one.txId, result: "broadcast" }), 400, 10213, "still Queued")
    assert.deepStrictEqual(idsOf(await list({ tokenNetwork: terminals.usdt, cursor: from })), [one.txId])
    const sent = await report({ txId: one.txId, result: "broadcast", txHash: "ab-12", message: "sent" })
    assertRejected(sent, 400, 10001, "a hash with a dash")
    const ok = await report({ txId: one.txId, result: "broadcast", txHash: "ab12CD", message: "sent" })
    assert.strictEqual(ok.status, 200, JSON.stringify(ok.body))
    assert.strictEqual(ok.body.result.stage, "Broadcast")
    assert.strictEqual(ok.body.result.txState, TxState.Created | TxState.Confirmed)
    assert.deepStrictEqual(idsOf(await list({ tokenNetwork: terminals.usdt, cursor: from })), [one.txId])
    assertRejected(await cancel(who, one.txId), 400, 10210, "broadcast")
    await assertBuckets(who, 100 - 10 - usdtFee(10), 10 + usdtFee(10))
    // A repeated broadcast report is taken (Broadcast → Broadcast).
    assert.strictEqual((await report({ txId: one.txId, result: "broadcast" })).status, 200)
    // C19 §9: a broadcast may still confirm on chain, so a failed report no longer returns its money.
    assertRejected(
      await report({ txId: one.txId, result: "failed", message: "nonce too low" }),
      400,
      10413,
      "broadcast"
    )
    await assertBuckets(who, 100 - 10 - usdtFee(10), 10 + usdtFee(10), "USDT", "still out after the late failure")
    assert.strictEqual((await txOf(who, one.txId)).txState, TxState.Created | TxState.Confirmed)

    // A HandedOff item: failed ends it and returns the money; a repeated failed report answers the same, moving nothing.
    const two = await queue(who, { amount: 5 })
    assert.include(idsOf(await list({ tokenNetwork: terminals.usdt, cursor: from })), two.txId)
    const failed = await report({ txId: two.txId, result: "failed", message: "nonce too low" })
    assert.strictEqual(failed.status, 200, JSON.stringify(failed.body))
    assert.strictEqual(failed.body.result.stage, "Failed")
    assert.strictEqual(failed.body.result.txState, TxState.Canceled)
    await assertBuckets(who, 100 - 10 - usdtFee(10), 10 + usdtFee(10))
    assert.strictEqual((await txOf(who, two.txId)).txState, TxState.Canceled)
    assert.deepStrictEqual(idsOf(await list({ tokenNetwork: terminals.usdt, cursor: from })), [one.txId])
    const repeated = await report({ txId: two.txId, result: "failed" })
    assert.strictEqual(repeated.status, 200, JSON.stringify(repeated.body))
    assert.deepStrictEqual(repeated.body.result, failed.body.result, "idempotent")
    await assertBuckets(who, 100 - 10 - usdtFee(10), 10 + usdtFee(10))
    assertRejected(await report({ txId: two.txId, result: "broadcast", txHash: "ff" }), 400, 10213, "already failed")
    assertRejected(await cancel(who, two.txId), 400, 10082, "final")

    // The broadcast one leaves the queue only by release_withdrawal (its hash is in no pushed block).
    const released = await client.priv("POST", "release_withdrawal", { txId: one.txId })
    assert.strictEqual(released.status, 200, JSON.stringify(released.body))
    assert.strictEqual(released.body.result.stage, "Failed")
    await assertBuckets(who, 100, 0)
    // The money is spendable at once.
    const again = await queue(who, { amount: 80 })
    assert.strictEqual((await cancel(who, again.txId)).status, 200)
  })

  it("unknown or non-crypto transactions are 404 10083; a malformed body 10001", async () => {
    assertRejected(await report({ txId: "123456789", result: "failed" }), 404, 10083, "unknown")
    const who = await party()
    const credit = await client.fund(who.id, "USDT", "1")
    assertRejected(await report({ txId: credit, result: "failed" }), 404, 10083, "a treasury credit")
    assertRejected(await report({ txId: "1", result: "sent" }), 400, 10001, "result")
    assertRejected(await report({ result: "failed" }), 400, 10001, "no txId")
    assertRejected(await report({ txId: "1", result: "failed", message: "m".repeat(501) }), 400, 10001, "message")
    assertRejected(await report({ txId: "1", result: "broadcast", txHash: "a".repeat(129) }), 400, 10001, "txHash")
  })
})

describe("withdrawals_queued", () => {
  it("counts Queued withdrawals per terminal on /metrics (a terminal that had a push, C15)", async () => {
    await drained()
    const pushed = await client.priv("POST", "tx_list_push", {
      tokenNetwork: terminals.usdt,
      height: 1,
      hash: "metrics1",
      parentHash: "metrics0",
      items: []
    })
    assert.strictEqual(pushed.status, 200, JSON.stringify(pushed.body))
    const who = await party()
    const one = await queue(who, { amount: 1 })
    const read = async () => {
      const text = await (await fetch(service().monitoring + "/metrics")).text()
      const line = text.split("\n").find((l) => l.startsWith(`withdrawals_queued{terminal="${terminals.usdt}"}`))
      return line === undefined ? undefined : Number(line.split(" ").pop())
    }
    let seen: number | undefined
    for (let i = 0; i < 30 && seen !== 1; i++) {
      seen = await read()
      if (seen !== 1) await new Promise((r) => setTimeout(r, 200))
    }
    assert.strictEqual(seen, 1)
    await drained()
    for (let i = 0; i < 30 && seen !== 0; i++) {
      seen = await read()
      if (seen !== 0) await new Promise((r) => setTimeout(r, 200))
    }
    assert.strictEqual(seen, 0)
    assert.strictEqual((await report({ txId: one.txId, result: "failed" })).status, 200)
  }, 30_000)
})
