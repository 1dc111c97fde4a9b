/**
 * Transfer codes, invoices and escrow over real HTTP against the real service process, part one:
 * the creation rules of SPEC "General (session)" (amount, partnerInfo and tag length, currency,
 * blocked wallets, what each type holds, TxCodesOut), and one table-driven case per row of SPEC
 * "Code transfer transitions" (each driven through apply_code / cancel_tx, the resulting stateCode
 * read back with get_tx_info by code, and the net free and lock_out movement of both parties
 * checked against a 0.5 USDT fee). After every test the ledger audit must show every currency
 * summing to "0" and no user bucket below zero.
 */
import { assert, describe, it } from "@effect/vitest"
import { A, codesFile, E, fee } from "../support/Codes.ts"
import { assertRejected, CodeStateCode, exact, WalletFlag } from "../support/Fixtures.ts"

const { WalletBlock, InnerTransferBlock, Deleted, IsDefault } = WalletFlag
const { FundsHolded, InvoiceCreated, NeedConfirm, Finished, Cancelled } = CodeStateCode

const { client, party, bucketsOf, assertMoved, createCode, newCode, apply, cancelTx, stateOf } = codesFile()

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

  it("WalletBlock and InnerTransferBlock wallets cannot create codes (10031); a Deleted wallet's session is 401 10401 (C19 §5)", async () => {
    for (const flag of [WalletBlock, InnerTransferBlock, Deleted]) {
      const creator = await party()
      const before = await bucketsOf(creator)
      const set = await client.priv("POST", "update_wallet", { id: creator.id, flags: IsDefault | flag })
      assert.strictEqual(set.status, 200, JSON.stringify(set.body))
      for (const typeTx of [11, 12, 13, 14]) {
        const reply = await createCode(creator, { amount: 5, typeTx })
        if (flag === Deleted) assertRejected(reply, 401, 10401, `Deleted type ${typeTx}`)
        else assertRejected(reply, 400, E.WalletBlocked, `flag ${flag} type ${typeTx}`)
      }
      assert.strictEqual((await client.priv("POST", "update_wallet", { id: creator.id, flags: IsDefault })).status, 200)
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
