/**
 * C19 §4 over HTTP: while a wallet has Require2FA, set_security off, create_tx_code 11/12, apply_code
 * paying an invoice and pay_internal take internal_transfer's two steps. The attacks of issue #23 —
 * a stolen session switching 2FA off with one call, and those actions never asking for the second
 * factor — are each the same request: now step one changes nothing and answers
 * { confirmationStatusCode, confirmationTimetick }; the code goes out only as a ConfirmationCode
 * event whose txId is the timetick. Step two (same parameters + the proof) answers what the one-step
 * action answers; a wrong code 10080, a used one 10082, other parameters 10060. Without Require2FA the
 * actions stay one step. The ledger audit is checked after every test (serviceForFile).
 */
import { generateKeyPairSync } from "node:crypto"
import { assert, describe, it } from "@effect/vitest"
import type { Party } from "../support/Client.ts"
import { assertRejected, errorCode, serviceForFile, WalletFlag } from "../support/Fixtures.ts"
import { rawPublicKey, signTx } from "../support/InternalTransfer.ts"
import { merchantOf } from "../support/Merchant.ts"

const { client } = serviceForFile({ setup: async () => {} })
const shop = merchantOf(client)
const { Require2FA } = WalletFlag

let next = 0
let nonce = Date.now() * 10

const withQuery = (path: string, query: Record<string, string | undefined>) => {
  const entries = Object.entries(query).filter((e): e is [string, string] => e[1] !== undefined)
  return entries.length === 0 ? path : `${path}${path.includes("?") ? "&" : "?"}${new URLSearchParams(entries)}`
}

/** A funded party whose wallet has Require2FA (turned on with one call, as C19 keeps it). */
const guarded = async (fund = "100"): Promise<Party> => {
  const who = await client.party({ fund })
  const on = await client.call("POST", "/core/v1/wallet/set_security", { sid: who.sid, body: { require2FA: true } })
  assert.strictEqual(on.status, 200, JSON.stringify(on.body))
  assert.strictEqual(on.body.result.flags & Require2FA, Require2FA, "on is one call")
  return who
}

/** Step one's answer: exactly { confirmationStatusCode, confirmationTimetick }, and the event's code. */
const stepOne = async (reply: { status: number; body: any }, who: Party, status = "NeedCodeConfirm") => {
  assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
  assert.sameMembers(Object.keys(reply.body.result), ["confirmationStatusCode", "confirmationTimetick"])
  assert.strictEqual(reply.body.result.confirmationStatusCode, status)
  const tick = reply.body.result.confirmationTimetick as string
  assert.match(tick, /^[1-9][0-9]*$/)
  const events = (await client.allEvents()).filter((e) => e.kind === "ConfirmationCode" && e.payload.txId === tick)
  if (status === "NeedSign") {
    assert.isEmpty(events)
    return { tick, code: "" }
  }
  assert.strictEqual(events.length, 1, "one ConfirmationCode event, its txId the timetick")
  assert.strictEqual(events[0].walletId, who.id)
  assert.match(events[0].payload.code, /^[0-9]{6}$/)
  return { tick, code: events[0].payload.code as string }
}

/** A code the six digits of `code` are not. */
const wrong = (code: string) => (code === "000000" ? "000001" : "000000")

const setSecurity = (who: Party, body: unknown, query: Record<string, string | undefined> = {}) =>
  client.call("POST", withQuery("/core/v1/wallet/set_security", query), { sid: who.sid, body })
const createCode = (who: Party, body: Record<string, unknown>, query: Record<string, string | undefined> = {}) =>
  client.call("POST", withQuery("/core/v1/create_tx_code", query), {
    sid: who.sid,
    body: { currency: "USDT", ...body }
  })
const applyCode = (who: Party, code: string, clientNonce: number, query: Record<string, string | undefined> = {}) =>
  client.call(
    "POST",
    withQuery("/core/v1/apply_code", { code, amount: "10", client_nonce: String(clientNonce), ...query }),
    {
      sid: who.sid
    }
  )
const payInternal = (
  who: Party,
  code: string,
  query: Record<string, string | undefined> = {},
  headers?: Record<string, string>
) =>
  client.call("POST", withQuery(`/payment/v1/pay_internal?code=${encodeURIComponent(code)}`, query), {
    sid: who.sid,
    body: {},
    headers
  })
const flagsOf = async (who: Party) =>
  (await client.call("GET", "/core/v1/wallet/get_info", { sid: who.sid })).body.result.wallet.flags as number

describe("C19 §4: a stolen session cannot switch Require2FA off with one call", () => {
  it("set_security off: step one changes nothing; a wrong code 10080; the code turns it off; reused 10082", async () => {
    const who = await guarded()
    const one = await stepOne(await setSecurity(who, { require2FA: false }), who)
    assert.strictEqual((await flagsOf(who)) & Require2FA, Require2FA, "step one changed nothing")
    assertRejected(
      await setSecurity(
        who,
        { require2FA: false },
        { confirmationTimetick: one.tick, confirmationCode: wrong(one.code) }
      ),
      400,
      errorCode.ConfirmationFailed
    )
    assert.strictEqual((await flagsOf(who)) & Require2FA, Require2FA)
    const two = await setSecurity(
      who,
      { require2FA: false },
      { confirmationTimetick: one.tick, confirmationCode: one.code }
    )
    assert.strictEqual(two.status, 200, JSON.stringify(two.body))
    assert.strictEqual(two.body.result.flags & Require2FA, 0)
    // Back on (one call); the used step cannot switch it off again.
    await setSecurity(who, { require2FA: true })
    assertRejected(
      await setSecurity(who, { require2FA: false }, { confirmationTimetick: one.tick, confirmationCode: one.code }),
      400,
      errorCode.TransactionNotPending
    )
    assert.strictEqual((await flagsOf(who)) & Require2FA, Require2FA)
  })

  it("another wallet's timetick is 10082; a code without its timetick is 10001", async () => {
    const who = await guarded()
    const other = await guarded()
    const one = await stepOne(await setSecurity(who, { require2FA: false }), who)
    assertRejected(
      await setSecurity(other, { require2FA: false }, { confirmationTimetick: one.tick, confirmationCode: one.code }),
      400,
      errorCode.TransactionNotPending
    )
    assertRejected(await setSecurity(who, { require2FA: false }, { confirmationCode: one.code }), 400, 10001)
    assert.strictEqual((await flagsOf(other)) & Require2FA, Require2FA)
  })
})

describe("C19 §4: create_tx_code, apply_code and pay_internal ask for the second factor", () => {
  it("create_tx_code 11 and 12: step one holds nothing; other parameters 10060; step two creates the code", async () => {
    const who = await guarded()
    for (const typeTx of [11, 12]) {
      const before = await client.bucketsOf(who)
      const one = await stepOne(await createCode(who, { amount: 10, typeTx }), who)
      assert.deepStrictEqual(await client.bucketsOf(who), before, "step one holds nothing")
      assertRejected(
        await createCode(who, { amount: 11, typeTx }, { confirmationTimetick: one.tick, confirmationCode: one.code }),
        400,
        errorCode.ExternalIdConflict,
        "other amount"
      )
      const two = await createCode(
        who,
        { amount: 10, typeTx },
        { confirmationTimetick: one.tick, confirmationCode: one.code }
      )
      assert.strictEqual(two.status, 200, JSON.stringify(two.body))
      assert.strictEqual(two.body.result.typeTx, typeTx)
      assert.isString(two.body.result.code)
      assert.strictEqual((await client.bucketsOf(who)).lockOut, before.lockOut + 10)
    }
    // Invoices hold nothing: one step even under Require2FA.
    const invoice = await createCode(who, { amount: 10, typeTx: 13 })
    assert.strictEqual(invoice.status, 200)
    assert.isString(invoice.body.result.code)
  })

  it("apply_code paying an invoice: step one moves nothing and keeps client_nonce; step two pays with the same nonce", async () => {
    const issuer = await client.party()
    const payer = await guarded()
    const invoice = await createCode(issuer, { amount: 10, typeTx: 13 })
    const code = invoice.body.result.code as string
    const clientNonce = nonce++
    const before = await client.bucketsOf(payer)
    const one = await stepOne(await applyCode(payer, code, clientNonce), payer)
    assert.deepStrictEqual(await client.bucketsOf(payer), before, "step one moved nothing")
    assertRejected(
      await applyCode(payer, code, clientNonce + 1, { confirmationTimetick: one.tick, confirmationCode: one.code }),
      400,
      errorCode.ExternalIdConflict,
      "another client_nonce"
    )
    const two = await applyCode(payer, code, clientNonce, {
      confirmationTimetick: one.tick,
      confirmationCode: one.code
    })
    assert.strictEqual(two.status, 200, JSON.stringify(two.body))
    assert.strictEqual(two.body.result.confirmationStatusCode, "Confirmed")
    assert.isBelow((await client.bucketsOf(payer)).free, before.free)
    assert.strictEqual((await client.bucketsOf(issuer)).free, 10)
  })

  it("pay_internal: step one leaves the order Created; step two pays it; the used step is 10082", async () => {
    const { app } = await shop.open("2FA shop")
    const payer = await guarded()
    const order = await shop.put(app, { orderAmount: "10", externalId: `twofa-${next++}` })
    const one = await stepOne(await payInternal(payer, order.code), payer)
    assert.strictEqual((await shop.order(app, order.id)).state, "Created", "step one paid nothing")
    assert.strictEqual((await client.bucketsOf(payer)).free, 100)
    const two = await payInternal(payer, order.code, { confirmationTimetick: one.tick, confirmationCode: one.code })
    assert.strictEqual(two.status, 200, JSON.stringify(two.body))
    assert.strictEqual(two.body.result.state, "Paid")
    assertRejected(
      await payInternal(payer, order.code, { confirmationTimetick: one.tick, confirmationCode: one.code }),
      400,
      errorCode.TransactionNotPending
    )
  })

  it("pay_internal with X-KeyType Fido2Key: NeedSign, paid on an Ed25519 signature of the timetick", async () => {
    const { app } = await shop.open("2FA sign shop")
    const payer = await guarded()
    const { privateKey, publicKey } = generateKeyPairSync("ed25519")
    const register = await client.priv("POST", "register_key", {
      walletId: payer.id,
      publicKey: rawPublicKey(publicKey)
    })
    assert.strictEqual(register.status, 200, JSON.stringify(register.body))
    const order = await shop.put(app, { orderAmount: "10", externalId: `twofa-${next++}` })
    const one = await stepOne(await payInternal(payer, order.code, {}, { "X-KeyType": "Fido2Key" }), payer, "NeedSign")
    assertRejected(
      await payInternal(
        payer,
        order.code,
        { confirmationTimetick: one.tick },
        { "X-KeyType": "Fido2Key", "X-SignResult": signTx(privateKey, "1") }
      ),
      400,
      errorCode.ConfirmationFailed
    )
    const two = await payInternal(
      payer,
      order.code,
      { confirmationTimetick: one.tick },
      {
        "X-KeyType": "Fido2Key",
        "X-SignResult": signTx(privateKey, one.tick)
      }
    )
    assert.strictEqual(two.status, 200, JSON.stringify(two.body))
    assert.strictEqual(two.body.result.state, "Paid")
  })

  it("without Require2FA the same actions stay one step", async () => {
    const { app } = await shop.open("Plain shop")
    const payer = await client.party({ fund: "100" })
    const order = await shop.put(app, { orderAmount: "10", externalId: `plain-${next++}` })
    const paid = await payInternal(payer, order.code)
    assert.strictEqual(paid.status, 200, JSON.stringify(paid.body))
    assert.strictEqual(paid.body.result.state, "Paid")
    const made = await createCode(payer, { amount: 10, typeTx: 11 })
    assert.strictEqual(made.status, 200, JSON.stringify(made.body))
    assert.isString(made.body.result.code)
  })
})
