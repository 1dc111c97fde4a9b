/**
 * C19 §5 over HTTP: a wallet flagged WalletBlock or Deleted cannot be debited by its own credential.
 * The attacks of issue #23 — a blocked wallet paying a payment order (pay_internal) and an invoice
 * (apply_code) — are each the same request, now refused with 400 10031 by the wallet actor (the one
 * place every debit passes), nothing moved, the ledger audit sound after (serviceForFile checks it
 * after every test). A session of a Deleted wallet is refused on every action with 401 10401. A
 * merchant whose wallet is blocked cannot reserve a payout with its app's pkey. Clearing the flag
 * lets the same requests through (the rule is the flag, nothing else).
 */
import { assert, describe, it } from "@effect/vitest"
import type { Party } from "../support/Client.ts"
import { assertRejected, errorCode, serviceForFile, WalletFlag } from "../support/Fixtures.ts"
import { investOf } from "../support/Invest.ts"
import { merchantOf } from "../support/Merchant.ts"

const { client, service } = serviceForFile({ setup: async () => {} })
const shop = merchantOf(client)
const { WalletBlock, Deleted, IsDefault } = WalletFlag

let nonce = Date.now() * 10
let next = 0

const setFlags = async (who: Party, flags: number) => {
  const reply = await client.priv("POST", "update_wallet", { id: who.id, flags })
  assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
}

/** A wallet's buckets as the private balance read shows them (a Deleted wallet's session reads nothing). */
const freeOf = async (who: Party, currency = "USDT"): Promise<number> => {
  await setFlags(who, IsDefault)
  const row = await client.balance(who.sid, currency)
  return row === undefined ? 0 : row.freeBalance
}

const applyCode = (who: Party, code: string, amount: number) =>
  client.call("POST", `/core/v1/apply_code?code=${encodeURIComponent(code)}&amount=${amount}&client_nonce=${nonce++}`, {
    sid: who.sid
  })

describe("C19 §5: a blocked wallet's debits are refused in its actor", () => {
  it("pay_internal by a WalletBlock payer: 400 10031, nothing moves; unblocked, the same request pays", async () => {
    const { merchant, app } = await shop.open("Blocked payer shop")
    const payer = await client.party({ fund: "100" })
    const order = await shop.put(app, { orderAmount: "10", externalId: `blocked-${next++}` })
    const merchantBefore = await client.bucketsOf(merchant)
    await setFlags(payer, IsDefault | WalletBlock)
    assertRejected(await shop.gate("POST", "pay_internal", order.code, {}, payer.sid), 400, errorCode.WalletBlocked)
    assert.strictEqual(await freeOf(payer), 100, "the payer kept its money")
    assert.deepStrictEqual(await client.bucketsOf(merchant), merchantBefore, "the merchant got nothing")
    assert.strictEqual((await shop.order(app, order.id)).state, "Created", "the order is still payable")
    const paid = await shop.gate("POST", "pay_internal", order.code, {}, payer.sid)
    assert.strictEqual(paid.status, 200, JSON.stringify(paid.body))
    assert.strictEqual(paid.body.result.state, "Paid")
  })

  it("apply_code paying an invoice (13, 14) by a WalletBlock payer: 400 10031, nothing moves", async () => {
    const issuer = await client.party()
    const payer = await client.party({ fund: "100" })
    for (const typeTx of [13, 14]) {
      const created = await client.call("POST", "/core/v1/create_tx_code", {
        sid: issuer.sid,
        body: { amount: 10, currency: "USDT", typeTx }
      })
      assert.strictEqual(created.status, 200, JSON.stringify(created.body))
      const code = created.body.result.code as string
      const before = await freeOf(payer)
      await setFlags(payer, IsDefault | WalletBlock)
      assertRejected(await applyCode(payer, code, 10), 400, errorCode.WalletBlocked, `invoice ${typeTx}`)
      assert.strictEqual(await freeOf(payer), before, `invoice ${typeTx}: nothing moved`)
      const paid = await applyCode(payer, code, 10)
      assert.strictEqual(paid.status, 200, JSON.stringify(paid.body))
    }
  })

  it("create_tx_code holding funds (11, 12) by a WalletBlock creator: 400 10031", async () => {
    const creator = await client.party({ fund: "100" })
    await setFlags(creator, IsDefault | WalletBlock)
    for (const typeTx of [11, 12]) {
      const reply = await client.call("POST", "/core/v1/create_tx_code", {
        sid: creator.sid,
        body: { amount: 10, currency: "USDT", typeTx }
      })
      assertRejected(reply, 400, errorCode.WalletBlocked, `type ${typeTx}`)
    }
    assert.strictEqual(await freeOf(creator), 100)
  })

  it("put_transfer_order by the app of a WalletBlock merchant: 400 10031, nothing reserved", async () => {
    const { merchant, app } = await shop.open("Blocked merchant", { fund: "100" })
    await setFlags(merchant, IsDefault | WalletBlock)
    const reply = await shop.call(app, "POST", "put_transfer_order", {
      currency: "USDT",
      orderAmount: "10",
      externalId: `payout-${next++}`
    })
    assertRejected(reply, 400, errorCode.WalletBlocked)
    assert.strictEqual(await freeOf(merchant), 100)
  })
})

describe("C19 §5: a Deleted wallet's session is refused on every action", () => {
  it("pay_internal, apply_code, create_tx_code, get_balance: 401 10401; nothing moves", async () => {
    const { app } = await shop.open("Deleted payer shop")
    const issuer = await client.party()
    const payer = await client.party({ fund: "100" })
    const order = await shop.put(app, { orderAmount: "10", externalId: `deleted-${next++}` })
    const invoice = await client.call("POST", "/core/v1/create_tx_code", {
      sid: issuer.sid,
      body: { amount: 10, currency: "USDT", typeTx: 13 }
    })
    await setFlags(payer, IsDefault | Deleted)
    assertRejected(await shop.gate("POST", "pay_internal", order.code, {}, payer.sid), 401, errorCode.Unauthorized)
    assertRejected(await applyCode(payer, invoice.body.result.code, 10), 401, errorCode.Unauthorized)
    assertRejected(
      await client.call("POST", "/core/v1/create_tx_code", {
        sid: payer.sid,
        body: { amount: 10, currency: "USDT", typeTx: 11 }
      }),
      401,
      errorCode.Unauthorized
    )
    assertRejected(await client.call("GET", "/core/v1/wallet/get_balance", { sid: payer.sid }), 401, 10401)
    assert.strictEqual(await freeOf(payer), 100)
    assert.strictEqual((await shop.order(app, order.id)).state, "Created")
  })
})

describe("C19 §5: an investment cannot lock a blocked wallet's money", () => {
  it("create_investment on a WalletBlock wallet: 400 10031, nothing locked; unblocked, the same body opens it", async () => {
    const invest = investOf(client, service)
    const owner = await client.party({ fund: "200" })
    const body = invest.body(owner)
    await setFlags(owner, IsDefault | WalletBlock)
    assertRejected(await invest.create(body), 400, 10031)
    assert.strictEqual(await freeOf(owner), 200)
    assert.match(await invest.created(body), /^[0-9]+$/)
    assert.strictEqual(await freeOf(owner), 100)
    await client.assertLedgerSound("after the blocked investment")
  })
})
