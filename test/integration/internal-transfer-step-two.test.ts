/**
 * Internal transfers over real HTTP against the real service process, step two of SPEC "Internal
 * transfer": CreateTransactOut, each second-factor channel of CONTRACT C12, wrong codes, expiry,
 * blocked wallets and client nonces. Balances are read through each party's own session; after every
 * test the ledger audit must show every currency summing to "0" and no user bucket below zero.
 */
import { generateKeyPairSync } from "node:crypto"
import { assert, describe, it } from "@effect/vitest"
import { makeClient } from "../support/Client.ts"
import { assertRejected, TxState, WalletFlag } from "../support/Fixtures.ts"
import { internalTransferFile, rawPublicKey, signTx } from "../support/InternalTransfer.ts"
import { startService } from "../support/Service.ts"

const { WalletBlock, InnerTransferBlock, Deleted, IsDefault } = WalletFlag
const { Canceled } = TxState

const {
  client,
  suffix,
  party,
  assertBuckets,
  transfer,
  begin,
  confirm,
  sendAndSettle,
  txOf,
  eventsOfTx,
  codeEventOf,
  assertLedgerSound
} = internalTransferFile()

describe("rule 6: CreateTransactOut and step two", () => {
  it("step one answers {txId, fee, confirmationStatusCode}; step two answers Confirmed", async () => {
    const sender = await party()
    const recipient = await party({ fund: "0" })
    const reply = await transfer(sender.sid, { recipient: recipient.id, amount: 1 })
    assert.strictEqual(reply.status, 200)
    const out = reply.body.result
    assert.isString(out.txId)
    assert.match(out.txId, /^[1-9][0-9]*$/)
    assert.isNumber(out.fee)
    assert.strictEqual(out.fee, 0.51)
    assert.strictEqual(out.confirmationStatusCode, "NeedCodeConfirm")
    assert.sameMembers(Object.keys(out), ["txId", "fee", "confirmationStatusCode", "confirmationCode"])
    const two = await confirm(sender, { recipient: recipient.id, amount: 1 }, out.txId, out.confirmationCode)
    assert.strictEqual(two.status, 200)
    assert.strictEqual(two.body.result.txId, out.txId)
    assert.strictEqual(two.body.result.fee, 0.51)
    assert.strictEqual(two.body.result.confirmationStatusCode, "Confirmed")
  })

  it("malformed steps: a code without confirmationTimetick, or step two with no proof, is 10001; an unknown txId is 10082", async () => {
    const sender = await party()
    const recipient = await party({ fund: "0" })
    const body = { recipient: recipient.id, amount: 1 }
    assertRejected(
      await transfer(sender.sid, body, { query: { confirmationCode: "123456" } }),
      400,
      10001,
      "code alone"
    )
    await assertBuckets(sender, 100, 0, "USDT", "nothing reserved")
    const one = await begin(sender, body)
    assertRejected(
      await transfer(sender.sid, body, { query: { confirmationTimetick: one.txId } }),
      400,
      10001,
      "no proof"
    )
    assertRejected(
      await confirm(sender, body, String(BigInt(one.txId) + 7n), one.confirmationCode!),
      400,
      10082,
      "unknown txId"
    )
    // None of these used up an attempt: four wrong codes still leave the right one working.
    for (let i = 0; i < 4; i++) assertRejected(await confirm(sender, body, one.txId, "x"), 400, 10080)
    assert.strictEqual((await confirm(sender, body, one.txId, one.confirmationCode!)).status, 200)
    await assertBuckets(recipient, 1, 0)
  })

  it("a second step two on the same transaction is 400 / 10082 and moves nothing", async () => {
    const sender = await party()
    const recipient = await party({ fund: "0" })
    const body = { recipient: recipient.id, amount: 2 }
    const one = await sendAndSettle(sender, body)
    assertRejected(await confirm(sender, body, one.txId, one.confirmationCode!), 400, 10082)
    await assertBuckets(sender, 100 - 2 - 0.52, 0)
    await assertBuckets(recipient, 2, 0)
  })

  it("step two from another wallet's session is 10082 (not its transaction) and moves nothing", async () => {
    const sender = await party()
    const recipient = await party({ fund: "0" })
    const intruder = await party()
    const body = { recipient: recipient.id, amount: 3 }
    const one = await begin(sender, body)
    for (const who of [intruder, recipient]) {
      assertRejected(
        await confirm(who, body, one.txId, one.confirmationCode!),
        400,
        10082,
        who === intruder ? "stranger" : "recipient"
      )
    }
    await assertBuckets(sender, 100 - 3.53, 3.53)
    await assertBuckets(recipient, 0, 0)
    await assertBuckets(intruder, 100, 0)
    // The sender's own step two still works.
    assert.strictEqual((await confirm(sender, body, one.txId, one.confirmationCode!)).status, 200)
    await assertBuckets(recipient, 3, 0)
  })
})

describe("rule 7: second-factor channels (C12)", () => {
  it("without Require2FA: NeedCodeConfirm with a 6-digit code inline, whatever X-KeyType", async () => {
    const sender = await party()
    const recipient = await party({ fund: "0" })
    for (const keyType of ["PassKey", "UserKey", "Fido2Key", undefined]) {
      const one = await begin(
        sender,
        { recipient: recipient.id, amount: 1 },
        keyType === undefined ? undefined : { "X-KeyType": keyType }
      )
      assert.strictEqual(one.confirmationStatusCode, "NeedCodeConfirm", keyType)
      assert.match(one.confirmationCode!, /^[0-9]{6}$/, keyType)
      assert.isEmpty(
        (await eventsOfTx(one.txId)).filter((e) => e.kind === "ConfirmationCode"),
        "no code event when inline"
      )
      assert.strictEqual(
        (await confirm(sender, { recipient: recipient.id, amount: 1 }, one.txId, one.confirmationCode!)).status,
        200
      )
    }
    await assertBuckets(recipient, 4, 0)
  })

  for (const keyType of ["PassKey", "UserKey"]) {
    it(`with Require2FA and X-KeyType ${keyType}: NeedCodeConfirm without the code; it arrives as a ConfirmationCode event`, async () => {
      const sender = await party()
      const recipient = await party({ fund: "0" })
      const security = await client.call("POST", "/core/v1/wallet/set_security", {
        sid: sender.sid,
        body: { require2FA: true }
      })
      assert.strictEqual(security.status, 200)
      const body = { recipient: recipient.id, amount: 8 }
      const one = await begin(sender, body, { "X-KeyType": keyType })
      assert.strictEqual(one.confirmationStatusCode, "NeedCodeConfirm")
      assert.notProperty(one, "confirmationCode")
      assert.sameMembers(Object.keys(one), ["txId", "fee", "confirmationStatusCode"])
      const event = await codeEventOf(one.txId)
      assert.strictEqual(event.walletId, sender.id)
      assert.strictEqual(event.payload.walletId, sender.id)
      assert.strictEqual(event.payload.txId, one.txId)
      assert.match(event.payload.code, /^[0-9]{6}$/)
      await assertBuckets(sender, 100 - 8 - 0.58, 8.58)
      const two = await confirm(sender, body, one.txId, event.payload.code, { "X-KeyType": keyType })
      assert.strictEqual(two.status, 200, JSON.stringify(two.body))
      assert.strictEqual(two.body.result.confirmationStatusCode, "Confirmed")
      await assertBuckets(sender, 100 - 8 - 0.58, 0)
      await assertBuckets(recipient, 8, 0)
    })
  }

  it("with Require2FA and X-KeyType Fido2Key: NeedSign, settled by an Ed25519 signature of the txId in X-SignResult", async () => {
    const sender = await party()
    const recipient = await party({ fund: "0" })
    assert.strictEqual(
      (await client.call("POST", "/core/v1/wallet/set_security", { sid: sender.sid, body: { require2FA: true } }))
        .status,
      200
    )
    const { privateKey, publicKey } = generateKeyPairSync("ed25519")
    const register = await client.priv("POST", "register_key", {
      walletId: sender.id,
      publicKey: rawPublicKey(publicKey)
    })
    assert.strictEqual(register.status, 200, JSON.stringify(register.body))

    const body = { recipient: recipient.id, amount: 9 }
    const one = await begin(sender, body, { "X-KeyType": "Fido2Key" })
    assert.strictEqual(one.confirmationStatusCode, "NeedSign")
    assert.notProperty(one, "confirmationCode")
    assert.isEmpty((await eventsOfTx(one.txId)).filter((e) => e.kind === "ConfirmationCode"))
    await assertBuckets(sender, 100 - 9 - 0.59, 9.59)
    // confirmationCode may be omitted: the signature is the proof.
    const two = await transfer(sender.sid, body, {
      query: { confirmationTimetick: one.txId },
      headers: { "X-KeyType": "Fido2Key", "X-SignResult": signTx(privateKey, one.txId) }
    })
    assert.strictEqual(two.status, 200, JSON.stringify(two.body))
    assert.strictEqual(two.body.result.confirmationStatusCode, "Confirmed")
    await assertBuckets(sender, 100 - 9 - 0.59, 0)
    await assertBuckets(recipient, 9, 0)
  })

  it("NeedSign: a signature by an unregistered key, of another txId, or none at all is 10080; the right one still settles", async () => {
    const sender = await party()
    const recipient = await party({ fund: "0" })
    assert.strictEqual(
      (await client.call("POST", "/core/v1/wallet/set_security", { sid: sender.sid, body: { require2FA: true } }))
        .status,
      200
    )
    const registered = generateKeyPairSync("ed25519")
    const stranger = generateKeyPairSync("ed25519")
    assert.strictEqual(
      (
        await client.priv("POST", "register_key", {
          walletId: sender.id,
          publicKey: rawPublicKey(registered.publicKey)
        })
      ).status,
      200
    )
    const body = { recipient: recipient.id, amount: 1 }
    const one = await begin(sender, body, { "X-KeyType": "Fido2Key" })
    assert.strictEqual(one.confirmationStatusCode, "NeedSign")
    const attempt = (signature: string) =>
      transfer(sender.sid, body, {
        query: { confirmationTimetick: one.txId },
        headers: { "X-KeyType": "Fido2Key", "X-SignResult": signature }
      })
    assertRejected(await attempt(signTx(stranger.privateKey, one.txId)), 400, 10080, "unregistered key")
    assertRejected(
      await attempt(signTx(registered.privateKey, String(BigInt(one.txId) + 1n))),
      400,
      10080,
      "another txId"
    )
    // A code instead of a signature is no proof on this channel either.
    assertRejected(await confirm(sender, body, one.txId, "000000", { "X-KeyType": "Fido2Key" }), 400, 10080, "a code")
    await assertBuckets(recipient, 0, 0)
    await assertBuckets(sender, 100 - 1.51, 1.51)
    assert.strictEqual((await attempt(signTx(registered.privateKey, one.txId))).status, 200)
    await assertBuckets(recipient, 1, 0)
  })

  it("register_key rejects a key that is not a raw 32-byte Ed25519 key and an unknown wallet", async () => {
    const w = await party({ fund: "0" })
    const bad = await client.priv("POST", "register_key", {
      walletId: w.id,
      publicKey: Buffer.alloc(16).toString("base64")
    })
    assert.strictEqual(bad.status, 400)
    const missing = await client.priv("POST", "register_key", {
      walletId: "999999999999",
      publicKey: rawPublicKey(generateKeyPairSync("ed25519").publicKey)
    })
    assertRejected(missing, 404, 10030)
  })
})

describe("wrong codes and expiry", () => {
  it("a wrong code is 10080 naming the attempts left; the fifth releases the reservation (10081, Canceled)", async () => {
    const sender = await party()
    const recipient = await party({ fund: "0" })
    const body = { recipient: recipient.id, amount: 10 }
    const one = await begin(sender, body)
    const wrong = one.confirmationCode === "000000" ? "111111" : "000000"
    for (let left = 4; left >= 1; left--) {
      const reply = await confirm(sender, body, one.txId, wrong)
      assertRejected(reply, 400, 10080, `attempt with ${left} left`)
      assert.include(reply.body.error!.message, `${left} attempt`)
      await assertBuckets(sender, 100 - 10.6, 10.6, "USDT", `still reserved, ${left} left`)
    }
    assertRejected(await confirm(sender, body, one.txId, wrong), 400, 10081, "fifth wrong attempt")
    await assertBuckets(sender, 100, 0, "USDT", "released")
    await assertBuckets(recipient, 0, 0)
    const tx = await txOf(sender, one.txId)
    assert.strictEqual(tx.txState, Canceled)
    assert.strictEqual(tx.state, "Canceled")
    // The right code is too late now.
    assertRejected(await confirm(sender, body, one.txId, one.confirmationCode!), 400, 10082, "right code after release")
    await assertBuckets(recipient, 0, 0)
    assert.isTrue((await eventsOfTx(one.txId)).some((e) => e.kind === "TransferCanceled" && e.walletId === sender.id))
  })

  it("an expired confirmation is released by the sweeper; step two then fails (CONFIRMATION_TTL_SECONDS=2)", async () => {
    const short = await startService({ env: { CONFIRMATION_TTL_SECONDS: "2" } })
    try {
      const c = makeClient(short)
      const a = await c.party({ fund: "50" })
      const b = await c.party()
      const { sid: sidA } = a,
        { sid: sidB } = b
      const body = { recipient: b.id, currency: "USDT", amount: 5 }
      const one = await c.transfer(sidA, body)
      assert.strictEqual(one.status, 200)
      const { txId, confirmationCode } = one.body.result
      assert.strictEqual((await c.balance(sidA, "USDT")).lockOutBalance, 5)
      await new Promise((r) => setTimeout(r, 4_000))
      const balanceA = await c.balance(sidA, "USDT")
      assert.strictEqual(balanceA.freeBalance, 50)
      assert.strictEqual(balanceA.lockOutBalance, 0)
      const tx = await c.call("GET", `/core/v1/wallet/get_tx_info?id=${txId}`, { sid: sidA })
      assert.strictEqual(tx.body.result.txState, Canceled)
      assert.isTrue(
        (await c.allEvents()).some(
          (e) =>
            e.kind === "TransferCanceled" &&
            e.walletId === a.id &&
            e.payload.txId === txId &&
            e.payload.reason === "expired"
        )
      )
      const two = await c.confirmTransfer(sidA, body, txId, confirmationCode)
      assert.strictEqual(two.status, 400)
      assert.include([10081, 10082], two.body.error?.code)
      const received = await c.balance(sidB, "USDT")
      assert.strictEqual(received?.freeBalance ?? 0, 0)
      await assertLedgerSound(short)
    } finally {
      await short.stop()
    }
  }, 120_000)
})

describe("blocked wallets cannot send", () => {
  it("WalletBlock and InnerTransferBlock are each 400 / 10031, Deleted's session 401 / 10401 (C19 §5); nothing moves", async () => {
    const sender = await party()
    const recipient = await party({ fund: "0" })
    for (const [name, flag] of [
      ["WalletBlock", WalletBlock],
      ["InnerTransferBlock", InnerTransferBlock],
      ["Deleted", Deleted]
    ] as const) {
      const set = await client.priv("POST", "update_wallet", { id: sender.id, flags: IsDefault | flag })
      assert.strictEqual(set.status, 200, name)
      const reply = await transfer(sender.sid, { recipient: recipient.id, amount: 1 })
      // C19 §5: a session of a Deleted wallet is refused on every action (its balance too).
      if (flag === Deleted) assertRejected(reply, 401, 10401, name)
      else {
        assertRejected(reply, 400, 10031, name)
        await assertBuckets(sender, 100, 0, "USDT", name)
      }
    }
    // Cleared flags: it sends again.
    assert.strictEqual((await client.priv("POST", "update_wallet", { id: sender.id, flags: IsDefault })).status, 200)
    await assertBuckets(sender, 100, 0, "USDT", "after Deleted")
    await sendAndSettle(sender, { recipient: recipient.id, amount: 1 })
    await assertBuckets(recipient, 1, 0)
  })

  it("a Deleted recipient is refused with 10031", async () => {
    const sender = await party()
    const recipient = await party({ fund: "0" })
    assert.strictEqual(
      (await client.priv("POST", "update_wallet", { id: recipient.id, flags: IsDefault | Deleted })).status,
      200
    )
    assertRejected(await transfer(sender.sid, { recipient: recipient.id, amount: 1 }), 400, 10031)
    await assertBuckets(sender, 100, 0)
  })
})

describe("clientNonce", () => {
  it("a reused clientNonce of the same wallet is 400 / 10130 and moves nothing; another wallet may use it", async () => {
    const sender = await party()
    const other = await party()
    const recipient = await party({ fund: "0" })
    const nonce = `4${suffix()}`
    await sendAndSettle(sender, { recipient: recipient.id, amount: 1, clientNonce: nonce })
    assertRejected(
      await transfer(sender.sid, { recipient: recipient.id, amount: 1, clientNonce: nonce }),
      400,
      10130,
      "settled nonce",
      "clientNonce"
    )
    assertRejected(
      await transfer(sender.sid, { recipient: recipient.id, amount: 2, clientNonce: Number(nonce) }),
      400,
      10130,
      "as a JSON integer",
      "clientNonce"
    )
    await assertBuckets(sender, 100 - 1.51, 0)
    await sendAndSettle(other, { recipient: recipient.id, amount: 1, clientNonce: nonce })
    await assertBuckets(recipient, 2, 0)
    // A nonce held by a pending (and then cancelled) transfer stays used.
    const pendingNonce = `5${suffix()}`
    const pending = await begin(sender, { recipient: recipient.id, amount: 1, clientNonce: pendingNonce })
    assertRejected(
      await transfer(sender.sid, { recipient: recipient.id, amount: 1, clientNonce: pendingNonce }),
      400,
      10130,
      "pending nonce",
      "clientNonce"
    )
    assert.strictEqual((await client.cancelTx(sender.sid, pending.txId)).status, 200)
    assertRejected(
      await transfer(sender.sid, { recipient: recipient.id, amount: 1, clientNonce: pendingNonce }),
      400,
      10130,
      "cancelled nonce",
      "clientNonce"
    )
    await assertBuckets(sender, 100 - 1.51, 0)
  })
})
