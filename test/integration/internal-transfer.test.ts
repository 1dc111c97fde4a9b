/**
 * Internal transfers over real HTTP against the real service process: every rule of SPEC "Internal
 * transfer" (recipient forms, the project bound of a wallet_id, self wallet transfers with their own
 * tariff, the same-wallet rejection, atomic two-step balances and fees, CreateTransactOut, each
 * second-factor channel of CONTRACT C12), wrong codes, expiry, blocked wallets, client nonces,
 * cancel_tx, the TransferSent/TransferReceived events, get_tx_info and history for both parties, and
 * amount validation. Balances are read through each party's own session; after every test the
 * ledger audit must show every currency summing to "0" and no user bucket below zero.
 */
import { generateKeyPairSync, type KeyObject, sign } from "node:crypto"
import { assert, describe, it } from "@effect/vitest"
import { makeClient, type Party } from "../support/Client.ts"
import { assertRejected, exact, serviceForFile, TxState, TxType, WalletFlag } from "../support/Fixtures.ts"
import { withDatabase } from "../support/Postgres.ts"
import { itWithServer, type RunningService, startService } from "../support/Service.ts"

const { WalletBlock, InnerTransferBlock, Deleted, IsDefault } = WalletFlag
const { InternalTx, SelfWalletTransfer } = TxType
const { Canceled, Finished } = TxState

// Tariffs of this file: a plain transfer of USDT costs 0.5 + 1 %, a self wallet transfer 0.1 flat;
// EUR transfers cost 0.25 and the fee goes to a user wallet named as the profit wallet.
const innerFee = (amount: number) => exact(0.5 + amount / 100)
const selfFee = 0.1
const eurFee = 0.25

let eurProfit: Party
const { service, client } = serviceForFile({
  setup: async (c) => {
    eurProfit = await c.party()
    await c.setTariffs([
      { txClass: "InnerTransfer", currency: "USDT", feeFixed: "0.5", feePercent: "1" },
      { txClass: "SelfTransfer", currency: "USDT", feeFixed: "0.1", feePercent: "0" },
      { txClass: "InnerTransfer", currency: "EUR", feeFixed: "0.25", feePercent: "0", profitWalletId: eurProfit.id }
    ])
  }
})

const newClientId = client.newClientId
let unique = 0
const suffix = () => `${String(Date.now()).slice(-6)}${String(unique++).padStart(3, "0")}`

/** A wallet with its own session, funded with `fund` USDT (default 100). */
const party = (options: { clientId?: string; fund?: string; extra?: Record<string, unknown> } = {}) =>
  client.party({ ...options, fund: options.fund ?? "100" })

const bucketsOf = client.bucketsOf
const assertBuckets = async (who: Party, free: number, lockOut: number, currency = "USDT", label = "") => {
  const b = await bucketsOf(who, currency)
  assert.strictEqual(b.free, exact(free), `${label} free`)
  assert.strictEqual(b.lockOut, exact(lockOut), `${label} lockOut`)
  assert.strictEqual(b.lockIn, 0, `${label} lockIn`)
}

interface TransferBody {
  recipient: string
  currency?: string
  amount: number | string
  tag?: string
  clientNonce?: string | number
}
const bodyOf = (body: TransferBody) => ({ currency: "USDT", ...body })

/** POST internal_transfer: step one without `query`, step two with it. */
const transfer = (
  sid: string,
  body: TransferBody,
  options: { query?: Record<string, string>; headers?: Record<string, string> } = {}
) => client.transfer(sid, bodyOf(body), options)

/** Step one that must succeed. */
const begin = async (from: Party, body: TransferBody, headers?: Record<string, string>) => {
  const reply = await transfer(from.sid, body, { headers })
  assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
  return reply.body.result as { txId: string; fee: number; confirmationStatusCode: string; confirmationCode?: string }
}

/** Step two with a code. */
const confirm = (from: Party, body: TransferBody, txId: string, code: string, headers?: Record<string, string>) =>
  client.confirmTransfer(from.sid, bodyOf(body), txId, code, headers)

/** Both steps with the inline code; answers the txId. */
const sendAndSettle = async (from: Party, body: TransferBody) => {
  const one = await begin(from, body)
  assert.strictEqual(one.confirmationStatusCode, "NeedCodeConfirm")
  assert.isString(one.confirmationCode)
  const two = await confirm(from, body, one.txId, one.confirmationCode!)
  assert.strictEqual(two.status, 200, JSON.stringify(two.body))
  assert.strictEqual(two.body.result.confirmationStatusCode, "Confirmed")
  assert.strictEqual(two.body.result.txId, one.txId)
  return one
}

const txInfo = (who: Party, id: string) => client.call("GET", `/core/v1/wallet/get_tx_info?id=${id}`, { sid: who.sid })
const txOf = async (who: Party, id: string) => {
  const reply = await txInfo(who, id)
  assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
  return reply.body.result
}

const eventsOfTx = async (txId: string) => (await client.allEvents()).filter((e) => e.payload?.txId === txId)

/** The one-time code the service sent through the notification channel (C12). */
const codeEventOf = async (txId: string) => {
  const found = (await eventsOfTx(txId)).filter((e) => e.kind === "ConfirmationCode")
  assert.strictEqual(found.length, 1, `one ConfirmationCode event for ${txId}`)
  return found[0]
}

const assertLedgerSound = (on: RunningService = service()) => makeClient(on).assertLedgerSound()

describe("rule 1: the recipient forms (C12)", () => {
  it("a CRM id (digits or text) resolves to that client's IsDefault wallet", async () => {
    const sender = await party()
    const clientId = newClientId()
    const digits = `9${suffix()}`
    const text = `crm-${suffix()}`
    const main = await party({ clientId, fund: "0", extra: { crmId: digits } })
    const other = await party({ clientId, fund: "0" })
    assert.strictEqual(main.flags & IsDefault, IsDefault)
    assert.strictEqual(other.flags & IsDefault, 0)
    await sendAndSettle(sender, { recipient: digits, amount: 3 })
    await assertBuckets(main, 3, 0, "USDT", "default wallet")
    await assertBuckets(other, 0, 0, "USDT", "other wallet")
    // Another client with a text CRM id.
    const textClient = await party({ fund: "0", extra: { crmId: text } })
    await sendAndSettle(sender, { recipient: text, amount: 2 })
    await assertBuckets(textClient, 2, 0)
    await assertBuckets(sender, 100 - 3 - innerFee(3) - 2 - innerFee(2), 0, "USDT", "sender")
  })

  it.each([
    { form: "a phone number (+...)", field: "phone", id: () => `+49${suffix()}`, amount: 4 },
    { form: "a messenger id (@...)", field: "messengerId", id: () => `@user_${suffix()}`, amount: 5 }
  ])("$form resolves to the client's IsDefault wallet", async ({ field, id, amount }) => {
    const sender = await party()
    const clientId = newClientId()
    const recipient = id()
    const main = await party({ clientId, fund: "0", extra: { [field]: recipient } })
    const other = await party({ clientId, fund: "0" })
    await sendAndSettle(sender, { recipient, amount })
    await assertBuckets(main, amount, 0)
    await assertBuckets(other, 0, 0)
  })

  it("an internal wallet address (W...) is that exact wallet, default or not", async () => {
    const sender = await party()
    const clientId = newClientId()
    const main = await party({ clientId, fund: "0" })
    const other = await party({ clientId, fund: "0" })
    assert.match(other.address, /^W/)
    const one = await sendAndSettle(sender, { recipient: other.address, amount: 6 })
    await assertBuckets(other, 6, 0)
    await assertBuckets(main, 0, 0)
    assert.strictEqual((await txOf(sender, one.txId)).walletTo, other.id)
  })

  it("a wallet_id is that exact wallet, default or not", async () => {
    const sender = await party()
    const clientId = newClientId()
    const main = await party({ clientId, fund: "0" })
    const other = await party({ clientId, fund: "0" })
    const one = await sendAndSettle(sender, { recipient: other.id, amount: 7 })
    await assertBuckets(other, 7, 0)
    await assertBuckets(main, 0, 0)
    const tx = await txOf(sender, one.txId)
    assert.strictEqual(tx.walletFrom, sender.id)
    assert.strictEqual(tx.walletTo, other.id)
  })

  it("an unknown recipient of every form (system wallets included) is 404 / 10030 and nothing moves", async () => {
    const sender = await party()
    for (const recipient of [
      `+49${suffix()}`,
      `@nobody_${suffix()}`,
      `W${suffix()}NOPE`,
      `crm-${suffix()}`,
      `8${suffix()}`,
      "1",
      "-1",
      "-2"
    ]) {
      assertRejected(await transfer(sender.sid, { recipient, amount: 1 }), 404, 10030, recipient, "recipient")
    }
    await assertBuckets(sender, 100, 0)
  })
})

describe("rule 2: a wallet_id recipient must be in the sender's project", () => {
  it("a wallet of the same project is accepted by wallet_id", async () => {
    const sender = await party({ extra: { project: 1 } })
    const target = await party({ fund: "0", extra: { project: 1 } })
    await sendAndSettle(sender, { recipient: target.id, amount: 2 })
    await assertBuckets(target, 2, 0)
  })

  it("another project's wallet id is not a wallet_id: it is read as a CRM id (404 / 10030 when none)", async () => {
    const sender = await party({ extra: { project: 1 } })
    const foreign = await party({ fund: "0", extra: { project: 0 } })
    assertRejected(await transfer(sender.sid, { recipient: foreign.id, amount: 2 }), 404, 10030, "", "recipient")
    await assertBuckets(sender, 100, 0)
    await assertBuckets(foreign, 0, 0)
    // A client whose CRM id happens to be those digits receives it instead: the CRM fallback.
    const crmHolder = await party({ fund: "0", extra: { crmId: foreign.id, project: 1 } })
    await sendAndSettle(sender, { recipient: foreign.id, amount: 2 })
    await assertBuckets(crmHolder, 2, 0)
    await assertBuckets(foreign, 0, 0)
  })
})

describe("rule 3: self wallet transfers", () => {
  it("another wallet of the same client is SelfWalletTransfer (15) with the SelfTransfer tariff; a plain one is InternalTx (11)", async () => {
    const clientId = newClientId()
    const own = await party({ clientId })
    const ownSecond = await party({ clientId, fund: "0" })
    const stranger = await party({ fund: "0" })

    const self = await sendAndSettle(own, { recipient: ownSecond.id, amount: 10, tag: "to savings" })
    assert.strictEqual(self.fee, selfFee)
    const selfTx = await txOf(own, self.txId)
    assert.strictEqual(selfTx.typeTx, SelfWalletTransfer)
    assert.strictEqual(selfTx.fee, selfFee)
    assert.strictEqual(selfTx.amount, 10)
    assert.strictEqual(selfTx.tag, "to savings")
    await assertBuckets(ownSecond, 10, 0)

    const plain = await sendAndSettle(own, { recipient: stranger.id, amount: 10 })
    assert.strictEqual(plain.fee, innerFee(10))
    assert.strictEqual(plain.fee, 0.6)
    const plainTx = await txOf(own, plain.txId)
    assert.strictEqual(plainTx.typeTx, InternalTx)
    assert.strictEqual(plainTx.fee, 0.6)
    await assertBuckets(stranger, 10, 0)
    await assertBuckets(own, 100 - 10 - selfFee - 10 - 0.6, 0)

    // The client's own phone from a non-default wallet reaches the default one: also a self transfer.
    const phone = `+44${suffix()}`
    const phoneClient = newClientId()
    const home = await party({ clientId: phoneClient, fund: "0", extra: { phone } })
    const away = await party({ clientId: phoneClient })
    const byPhone = await sendAndSettle(away, { recipient: phone, amount: 1 })
    assert.strictEqual((await txOf(away, byPhone.txId)).typeTx, SelfWalletTransfer)
    assert.strictEqual(byPhone.fee, selfFee)
    await assertBuckets(home, 1, 0)
  })
})

describe("rule 4: a transfer to the active wallet itself", () => {
  it("is 400 / 10008 by wallet_id, address or a client-level id of its own default wallet; nothing moves", async () => {
    const phone = `+33${suffix()}`
    const me = await party({ extra: { phone, crmId: `crm-${suffix()}` } })
    for (const recipient of [me.id, me.address, phone]) {
      assertRejected(await transfer(me.sid, { recipient, amount: 1 }), 400, 10008, recipient, "recipient")
    }
    await assertBuckets(me, 100, 0)
  })
})

describe("rule 5: atomic, with the tariff's fee", () => {
  it("step one moves amount + fee free → lock_out; step two empties lock_out, credits the recipient and the fee", async () => {
    const sender = await party()
    const recipient = await party({ fund: "0" })
    const one = await begin(sender, { recipient: recipient.id, amount: 20 })
    assert.strictEqual(one.fee, 0.7)
    await assertBuckets(sender, 79.3, 20.7, "USDT", "after step one")
    await assertBuckets(recipient, 0, 0, "USDT", "recipient after step one")
    await assertLedgerSound()
    const two = await confirm(sender, { recipient: recipient.id, amount: 20 }, one.txId, one.confirmationCode!)
    assert.strictEqual(two.status, 200)
    await assertBuckets(sender, 79.3, 0, "USDT", "after step two")
    await assertBuckets(recipient, 20, 0, "USDT", "recipient after step two")
  })

  it("concurrent step ones never reserve more than the free balance", async () => {
    const sender = await party()
    const recipient = await party({ fund: "0" })
    // 15 + 0.65 fee each: six fit into 100, the other four are refused.
    const replies = await Promise.all(
      Array.from({ length: 10 }, () => transfer(sender.sid, { recipient: recipient.id, amount: 15 }))
    )
    const accepted = replies.filter((r) => r.status === 200)
    assert.strictEqual(accepted.length, 6, JSON.stringify(replies.map((r) => r.body.error?.code ?? "ok")))
    for (const r of replies) if (r.status !== 200) assertRejected(r, 400, 10002)
    await assertBuckets(sender, 100 - 6 * 15.65, 6 * 15.65)
    for (const r of accepted) {
      assert.strictEqual(
        (
          await confirm(
            sender,
            { recipient: recipient.id, amount: 15 },
            r.body.result.txId,
            r.body.result.confirmationCode
          )
        ).status,
        200
      )
    }
    await assertBuckets(sender, 100 - 6 * 15.65, 0)
    await assertBuckets(recipient, 90, 0)
  })

  it("concurrent step twos of one transfer settle it exactly once", async () => {
    const sender = await party()
    const recipient = await party({ fund: "0" })
    const body = { recipient: recipient.id, amount: 10 }
    const one = await begin(sender, body)
    const replies = await Promise.all(
      Array.from({ length: 6 }, () => confirm(sender, body, one.txId, one.confirmationCode!))
    )
    assert.strictEqual(replies.filter((r) => r.status === 200).length, 1)
    for (const r of replies) if (r.status !== 200) assertRejected(r, 400, 10082)
    await assertBuckets(sender, 100 - 10.6, 0)
    await assertBuckets(recipient, 10, 0)
  })

  it("the fee goes to the tariff's profit wallet (here a user wallet), listed in its profit transactions", async () => {
    const sender = await party({ fund: "0" })
    await client.fund(sender.id, "EUR", "50")
    const recipient = await party({ fund: "0" })
    const before = (await bucketsOf(eurProfit, "EUR")).free
    const one = await sendAndSettle(sender, { recipient: recipient.id, currency: "EUR", amount: "12.5" })
    assert.strictEqual(one.fee, eurFee)
    await assertBuckets(sender, 37.25, 0, "EUR")
    await assertBuckets(recipient, 12.5, 0, "EUR")
    await assertBuckets(eurProfit, before + eurFee, 0, "EUR", "profit wallet")
    const profit = await client.call("GET", "/core/v1/wallet/get_profit_transactions", { sid: eurProfit.sid })
    assert.strictEqual(profit.status, 200)
    assert.isTrue((profit.body.result as Array<any>).some((row) => row.id === one.txId && row.fee === eurFee))
  })

  // The Fees wallet (-2) has no session; on a real server its balance is read straight from SQL.
  itWithServer("without a profitWalletId the fee goes to the Fees wallet (-2)", async () => {
    const feesFree = async () => {
      const rows = await withDatabase(
        service().databaseUrl!,
        (sql) =>
          sql<{ free: string }>`SELECT free::text AS free FROM balances WHERE wallet_id = -2 AND currency = 'USDT'`
      )
      return rows.length === 0 ? 0n : BigInt(rows[0].free)
    }
    const sender = await party()
    const recipient = await party({ fund: "0" })
    const before = await feesFree()
    await sendAndSettle(sender, { recipient: recipient.id, amount: 30 })
    assert.strictEqual((await feesFree()) - before, 800_000n) // 0.5 + 1 % of 30 = 0.8 USDT, 6 decimals
  })

  it("a free balance short of amount + fee is 400 / 10002 and nothing moves (also when only the fee is short)", async () => {
    const sender = await party({ fund: "10" })
    const recipient = await party({ fund: "0" })
    assertRejected(
      await transfer(sender.sid, { recipient: recipient.id, amount: 11 }),
      400,
      10002,
      "amount above free",
      "amount"
    )
    // 9.5 + 0.595 > 10: the amount alone would fit.
    assertRejected(
      await transfer(sender.sid, { recipient: recipient.id, amount: "9.5" }),
      400,
      10002,
      "fee makes it short",
      "amount"
    )
    await assertBuckets(sender, 10, 0)
    await assertBuckets(recipient, 0, 0)
    // Funds reserved by a pending step one are not free either.
    const pending = await begin(sender, { recipient: recipient.id, amount: 5 })
    assertRejected(
      await transfer(sender.sid, { recipient: recipient.id, amount: 4 }),
      400,
      10002,
      "reserved funds",
      "amount"
    )
    await assertBuckets(sender, 10 - 5 - 0.55, 5.55)
    assert.strictEqual((await client.cancelTx(sender.sid, pending.txId)).status, 200)
    await assertBuckets(sender, 10, 0)
  })
})

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
  it("WalletBlock, InnerTransferBlock and Deleted are each 400 / 10031 and move nothing", async () => {
    const sender = await party()
    const recipient = await party({ fund: "0" })
    for (const [name, flag] of [
      ["WalletBlock", WalletBlock],
      ["InnerTransferBlock", InnerTransferBlock],
      ["Deleted", Deleted]
    ] as const) {
      const set = await client.priv("POST", "update_wallet", { id: sender.id, flags: IsDefault | flag })
      assert.strictEqual(set.status, 200, name)
      assertRejected(await transfer(sender.sid, { recipient: recipient.id, amount: 1 }), 400, 10031, name)
      await assertBuckets(sender, 100, 0, "USDT", name)
    }
    // Cleared flags: it sends again.
    assert.strictEqual((await client.priv("POST", "update_wallet", { id: sender.id, flags: IsDefault })).status, 200)
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

// Helpers that need node:crypto -----------------------------------------------------------

/** The raw 32-byte Ed25519 public key (the last 32 bytes of its SPKI DER), base64. */
const rawPublicKey = (publicKey: KeyObject) =>
  publicKey.export({ format: "der", type: "spki" }).subarray(-32).toString("base64")

/** The base64 Ed25519 signature of the txId's decimal string (X-SignResult). */
const signTx = (privateKey: KeyObject, txId: string) => sign(null, Buffer.from(txId), privateKey).toString("base64")

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
