/**
 * Internal transfers over real HTTP against the real service process, step one of SPEC "Internal
 * transfer": the recipient forms, the project bound of a wallet_id, self wallet transfers with their
 * own tariff, the same-wallet rejection, and atomic two-step balances and fees. Step two and the
 * second factor are internal-transfer-step-two.test.ts; cancel_tx, events, reads, amount validation
 * and estimate_fee are internal-transfer-history-and-limits.test.ts. Balances are read through each
 * party's own session; after every test the ledger audit must show every currency summing to "0" and
 * no user bucket below zero.
 */
import { assert, describe, it } from "@effect/vitest"
import { assertRejected, exact, TxType, WalletFlag } from "../support/Fixtures.ts"
import { eurFee, innerFee, internalTransferFile, selfFee } from "../support/InternalTransfer.ts"
import { withDatabase } from "../support/Postgres.ts"
import { itWithServer } from "../support/Service.ts"

const { IsDefault } = WalletFlag
const { InternalTx, SelfWalletTransfer } = TxType

const {
  service,
  client,
  eurProfit,
  newClientId,
  suffix,
  party,
  bucketsOf,
  assertBuckets,
  transfer,
  begin,
  confirm,
  sendAndSettle,
  txOf,
  assertLedgerSound
} = internalTransferFile()

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
