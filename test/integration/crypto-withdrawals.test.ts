/**
 * create_withdraw over real HTTP (CONTRACT C15 "Withdrawals"): every check with its code in C15's
 * order, both steps' balances with a tariff and the terminal's networkFee, the Require2FA channel,
 * wrong codes and expiry releasing the reservation, and the owner's cancels (cancel_tx and
 * cancel_withdraw). The signer's side is in crypto-signer-queue.test.ts. After every test the ledger
 * audit must be sound.
 */
import { assert, describe, it } from "@effect/vitest"
import { assertRejected, TxState, TxType, WalletFlag } from "../support/Fixtures.ts"
import { otherEthAddress, solanaAddress, usdtFee, withdrawFile, withdrawService } from "../support/CryptoWithdrawals.ts"
import { startService } from "../support/Service.ts"

const { client, terminals, withdraw, begin, confirm, queue, cancel, list, txOf, assertBuckets, party } = withdrawFile()

describe("create_withdraw: checks in C15's order", () => {
  it("each check answers its code; where two rules fail, the earlier one's code wins", async () => {
    const who = await party()
    const t = terminals
    const cases: Array<[string, Record<string, unknown>, number, number, string?]> = [
      ["no address", { address: undefined }, 400, 10001],
      ["unknown terminal (and a bad address)", { tokenNetwork: "999999", address: "0x12" }, 404, 10040],
      ["a card terminal", { tokenNetwork: t.card, address: "0x12" }, 400, 10200],
      ["a deposit-only terminal", { tokenNetwork: t.btcDepositOnly, address: "0x12" }, 400, 10201],
      ["a terminal of another wallet group", { tokenNetwork: t.usdcBscGroup7, address: "0x12" }, 400, 10201],
      ["an invalid address (and a memo)", { address: "0x12", memo: "1" }, 400, 10204, "address"],
      ["a Tron address on Ethereum", { address: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t" }, 400, 10204, "address"],
      ["a memo off memo networks (and amount 0)", { memo: "123", amount: "0" }, 400, 10001, "memo"],
      [
        "a memo over 128 characters",
        { tokenNetwork: t.usdcSolana, address: solanaAddress, memo: "9".repeat(129) },
        400,
        10001
      ],
      ["amount 0", { amount: "0" }, 400, 10001, "amount"],
      ["amount with 7 decimals of USDT", { amount: "1.1234567" }, 400, 10021, "amount"],
      [
        "requireClientAssetSource on Tron",
        {
          tokenNetwork: t.usdtTron,
          address: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t",
          requireClientAssetSource: true,
          amount: 1000
        },
        400,
        10211
      ],
      [
        "a source that is not the wallet's (and too much)",
        { sourceAddress: otherEthAddress, amount: 1000 },
        400,
        10212,
        "sourceAddress"
      ],
      ["a required source the wallet lacks", { requireClientAssetSource: true }, 400, 10212, "sourceAddress"],
      ["more than the balance", { amount: 99 }, 400, 10002]
    ]
    for (const [label, body, status, code, field] of cases) {
      assertRejected(await withdraw(who.sid, body as any), status, code, label, field)
    }
    await assertBuckets(who, 100, 0, "USDT", "nothing moved")
  })

  it("wallet flags (10031) come before the client nonce (10130), which comes before the source rules and the balance", async () => {
    const who = await party()
    const one = await begin(who, { clientNonce: 77 })
    assert.strictEqual(one.confirmationStatusCode, "NeedCodeConfirm")
    assertRejected(
      await withdraw(who.sid, { clientNonce: 77, requireClientAssetSource: true, amount: 1000 }),
      400,
      10130,
      "nonce"
    )
    const set = await client.priv("POST", "update_wallet", {
      id: who.id,
      flags: WalletFlag.IsDefault | WalletFlag.WalletBlock
    })
    assert.strictEqual(set.status, 200)
    assertRejected(await withdraw(who.sid, { clientNonce: 77 }), 400, 10031, "blocked")
    await client.priv("POST", "update_wallet", { id: who.id, flags: WalletFlag.IsDefault })
    assert.strictEqual((await cancel(who, one.txId)).status, 200)
  })

  it("a memo is taken on a memo network (Solana)", async () => {
    const who = await client.party({ fund: { USDC: "5" } })
    const one = await begin(who, {
      tokenNetwork: terminals.usdcSolana,
      address: solanaAddress,
      memo: "123456",
      amount: 2
    })
    assert.strictEqual(one.fee, 0)
    assert.strictEqual(one.networkFee, 0)
    await assertBuckets(who, 3, 2, "USDC")
    assert.strictEqual((await cancel(who, one.txId)).status, 200)
    await assertBuckets(who, 5, 0, "USDC")
  })
})

describe("create_withdraw: the two steps", () => {
  it("step one reserves amount + fee (tariff + networkFee) and records the Outcome; step two answers Confirmed and moves no money", async () => {
    const who = await party()
    const reply = await withdraw(who.sid, { amount: 10, tag: "payout" })
    assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
    const one = reply.body.result
    assert.sameMembers(Object.keys(one), ["txId", "fee", "networkFee", "confirmationStatusCode", "confirmationCode"])
    assert.strictEqual(one.fee, usdtFee(10))
    assert.strictEqual(one.networkFee, 1)
    assert.strictEqual(one.confirmationStatusCode, "NeedCodeConfirm")
    await assertBuckets(who, 100 - 10 - 1.6, 11.6)
    const row = await txOf(who, one.txId)
    assert.strictEqual(row.typeTx, TxType.Outcome)
    assert.strictEqual(row.txState, TxState.Created)
    assert.strictEqual(row.walletFrom, who.id)
    assert.strictEqual(row.walletTo, "-1")
    assert.strictEqual(row.amount, 10)
    assert.strictEqual(row.fee, 1.6)
    assert.strictEqual(row.tag, "payout")

    // A transfer's step two cannot confirm a withdrawal.
    const wrongKind = await client.confirmTransfer(
      who.sid,
      { recipient: who.id, currency: "USDT", amount: 10 },
      one.txId,
      one.confirmationCode
    )
    assertRejected(wrongKind, 400, 10082, "internal_transfer's step two")

    const two = await confirm(who, one.txId, one.confirmationCode)
    assert.strictEqual(two.status, 200, JSON.stringify(two.body))
    assert.deepStrictEqual(
      { ...two.body.result },
      { txId: one.txId, fee: 1.6, networkFee: 1, confirmationStatusCode: "Confirmed" }
    )
    await assertBuckets(who, 88.4, 11.6)
    const queued = await txOf(who, one.txId)
    assert.strictEqual(queued.txState, TxState.Created | TxState.Confirmed)
    assert.isTrue(BigInt(queued.idUpdate) > BigInt(row.idUpdate), "idUpdate moved")
    // Step two again: nothing pending.
    assertRejected(await confirm(who, one.txId, one.confirmationCode), 400, 10082, "again")
    // The signer sees it (Queued).
    const seen = await list({ tokenNetwork: terminals.usdt, limit: 1000 })
    assert.isTrue((seen.body.result as Array<any>).some((item) => item.txId === one.txId))
  })

  it("ETH: networkFee 0.001 without a tariff", async () => {
    const who = await client.party({ fund: { ETH: "1" } })
    const one = await begin(who, { tokenNetwork: terminals.eth, amount: "0.5" })
    assert.strictEqual(one.fee, 0.001)
    assert.strictEqual(one.networkFee, 0.001)
    await assertBuckets(who, 0.499, 0.501, "ETH")
    assert.strictEqual((await cancel(who, one.txId, "cancel_withdraw")).status, 200)
    await assertBuckets(who, 1, 0, "ETH")
  })

  it("Require2FA: NeedCodeConfirm without the code, which comes as a ConfirmationCode event", async () => {
    const who = await party()
    const set = await client.call("POST", "/core/v1/wallet/set_security", { sid: who.sid, body: { require2FA: true } })
    assert.strictEqual(set.status, 200)
    const one = await begin(who, { amount: 5 }, { "X-KeyType": "PassKey" })
    assert.strictEqual(one.confirmationStatusCode, "NeedCodeConfirm")
    assert.notProperty(one, "confirmationCode")
    const events = (await client.allEvents()).filter(
      (e) => e.kind === "ConfirmationCode" && e.payload?.txId === one.txId
    )
    assert.strictEqual(events.length, 1)
    const two = await confirm(who, one.txId, events[0].payload.code, {}, { "X-KeyType": "PassKey" })
    assert.strictEqual(two.status, 200, JSON.stringify(two.body))
    assert.strictEqual(two.body.result.confirmationStatusCode, "Confirmed")
    await assertBuckets(who, 100 - 5 - usdtFee(5), 5 + usdtFee(5))
  })

  it("wrong codes: 10080 with attempts left, then 10081 and the reservation returns (stage Canceled: final)", async () => {
    const who = await party()
    const one = await begin(who, { amount: 3 })
    const wrong = one.confirmationCode === "000000" ? "111111" : "000000"
    let last
    for (let i = 0; i < 10; i++) {
      last = await confirm(who, one.txId, wrong)
      if (last.body.error?.code !== 10080) break
    }
    assertRejected(last!, 400, 10081, "exhausted")
    await assertBuckets(who, 100, 0)
    assert.strictEqual((await txOf(who, one.txId)).txState, TxState.Canceled)
    assertRejected(await cancel(who, one.txId), 400, 10082, "final")
  })
})

describe("cancel_tx and cancel_withdraw", () => {
  it("in AwaitingConfirmation and in Queued the money returns (txState 16)", async () => {
    const who = await party()
    const awaiting = await begin(who, { amount: 10 })
    const queued = await queue(who, { amount: 20 })
    await assertBuckets(who, 100 - 11.6 - 21.7, 11.6 + 21.7)
    const a = await cancel(who, awaiting.txId)
    assert.strictEqual(a.status, 200, JSON.stringify(a.body))
    assert.strictEqual(a.body.result.txId, awaiting.txId)
    const q = await cancel(who, queued.txId, "cancel_withdraw")
    assert.strictEqual(q.status, 200, JSON.stringify(q.body))
    await assertBuckets(who, 100, 0)
    assert.strictEqual((await txOf(who, awaiting.txId)).txState, TxState.Canceled)
    assert.strictEqual((await txOf(who, queued.txId)).txState, TxState.Canceled)
    // Final now: 10082; the signer no longer sees it.
    assertRejected(await cancel(who, queued.txId), 400, 10082, "again")
    assertRejected(await cancel(who, queued.txId, "cancel_withdraw"), 400, 10082, "again (withdraw)")
    const seen = await list({ tokenNetwork: terminals.usdt, limit: 1000 })
    assert.isFalse((seen.body.result as Array<any>).some((item) => item.txId === queued.txId))
    // The money is spendable at once (the wallet actor reloaded its figures).
    const again = await queue(who, { amount: 88 })
    await assertBuckets(who, 100 - 88 - usdtFee(88), 88 + usdtFee(88))
    assert.strictEqual((await cancel(who, again.txId)).status, 200)
  })

  it("after the hand-off 10210; not the caller's 404 10083; cancel_withdraw of a non-Outcome 404 10083", async () => {
    const who = await party()
    const other = await party()
    const queued = await queue(who, { amount: 1 })
    assertRejected(await cancel(other, queued.txId), 404, 10083, "another's (cancel_tx)")
    assertRejected(await cancel(other, queued.txId, "cancel_withdraw"), 404, 10083, "another's (cancel_withdraw)")
    const listed = await list({ tokenNetwork: terminals.usdt, limit: 1000 })
    assert.isTrue((listed.body.result as Array<any>).some((item) => item.txId === queued.txId))
    assertRejected(await cancel(who, queued.txId), 400, 10210, "handed off")
    assertRejected(await cancel(who, queued.txId, "cancel_withdraw"), 400, 10210, "handed off (withdraw)")
    const funding = await client.fund(who.id, "USDT", "1")
    assertRejected(await cancel(who, funding, "cancel_withdraw"), 404, 10083, "a treasury credit")
    // cancel_tx keeps its transfer rules for other transactions.
    assertRejected(await cancel(who, funding), 400, 10082, "cancel_tx of a finished credit")
    // Leave nothing in flight: the signer reports the failure, the money returns.
    assert.strictEqual(
      (await client.priv("POST", "tx_send_report", { txId: queued.txId, result: "failed" })).status,
      200
    )
    await assertBuckets(who, 101, 0)
  })
})

describe("expiry", () => {
  it("an expired step one is released by the sweeper (CONFIRMATION_TTL_SECONDS=2): money back, final", async () => {
    const short = await startService({ env: { CONFIRMATION_TTL_SECONDS: "2" } })
    try {
      const s = await withdrawService(short)
      const who = await s.party("50")
      const one = await s.begin(who, { amount: 5 })
      await s.assertBuckets(who, 50 - 5 - usdtFee(5), 5 + usdtFee(5))
      await new Promise((r) => setTimeout(r, 4_000))
      await s.assertBuckets(who, 50, 0)
      assert.strictEqual((await s.txOf(who, one.txId)).txState, TxState.Canceled)
      const two = await s.confirm(who, one.txId, one.confirmationCode!)
      assert.include([10081, 10082], two.body.error?.code)
      assertRejected(await s.cancel(who, one.txId), 400, 10082, "final")
      const seen = await s.list({ limit: 1000 })
      assert.deepStrictEqual(seen.body.result, [])
      await s.client.assertLedgerSound()
    } finally {
      await short.stop()
    }
  }, 120_000)
})
