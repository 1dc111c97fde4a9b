/**
 * Transfer codes, invoices and escrow over real HTTP against the real service process: the creation
 * rules of SPEC "General (session)" (amount, partnerInfo and tag length, currency, blocked wallets,
 * what each type holds, TxCodesOut), one table-driven case per row of SPEC "Code transfer
 * transitions" (each driven through apply_code / cancel_tx, the resulting stateCode read back with
 * get_tx_info by code, and the net free and lock_out movement of both parties checked against a
 * 0.5 USDT fee), id-based access (CONTRACT C10), client_nonce (C13), concurrent redemption of one
 * code, and the obsolete cancel_code alias. After every test the ledger audit must show every
 * currency summing to "0" and no user bucket below zero.
 */
import { assert, describe, it } from "@effect/vitest"
import type { Buckets, Party } from "../support/Client.ts"
import { assertRejected, CodeStateCode, errorCode, exact, qs, serviceForFile, WalletFlag } from "../support/Fixtures.ts"

const { WalletBlock, InnerTransferBlock, Deleted, IsDefault } = WalletFlag
const { FundsHolded, InvoiceCreated, NeedConfirm, Finished, Cancelled } = CodeStateCode
const E = { ...errorCode, NotPending: errorCode.TransactionNotPending, NotFound: errorCode.TransactionNotFound }

// Tariff of this file: every InnerTransfer-class USDT operation (codes included) costs 0.5 flat.
const fee = 0.5

const { client } = serviceForFile({
  setup: (c) => c.setTariffs([{ txClass: "InnerTransfer", currency: "USDT", feeFixed: "0.5", feePercent: "0" }])
})

let nonce = Date.now() * 10

/** A wallet with its own session, funded with `fund` USDT (default 100). */
const party = (fund = "100", clientId?: string) => client.party({ fund, clientId })

const bucketsOf = (who: Party) => client.bucketsOf(who)
/** Asserts `who` moved by exactly (free, lockOut) since `before`, with lock_in untouched. */
const assertMoved = async (
  who: Party,
  before: Omit<Buckets, "lockOrders">,
  free: number,
  lockOut: number,
  label: string
) => {
  const now = await bucketsOf(who)
  assert.strictEqual(exact(now.free - before.free), exact(free), `${label}: free delta`)
  assert.strictEqual(exact(now.lockOut - before.lockOut), exact(lockOut), `${label}: lockOut delta`)
  assert.strictEqual(now.lockIn, before.lockIn, `${label}: lockIn`)
}

const createCode = (who: Party, body: Record<string, unknown>) =>
  client.call("POST", "/core/v1/create_tx_code", { sid: who.sid, body: { currency: "USDT", ...body } })

interface CodeOut {
  timetick: string
  code: string
  currency: string
  amount: number
  typeTx: number
  stateCode: number
  state: string
  isOwner: boolean
  dateTxUTC: string
}
const newCode = async (
  who: Party,
  typeTx: number,
  amount = 10,
  extra: Record<string, unknown> = {}
): Promise<CodeOut> => {
  const reply = await createCode(who, { amount, typeTx, ...extra })
  assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
  return reply.body.result
}

type Ref = { code: string } | { id: string }
const apply = (who: Party, ref: Ref, options: { amount?: number | string; nonce?: number | null } = {}) =>
  client.call(
    "POST",
    `/core/v1/apply_code?${qs({
      ...ref,
      amount: options.amount,
      client_nonce: options.nonce === null ? undefined : (options.nonce ?? nonce++)
    })}`,
    { sid: who.sid }
  )
const cancelTx = (who: Party, ref: Record<string, string>) =>
  client.call("POST", `/core/v1/wallet/cancel_tx?${qs(ref)}`, { sid: who.sid })
const cancelCode = (who: Party, ref: Record<string, string>) =>
  client.call("POST", `/core/v1/cancel_code?${qs(ref)}`, { sid: who.sid })
const txInfo = (who: Party, ref: Record<string, string>) =>
  client.call("GET", `/core/v1/wallet/get_tx_info?${qs(ref)}`, { sid: who.sid })
const stateOf = async (who: Party, code: string) => {
  const reply = await txInfo(who, { code })
  assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
  return reply.body.result
}

describe("creation rules (SPEC code creation rules 1-5)", () => {
  it("TxCodesOut: types 11/12 hold the amount (FundsHolded), 13/14 move nothing (InvoiceCreated)", async () => {
    const creator = await party()
    let before = await bucketsOf(creator)
    for (const typeTx of [11, 12, 13, 14]) {
      const out = await newCode(creator, typeTx, 10, { tag: "t".repeat(100), partnerInfo: "p".repeat(100) })
      assert.isString(out.timetick)
      assert.match(out.timetick, /^\d+$/)
      assert.isString(out.code)
      assert.isAtLeast(out.code.length, 22)
      assert.strictEqual(out.currency, "USDT")
      assert.strictEqual(out.amount, 10)
      assert.strictEqual(out.typeTx, typeTx)
      const expected = typeTx <= 12 ? FundsHolded : InvoiceCreated
      assert.strictEqual(out.stateCode, expected)
      assert.strictEqual(out.state, typeTx <= 12 ? "FundsHolded" : "InvoiceCreated")
      assert.strictEqual(out.isOwner, true)
      assert.isFalse(Number.isNaN(Date.parse(out.dateTxUTC)), out.dateTxUTC)
      assert.match(out.dateTxUTC, /Z$/)
      await assertMoved(creator, before, typeTx <= 12 ? -10 : 0, typeTx <= 12 ? 10 : 0, `type ${typeTx}`)
      before = await bucketsOf(creator)
      // get_tx_info by code shows the same face.
      const info = await stateOf(creator, out.code)
      assert.strictEqual(info.stateCode, expected)
      assert.strictEqual(info.state, out.state)
      assert.strictEqual(info.isOwner, true)
      assert.strictEqual(info.timetick, out.timetick)
    }
  })

  it("timeLimit: true makes a longer code", async () => {
    const creator = await party()
    const plain = await newCode(creator, 13)
    const timed = await newCode(creator, 13, 10, { timeLimit: true })
    assert.isAbove(timed.code.length, plain.code.length)
  })

  it("amount must be > 0; partnerInfo and tag at most 100; currency must exist; decimals; nothing moves", async () => {
    const creator = await party()
    const before = await bucketsOf(creator)
    for (const [label, body, code] of [
      ["amount 0", { amount: 0, typeTx: 11 }, undefined],
      ["amount -1", { amount: -1, typeTx: 11 }, undefined],
      ["partnerInfo 101", { amount: 5, typeTx: 11, partnerInfo: "p".repeat(101) }, undefined],
      ["tag 101", { amount: 5, typeTx: 11, tag: "t".repeat(101) }, undefined],
      ["typeTx 15", { amount: 5, typeTx: 15 }, undefined],
      ["unknown currency", { amount: 5, typeTx: 11, currency: "NOPE" }, E.UnknownCurrency],
      ["too many decimals", { amount: "1.1234567", typeTx: 11 }, E.TooManyDecimals]
    ] as const) {
      const reply = await createCode(creator, body)
      if (code === undefined) {
        assert.strictEqual(reply.status, 400, `${label} ${JSON.stringify(reply.body)}`)
        assert.isNull(reply.body.result, label)
      } else assertRejected(reply, 400, code, label)
    }
    await assertMoved(creator, before, 0, 0, "after rejections")
  })

  it("types 11/12 need free balance: 10002 when short, nothing moves; invoices need none", async () => {
    const creator = await party("5")
    const before = await bucketsOf(creator)
    assertRejected(await createCode(creator, { amount: 6, typeTx: 11 }), 400, E.BalanceNotEnough, "11 short", "amount")
    assertRejected(await createCode(creator, { amount: 6, typeTx: 12 }), 400, E.BalanceNotEnough, "12 short", "amount")
    await assertMoved(creator, before, 0, 0, "after 10002")
    await newCode(creator, 13, 1000)
    await newCode(creator, 14, 1000)
    await assertMoved(creator, before, 0, 0, "invoices")
    await newCode(creator, 11, 5)
    await assertMoved(creator, before, -5, 5, "exact balance")
  })

  it("WalletBlock, InnerTransferBlock and Deleted wallets cannot create codes (10031)", async () => {
    for (const flag of [WalletBlock, InnerTransferBlock, Deleted]) {
      const creator = await party()
      const set = await client.priv("POST", "update_wallet", { id: creator.id, flags: IsDefault | flag })
      assert.strictEqual(set.status, 200, JSON.stringify(set.body))
      const before = await bucketsOf(creator)
      for (const typeTx of [11, 12, 13, 14]) {
        assertRejected(
          await createCode(creator, { amount: 5, typeTx }),
          400,
          E.WalletBlocked,
          `flag ${flag} type ${typeTx}`
        )
      }
      await assertMoved(creator, before, 0, 0, `flag ${flag}`)
    }
  })
})

// ---------------------------------------------------------------------------------------------
// The transitions table, one row per case. `steps` run in order from a fresh code of `type` with
// amount 10 made by `creator`; `other` and `third` are two further funded wallets. `net` is the
// movement of (free, lockOut) of creator and other from before the code was created to the end.

type Who = "creator" | "other" | "third"
interface Step {
  readonly by: Who
  readonly op: "apply" | "cancel"
  readonly amount?: number
  /** "Confirmed" / "NeedCodeConfirm" for apply, "ok" for cancel, or an error code. */
  readonly expect: "Confirmed" | "NeedCodeConfirm" | "ok" | number
  /** The stateCode after this step. */
  readonly state: number
}
interface Row {
  readonly name: string
  readonly type: 11 | 12 | 13 | 14
  readonly steps: ReadonlyArray<Step>
  readonly net: { readonly creator: readonly [number, number]; readonly other: readonly [number, number] }
}

const A = 10
const rows: ReadonlyArray<Row> = [
  {
    name: "11 FundsHolded: apply by a redeemer → Finished; creator lock_out −A, redeemer free +A−fee",
    type: 11,
    steps: [{ by: "other", op: "apply", expect: "Confirmed", state: Finished }],
    net: { creator: [-A, 0], other: [A - fee, 0] }
  },
  {
    name: "11 FundsHolded: apply by the creator → 10008, unchanged",
    type: 11,
    steps: [{ by: "creator", op: "apply", expect: E.SameAccounts, state: FundsHolded }],
    net: { creator: [-A, A], other: [0, 0] }
  },
  {
    name: "12 FundsHolded: apply by the creator → 10008, unchanged",
    type: 12,
    steps: [{ by: "creator", op: "apply", expect: E.SameAccounts, state: FundsHolded }],
    net: { creator: [-A, A], other: [0, 0] }
  },
  {
    name: "12 FundsHolded: apply by the recipient → NeedConfirm (NeedCodeConfirm), funds stay locked",
    type: 12,
    steps: [{ by: "other", op: "apply", expect: "NeedCodeConfirm", state: NeedConfirm }],
    net: { creator: [-A, A], other: [0, 0] }
  },
  {
    name: "12 NeedConfirm: apply by the sender → Finished, funds released to the recipient",
    type: 12,
    steps: [
      { by: "other", op: "apply", expect: "NeedCodeConfirm", state: NeedConfirm },
      { by: "creator", op: "apply", expect: "Confirmed", state: Finished }
    ],
    net: { creator: [-A, 0], other: [A - fee, 0] }
  },
  {
    name: "12 NeedConfirm: apply by the recipient again or by a third wallet → 10084, unchanged",
    type: 12,
    steps: [
      { by: "other", op: "apply", expect: "NeedCodeConfirm", state: NeedConfirm },
      { by: "other", op: "apply", expect: E.WrongSide, state: NeedConfirm },
      { by: "third", op: "apply", expect: E.WrongSide, state: NeedConfirm }
    ],
    net: { creator: [-A, A], other: [0, 0] }
  },
  {
    name: "11 FundsHolded: cancel by the creator → Cancelled, held funds back to free",
    type: 11,
    steps: [{ by: "creator", op: "cancel", expect: "ok", state: Cancelled }],
    net: { creator: [0, 0], other: [0, 0] }
  },
  {
    name: "12 FundsHolded: cancel by the creator → Cancelled, held funds back to free",
    type: 12,
    steps: [{ by: "creator", op: "cancel", expect: "ok", state: Cancelled }],
    net: { creator: [0, 0], other: [0, 0] }
  },
  {
    name: "11/12 FundsHolded: cancel by someone else → 10084, unchanged",
    type: 12,
    steps: [{ by: "other", op: "cancel", expect: E.WrongSide, state: FundsHolded }],
    net: { creator: [-A, A], other: [0, 0] }
  },
  {
    name: "12 NeedConfirm: cancel by the recipient → Cancelled, funds back to the sender",
    type: 12,
    steps: [
      { by: "other", op: "apply", expect: "NeedCodeConfirm", state: NeedConfirm },
      { by: "other", op: "cancel", expect: "ok", state: Cancelled }
    ],
    net: { creator: [0, 0], other: [0, 0] }
  },
  {
    name: "12 NeedConfirm: cancel by the sender → 10084 (escrow invariant), funds stay locked",
    type: 12,
    steps: [
      { by: "other", op: "apply", expect: "NeedCodeConfirm", state: NeedConfirm },
      { by: "creator", op: "cancel", expect: E.WrongSide, state: NeedConfirm }
    ],
    net: { creator: [-A, A], other: [0, 0] }
  },
  {
    name: "13 InvoiceCreated: pay with the exact amount → Finished; payer free −A, creator free +A−fee",
    type: 13,
    steps: [{ by: "other", op: "apply", amount: A, expect: "Confirmed", state: Finished }],
    net: { creator: [A - fee, 0], other: [-A, 0] }
  },
  {
    name: "13 InvoiceCreated: pay with another amount (or none) → 10014 / 10001 before money moves",
    type: 13,
    steps: [
      { by: "other", op: "apply", amount: A + 1, expect: E.InvalidAmount, state: InvoiceCreated },
      { by: "other", op: "apply", amount: A - 1, expect: E.InvalidAmount, state: InvoiceCreated },
      { by: "other", op: "apply", expect: E.InvalidRequest, state: InvoiceCreated }
    ],
    net: { creator: [0, 0], other: [0, 0] }
  },
  {
    name: "13 InvoiceCreated: apply by the creator → 10008",
    type: 13,
    steps: [{ by: "creator", op: "apply", amount: A, expect: E.SameAccounts, state: InvoiceCreated }],
    net: { creator: [0, 0], other: [0, 0] }
  },
  {
    name: "14 InvoiceCreated: apply by the creator → 10008",
    type: 14,
    steps: [{ by: "creator", op: "apply", amount: A, expect: E.SameAccounts, state: InvoiceCreated }],
    net: { creator: [0, 0], other: [0, 0] }
  },
  {
    name: "14 InvoiceCreated: first apply binds the payer and locks its amount (NeedCodeConfirm)",
    type: 14,
    steps: [{ by: "other", op: "apply", amount: A, expect: "NeedCodeConfirm", state: NeedConfirm }],
    net: { creator: [0, 0], other: [-A, A] }
  },
  {
    name: "14 NeedConfirm: second apply by the same payer → Finished; payer lock_out −A, creator free +A−fee",
    type: 14,
    steps: [
      { by: "other", op: "apply", amount: A, expect: "NeedCodeConfirm", state: NeedConfirm },
      { by: "other", op: "apply", amount: A, expect: "Confirmed", state: Finished }
    ],
    net: { creator: [A - fee, 0], other: [-A, 0] }
  },
  {
    name: "14 NeedConfirm: apply by another payer → 10084; same payer with a wrong amount → 10014",
    type: 14,
    steps: [
      { by: "other", op: "apply", amount: A, expect: "NeedCodeConfirm", state: NeedConfirm },
      { by: "third", op: "apply", amount: A, expect: E.WrongSide, state: NeedConfirm },
      { by: "other", op: "apply", amount: A + 1, expect: E.InvalidAmount, state: NeedConfirm }
    ],
    net: { creator: [0, 0], other: [-A, A] }
  },
  {
    name: "13 InvoiceCreated: cancel by the creator → Cancelled",
    type: 13,
    steps: [{ by: "creator", op: "cancel", expect: "ok", state: Cancelled }],
    net: { creator: [0, 0], other: [0, 0] }
  },
  {
    name: "14 InvoiceCreated: cancel by the creator → Cancelled; cancel by a non-party → 10084",
    type: 14,
    steps: [
      { by: "other", op: "cancel", expect: E.WrongSide, state: InvoiceCreated },
      { by: "creator", op: "cancel", expect: "ok", state: Cancelled }
    ],
    net: { creator: [0, 0], other: [0, 0] }
  },
  {
    name: "14 NeedConfirm: payer cancel → InvoiceCreated again, payer's lock released, payable again (by another payer)",
    type: 14,
    steps: [
      { by: "other", op: "apply", amount: A, expect: "NeedCodeConfirm", state: NeedConfirm },
      { by: "other", op: "cancel", expect: "ok", state: InvoiceCreated },
      { by: "third", op: "apply", amount: A, expect: "NeedCodeConfirm", state: NeedConfirm },
      { by: "third", op: "apply", amount: A, expect: "Confirmed", state: Finished }
    ],
    net: { creator: [A - fee, 0], other: [0, 0] }
  },
  {
    name: "14 NeedConfirm: creator cancel → Cancelled, payer's lock released",
    type: 14,
    steps: [
      { by: "other", op: "apply", amount: A, expect: "NeedCodeConfirm", state: NeedConfirm },
      { by: "creator", op: "cancel", expect: "ok", state: Cancelled }
    ],
    net: { creator: [0, 0], other: [0, 0] }
  },
  {
    name: "Finished / Cancelled codes: any further apply or cancel → 10082",
    type: 11,
    steps: [
      { by: "other", op: "apply", expect: "Confirmed", state: Finished },
      { by: "third", op: "apply", expect: E.NotPending, state: Finished },
      { by: "creator", op: "cancel", expect: E.NotPending, state: Finished }
    ],
    net: { creator: [-A, 0], other: [A - fee, 0] }
  },
  {
    name: "Cancelled code: apply → 10082, cancel again → 10082",
    type: 12,
    steps: [
      { by: "creator", op: "cancel", expect: "ok", state: Cancelled },
      { by: "other", op: "apply", expect: E.NotPending, state: Cancelled },
      { by: "creator", op: "cancel", expect: E.NotPending, state: Cancelled }
    ],
    net: { creator: [0, 0], other: [0, 0] }
  }
]

/** The field a transition's rejection names first: the code itself, or its amount. */
const fieldOf: Record<number, string> = {
  [E.SameAccounts]: "code",
  [E.WrongSide]: "code",
  [E.NotPending]: "code",
  [E.InvalidAmount]: "amount"
}

describe("SPEC code transfer transitions, row by row", () => {
  for (const row of rows) {
    it(row.name, async () => {
      const parties = { creator: await party(), other: await party(), third: await party() }
      const before = { creator: await bucketsOf(parties.creator), other: await bucketsOf(parties.other) }
      const code = await newCode(parties.creator, row.type, A)
      for (const [i, step] of row.steps.entries()) {
        const label = `step ${i + 1} (${step.by} ${step.op})`
        const who = parties[step.by]
        const reply =
          step.op === "apply"
            ? await apply(who, { code: code.code }, { amount: step.amount })
            : await cancelTx(who, { code: code.code })
        if (typeof step.expect === "number") {
          assertRejected(reply, step.expect === E.NotFound ? 404 : 400, step.expect, label, fieldOf[step.expect])
        } else {
          assert.strictEqual(reply.status, 200, `${label} ${JSON.stringify(reply.body)}`)
          if (step.op === "apply") {
            assert.strictEqual(reply.body.result.confirmationStatusCode, step.expect, label)
            assert.strictEqual(reply.body.result.txId, code.timetick, label)
            assert.isString(reply.body.result.result)
          } else {
            assert.strictEqual(reply.body.result.txId, code.timetick, label)
          }
        }
        const info = await stateOf(parties.creator, code.code)
        assert.strictEqual(info.stateCode, step.state, `${label}: stateCode`)
      }
      await assertMoved(parties.creator, before.creator, row.net.creator[0], row.net.creator[1], "creator")
      await assertMoved(parties.other, before.other, row.net.other[0], row.net.other[1], "other")
    })
  }
})

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

    const n = nonce++
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
