/**
 * Transfer codes, invoices and escrow over real HTTP against the real service process, part two:
 * id-based access (CONTRACT C10), client_nonce (C13), concurrent redemption of one code, and the
 * obsolete cancel_code alias, with the net free and lock_out movement checked against a 0.5 USDT
 * fee. After every test the ledger audit must show every currency summing to "0" and no user
 * bucket below zero.
 */
import { assert, describe, it } from "@effect/vitest"
import { A, codesFile, E, fee, type Ref } from "../support/Codes.ts"
import { assertRejected, CodeStateCode, exact } from "../support/Fixtures.ts"

const { FundsHolded, InvoiceCreated, NeedConfirm, Finished, Cancelled } = CodeStateCode

const { nextNonce, party, bucketsOf, assertMoved, newCode, apply, cancelTx, cancelCode, txInfo, stateOf } = codesFile()

describe("id-based access (SPEC rule 2, CONTRACT C10)", () => {
  it("by id: creator and bound party may look, apply and cancel; a stranger gets 404 and moves nothing", async () => {
    const creator = await party()
    const recipient = await party()
    const stranger = await party()
    const code = await newCode(creator, 12)
    const id = code.timetick
    const snapshot = async () => [await bucketsOf(creator), await bucketsOf(recipient), await bucketsOf(stranger)]

    // The creator sees it by id.
    const mine = await txInfo(creator, { id })
    assert.strictEqual(mine.status, 200, JSON.stringify(mine.body))
    assert.strictEqual(mine.body.result.stateCode, FundsHolded)
    assert.strictEqual(mine.body.result.state, "FundsHolded")
    assert.strictEqual(mine.body.result.isOwner, true)

    // Unbound wallets (the future recipient too) cannot use the id.
    let before = await snapshot()
    assertRejected(await txInfo(stranger, { id }), 404, E.NotFound, "stranger info")
    assertRejected(await apply(stranger, { id }), 404, E.NotFound, "stranger apply")
    assertRejected(await apply(recipient, { id }), 404, E.NotFound, "unbound apply")
    assertRejected(await cancelTx(stranger, { id }), 404, E.NotFound, "stranger cancel_tx")
    assertRejected(await cancelCode(stranger, { id }), 404, E.NotFound, "stranger cancel_code")
    assert.deepStrictEqual(await snapshot(), before)
    assert.strictEqual((await stateOf(creator, code.code)).stateCode, FundsHolded)

    // The recipient joins by code and is then bound: it sees and acts by id.
    const join = await apply(recipient, { code: code.code })
    assert.strictEqual(join.status, 200, JSON.stringify(join.body))
    const theirs = await txInfo(recipient, { id })
    assert.strictEqual(theirs.status, 200, JSON.stringify(theirs.body))
    assert.strictEqual(theirs.body.result.stateCode, NeedConfirm)
    assert.strictEqual(theirs.body.result.isOwner, false)
    before = await snapshot()
    assertRejected(await txInfo(stranger, { id }), 404, E.NotFound, "stranger info after join")
    assertRejected(await apply(stranger, { id }), 404, E.NotFound, "stranger apply after join")
    assertRejected(await cancelTx(stranger, { id }), 404, E.NotFound, "stranger cancel after join")
    assert.deepStrictEqual(await snapshot(), before)
    // Side checks still apply by id: the sender cannot cancel after the join.
    assertRejected(await cancelTx(creator, { id }), 400, E.WrongSide, "sender cancel by id")
    // The sender settles by id.
    const settle = await apply(creator, { id })
    assert.strictEqual(settle.status, 200, JSON.stringify(settle.body))
    assert.strictEqual(settle.body.result.confirmationStatusCode, "Confirmed")
    assert.strictEqual((await stateOf(creator, code.code)).stateCode, Finished)
    const after = await snapshot()
    assert.strictEqual(exact(after[1].free - before[1].free), A - fee)

    // A second code: the creator cancels by id (cancel_tx and cancel_code).
    for (const cancel of [cancelTx, cancelCode]) {
      const other = await newCode(creator, 11)
      const reply = await cancel(creator, { id: other.timetick })
      assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
      assert.strictEqual((await stateOf(creator, other.code)).stateCode, Cancelled)
    }
    // A bound payer of a type 14 invoice detaches by id.
    const invoice = await newCode(creator, 14)
    const payer = await party()
    assert.strictEqual((await apply(payer, { code: invoice.code }, { amount: A })).status, 200)
    const detach = await cancelTx(payer, { id: invoice.timetick })
    assert.strictEqual(detach.status, 200, JSON.stringify(detach.body))
    assert.strictEqual((await stateOf(creator, invoice.code)).stateCode, InvoiceCreated)
    // Unbound again: the id no longer works for the former payer.
    assertRejected(await apply(payer, { id: invoice.timetick }, { amount: A }), 404, E.NotFound, "former payer by id")
  })

  it("both code and id → 400 10001; neither → 400; unknown code → 404", async () => {
    const creator = await party()
    const other = await party()
    const code = await newCode(creator, 11)
    const before = [await bucketsOf(creator), await bucketsOf(other)]
    const both = { code: code.code, id: code.timetick }
    assertRejected(await apply(other, both), 400, E.InvalidRequest, "apply both")
    assertRejected(await cancelTx(creator, both), 400, E.InvalidRequest, "cancel_tx both")
    assertRejected(await cancelCode(creator, both), 400, E.InvalidRequest, "cancel_code both")
    assertRejected(await txInfo(creator, both), 400, E.InvalidRequest, "get_tx_info both")
    for (const [label, reply] of [
      ["apply neither", await apply(other, {} as Ref)],
      ["cancel_tx neither", await cancelTx(creator, {})],
      ["cancel_code neither", await cancelCode(creator, {})]
    ] as const) {
      assert.strictEqual(reply.status, 400, `${label} ${JSON.stringify(reply.body)}`)
      assert.isNull(reply.body.result, label)
    }
    assertRejected(await apply(other, { code: "Cnosuchcodexxxxxxxxxxxxxx" }), 404, E.NotFound, "unknown code apply")
    assertRejected(await cancelTx(other, { code: "Cnosuchcodexxxxxxxxxxxxxx" }), 404, E.NotFound, "unknown code cancel")
    assertRejected(await txInfo(other, { code: "Cnosuchcodexxxxxxxxxxxxxx" }), 404, E.NotFound, "unknown code info")
    assert.deepStrictEqual([await bucketsOf(creator), await bucketsOf(other)], before)
    assert.strictEqual((await stateOf(creator, code.code)).stateCode, FundsHolded)
  })
})

describe("client_nonce (CONTRACT C13)", () => {
  it("is required (missing → 400) and unique per wallet (reuse → 10130)", async () => {
    const creator = await party()
    const payer = await party()
    const one = await newCode(creator, 14)
    const two = await newCode(creator, 14)
    const before = await bucketsOf(payer)
    const missing = await apply(payer, { code: one.code }, { amount: A, nonce: null })
    assert.strictEqual(missing.status, 400, JSON.stringify(missing.body))
    assert.isNull(missing.body.result)
    await assertMoved(payer, before, 0, 0, "missing nonce")

    const n = nextNonce()
    const first = await apply(payer, { code: one.code }, { amount: A, nonce: n })
    assert.strictEqual(first.status, 200, JSON.stringify(first.body))
    await assertMoved(payer, before, -A, A, "first")
    assertRejected(
      await apply(payer, { code: two.code }, { amount: A, nonce: n }),
      400,
      E.NonceExists,
      "reuse on another code",
      "client_nonce"
    )
    assertRejected(
      await apply(payer, { code: one.code }, { amount: A, nonce: n }),
      400,
      E.NonceExists,
      "reuse on the same code",
      "client_nonce"
    )
    await assertMoved(payer, before, -A, A, "after reuse")
    assert.strictEqual((await stateOf(creator, one.code)).stateCode, NeedConfirm)
    assert.strictEqual((await stateOf(creator, two.code)).stateCode, InvoiceCreated)
    // Another wallet may use the same number.
    const other = await party()
    const theirs = await apply(other, { code: two.code }, { amount: A, nonce: n })
    assert.strictEqual(theirs.status, 200, JSON.stringify(theirs.body))
  })
})

describe("concurrent redemption", () => {
  for (const n of [2, 10]) {
    it(`${n} redeemers of one type-11 code at once: exactly one gets the money`, async () => {
      const creator = await party()
      const redeemers = await Promise.all(Array.from({ length: n }, () => party("0")))
      const code = await newCode(creator, 11, A)
      const replies = await Promise.all(redeemers.map((r) => apply(r, { code: code.code })))
      const winners = replies.filter((r) => r.status === 200)
      assert.strictEqual(winners.length, 1, JSON.stringify(replies.map((r) => r.body)))
      assert.strictEqual(winners[0].body.result.confirmationStatusCode, "Confirmed")
      for (const r of replies) if (r.status !== 200) assertRejected(r, 400, E.NotPending, "loser")
      const balances = await Promise.all(redeemers.map(bucketsOf))
      assert.deepStrictEqual(
        balances.map((b) => b.free).sort((a, b) => b - a),
        [A - fee, ...Array(n - 1).fill(0)]
      )
      const c = await bucketsOf(creator)
      assert.strictEqual(c.free, 100 - A)
      assert.strictEqual(c.lockOut, 0)
      assert.strictEqual((await stateOf(creator, code.code)).stateCode, Finished)
    })
  }

  it("a redeem racing the creator's cancel: exactly one wins, balances exact", async () => {
    const creator = await party()
    const redeemer = await party("0")
    const code = await newCode(creator, 11, A)
    const [redeem, cancel] = await Promise.all([
      apply(redeemer, { code: code.code }),
      cancelTx(creator, { code: code.code })
    ])
    assert.strictEqual(
      [redeem, cancel].filter((r) => r.status === 200).length,
      1,
      JSON.stringify([redeem.body, cancel.body])
    )
    const state = (await stateOf(creator, code.code)).stateCode
    if (redeem.status === 200) {
      assert.strictEqual(state, Finished)
      await assertMoved(redeemer, { free: 0, lockOut: 0, lockIn: 0 }, A - fee, 0, "redeemer")
    } else {
      assert.strictEqual(state, Cancelled)
      await assertMoved(creator, { free: 100, lockOut: 0, lockIn: 0 }, 0, 0, "creator")
    }
  })
})

describe("cancel_code (obsolete alias of cancel_tx for codes)", () => {
  it("behaves like cancel_tx: creator cancels, wrong sides get 10084, finished codes 10082", async () => {
    const creator = await party()
    const other = await party()
    const before = [await bucketsOf(creator), await bucketsOf(other)]
    // 11: creator cancels; funds back.
    const a = await newCode(creator, 11)
    assertRejected(await cancelCode(other, { code: a.code }), 400, E.WrongSide, "other cancels 11")
    const ok = await cancelCode(creator, { code: a.code })
    assert.strictEqual(ok.status, 200, JSON.stringify(ok.body))
    assert.strictEqual(ok.body.result.txId, a.timetick)
    assert.strictEqual((await stateOf(creator, a.code)).stateCode, Cancelled)
    assertRejected(await cancelCode(creator, { code: a.code }), 400, E.NotPending, "again")
    // 12 after join: the sender cannot, the recipient can.
    const b = await newCode(creator, 12)
    assert.strictEqual((await apply(other, { code: b.code })).status, 200)
    assertRejected(await cancelCode(creator, { code: b.code }), 400, E.WrongSide, "sender after join")
    assert.strictEqual((await cancelCode(other, { code: b.code })).status, 200)
    assert.strictEqual((await stateOf(creator, b.code)).stateCode, Cancelled)
    // 14 after join: payer detaches.
    const c = await newCode(creator, 14)
    assert.strictEqual((await apply(other, { code: c.code }, { amount: A })).status, 200)
    assert.strictEqual((await cancelCode(other, { code: c.code })).status, 200)
    assert.strictEqual((await stateOf(creator, c.code)).stateCode, InvoiceCreated)
    assert.strictEqual((await cancelCode(creator, { code: c.code })).status, 200)
    assert.strictEqual((await stateOf(creator, c.code)).stateCode, Cancelled)
    assert.deepStrictEqual([await bucketsOf(creator), await bucketsOf(other)], before)
  })
})
