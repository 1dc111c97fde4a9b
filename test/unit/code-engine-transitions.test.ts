/**
 * The transfer-code state machine (actors/code/Engine.ts) against SPEC "Code transfer transitions" and
 * CONTRACT C13, with no service: one table line per SPEC row (plus every rejection SPEC names), each
 * checking the next txState and stateCode and the net bucket deltas of the creator, the counterparty,
 * a stranger and the profit wallet. The model-based property test is code-engine-property.test.ts.
 */
import { assert, describe, it } from "@effect/vitest"
import {
  applyCode,
  cancelCode,
  type CodeCommand,
  type CodeState,
  CodeStateCode,
  CodeTxState,
  type CodeType,
  creationPostings,
  type Rejection,
  stateCodeOf,
  transition
} from "../../actors/code/Engine.ts"
import { Bucket, type Posting } from "../../sql/Ledger.ts"

// ---------------------------------------------------------------------------------------------------
// Fixed cases
// ---------------------------------------------------------------------------------------------------

const CREATOR = 1n
const OTHER = 2n // the redeemer (11), recipient (12) or payer (13, 14)
const STRANGER = 3n // a third wallet: never bound to the code
const PROFIT = 99n
const CUR = "USDT"
const A = 1000n // the code's amount
const F = 10n // the code's fee: non-zero so the fee routing is visible
const WRONG = A - 1n

type From = "Created" | "Joined" | "Predicted" | "Finished" | "Canceled"
type Actor = "creator" | "redeemer" | "recipient" | "payer" | "stranger"
type Trigger = { readonly apply: bigint | null } | "cancel"
/** Net deltas of one wallet by bucket: [free, lock_out, lock_in, lock_orders]. */
type D = readonly [bigint, bigint, bigint, bigint]
type Deltas = { readonly creator?: D; readonly counterparty?: D; readonly stranger?: D; readonly profit?: D }
type Expect = { readonly to: number; readonly stateCode: number; readonly deltas: Deltas } | Rejection

const d = (free = 0n, lockOut = 0n, lockIn = 0n, lockOrders = 0n): D => [free, lockOut, lockIn, lockOrders]
const ZERO = d()
const apply = (amount: bigint | null = null): Trigger => ({ apply: amount })
const cancel: Trigger = "cancel"
const to = (txState: number, stateCode: number, deltas: Deltas = {}): Expect => ({ to: txState, stateCode, deltas })

const { Created, Joined, Predicted, Finished, Canceled } = CodeTxState
const { FundsHolded, InvoiceCreated, NeedConfirm } = CodeStateCode
const SFinished = CodeStateCode.Finished
const SCancelled = CodeStateCode.Cancelled

const walletOf = (actor: Actor): bigint => (actor === "creator" ? CREATOR : actor === "stranger" ? STRANGER : OTHER)

/** A code of `type` in state `from`: Joined binds OTHER; Predicted is a type-14 invoice whose payer detached. */
const codeAt = (type: CodeType, from: From): CodeState => ({
  typeTx: type,
  txState: CodeTxState[from],
  creator: CREATOR,
  counterparty: from === "Joined" || from === "Finished" ? OTHER : null,
  currency: CUR,
  amount: A,
  fee: F,
  profitWallet: PROFIT
})

/** Net delta per wallet and bucket of a posting list. */
const netDeltas = (postings: ReadonlyArray<Posting>): Map<bigint, [bigint, bigint, bigint, bigint]> => {
  const net = new Map<bigint, [bigint, bigint, bigint, bigint]>()
  for (const p of postings) {
    assert.strictEqual(p.currency, CUR)
    const row = net.get(p.walletId) ?? [0n, 0n, 0n, 0n]
    row[p.bucket] += p.delta
    net.set(p.walletId, row)
  }
  return net
}

type Row = readonly [label: string, type: CodeType, from: From, actor: Actor, trigger: Trigger, expect: Expect]

// One line per row of SPEC's "Code transfer transitions" table (numbered as in the table), then the
// rejections SPEC and C13 name, type 14's Predicted state, and terminal codes.
const rows: ReadonlyArray<Row> = [
  // T1: 11 Created, apply by a redeemer other than the creator → Finished; creator lock_out -= amount, redeemer free += amount - fee.
  [
    "T1 11 redeem",
    11,
    "Created",
    "redeemer",
    apply(),
    to(Finished, SFinished, { creator: d(0n, -A), counterparty: d(A - F), profit: d(F) })
  ],
  [
    "T1 11 redeem with the exact amount (C13)",
    11,
    "Created",
    "redeemer",
    apply(A),
    to(Finished, SFinished, { creator: d(0n, -A), counterparty: d(A - F), profit: d(F) })
  ],
  ["T1 11 redeem with another amount (C13)", 11, "Created", "redeemer", apply(WRONG), "InvalidAmount"],
  // T2: 11, 12 Created, apply by the creator → SameAccounts.
  ["T2 11 creator redeems own code", 11, "Created", "creator", apply(), "SameAccounts"],
  ["T2 12 creator redeems own code", 12, "Created", "creator", apply(), "SameAccounts"],
  // T3: 12 Created, apply by recipient → Created|Confirmed (NeedConfirm); funds stay locked, no lock_in (C13).
  ["T3 12 recipient joins", 12, "Created", "recipient", apply(), to(Joined, NeedConfirm)],
  ["T3 12 recipient joins with another amount (C13)", 12, "Created", "recipient", apply(WRONG), "InvalidAmount"],
  // T4: 12 Created|Confirmed, apply by the sender → Finished; funds released to the recipient.
  [
    "T4 12 sender confirms",
    12,
    "Joined",
    "creator",
    apply(),
    to(Finished, SFinished, { creator: d(0n, -A), counterparty: d(A - F), profit: d(F) })
  ],
  ["T4 12 recipient cannot confirm", 12, "Joined", "recipient", apply(), "NotAllowed"],
  ["T4 12 stranger cannot confirm", 12, "Joined", "stranger", apply(), "NotAllowed"],
  // T5: 11, 12 Created, cancel by creator only → Canceled; held funds return to the sender's free.
  ["T5 11 creator cancels", 11, "Created", "creator", cancel, to(Canceled, SCancelled, { creator: d(A, -A) })],
  ["T5 12 creator cancels", 12, "Created", "creator", cancel, to(Canceled, SCancelled, { creator: d(A, -A) })],
  ["T5 11 would-be redeemer cannot cancel", 11, "Created", "redeemer", cancel, "NotAllowed"],
  ["T5 12 would-be recipient cannot cancel", 12, "Created", "recipient", cancel, "NotAllowed"],
  // T6: 12 Created|Confirmed, cancel by recipient only → Canceled; funds return to the sender (escrow invariant).
  ["T6 12 recipient cancels", 12, "Joined", "recipient", cancel, to(Canceled, SCancelled, { creator: d(A, -A) })],
  ["T6 12 sender cannot cancel after the join", 12, "Joined", "creator", cancel, "NotAllowed"],
  ["T6 12 stranger cannot cancel", 12, "Joined", "stranger", cancel, "NotAllowed"],
  // T7: 13 Created, apply by a payer with the invoice amount → Finished; payer free -= amount; creator free += amount - fee.
  [
    "T7 13 payer pays",
    13,
    "Created",
    "payer",
    apply(A),
    to(Finished, SFinished, { creator: d(A - F), counterparty: d(-A), profit: d(F) })
  ],
  ["T7 13 payer pays another amount", 13, "Created", "payer", apply(WRONG), "InvalidAmount"],
  ["T7 13 payer gives no amount (C13)", 13, "Created", "payer", apply(null), "AmountRequired"],
  // T8: 13, 14 Created, apply by the invoice creator → SameAccounts.
  ["T8 13 creator pays own invoice", 13, "Created", "creator", apply(A), "SameAccounts"],
  ["T8 14 creator pays own invoice", 14, "Created", "creator", apply(A), "SameAccounts"],
  // T9: 14 Created, payer's first apply binds the payer and locks the amount (free → lock_out, C13) → NeedConfirm.
  ["T9 14 payer joins", 14, "Created", "payer", apply(A), to(Joined, NeedConfirm, { counterparty: d(-A, A) })],
  ["T9 14 payer joins with another amount", 14, "Created", "payer", apply(WRONG), "InvalidAmount"],
  ["T9 14 payer gives no amount (C13)", 14, "Created", "payer", apply(null), "AmountRequired"],
  // T10: 14 Created|Confirmed, apply by the same payer with the amount → Finished; payer lock_out -= amount, creator free += amount - fee (C13).
  [
    "T10 14 payer confirms",
    14,
    "Joined",
    "payer",
    apply(A),
    to(Finished, SFinished, { creator: d(A - F), counterparty: d(0n, -A), profit: d(F) })
  ],
  ["T10 14 payer confirms another amount", 14, "Joined", "payer", apply(WRONG), "InvalidAmount"],
  ["T10 14 another payer cannot confirm", 14, "Joined", "stranger", apply(A), "NotAllowed"],
  ["T10 14 creator cannot pay own invoice after the join", 14, "Joined", "creator", apply(A), "SameAccounts"],
  // T11: 13, 14 Created (no payer), cancel by the creator only → Canceled; nothing moves.
  ["T11 13 creator cancels", 13, "Created", "creator", cancel, to(Canceled, SCancelled)],
  ["T11 14 creator cancels", 14, "Created", "creator", cancel, to(Canceled, SCancelled)],
  ["T11 13 payer cannot cancel before paying", 13, "Created", "payer", cancel, "NotAllowed"],
  ["T11 14 payer cannot cancel before joining", 14, "Created", "payer", cancel, "NotAllowed"],
  // T12: 14 Created|Confirmed, cancel by payer → Predicted; the payer detaches and the lock goes back (C13: InvoiceCreated again).
  ["T12 14 payer detaches", 14, "Joined", "payer", cancel, to(Predicted, InvoiceCreated, { counterparty: d(A, -A) })],
  // T13: 14 Created|Confirmed, cancel by the creator → Canceled; the joined payer's lock goes back.
  [
    "T13 14 creator cancels after the join",
    14,
    "Joined",
    "creator",
    cancel,
    to(Canceled, SCancelled, { counterparty: d(A, -A) })
  ],
  ["T13 14 stranger cannot cancel", 14, "Joined", "stranger", cancel, "NotAllowed"],
  // Type 14 after the payer detached (Predicted): payable again, cancellable by the creator only.
  [
    "P 14 the former payer joins again",
    14,
    "Predicted",
    "payer",
    apply(A),
    to(Joined, NeedConfirm, { counterparty: d(-A, A) })
  ],
  ["P 14 another payer joins", 14, "Predicted", "stranger", apply(A), to(Joined, NeedConfirm, { stranger: d(-A, A) })],
  ["P 14 creator cannot pay own invoice", 14, "Predicted", "creator", apply(A), "SameAccounts"],
  ["P 14 another amount", 14, "Predicted", "payer", apply(WRONG), "InvalidAmount"],
  ["P 14 creator cancels", 14, "Predicted", "creator", cancel, to(Canceled, SCancelled)],
  ["P 14 the former payer cannot cancel", 14, "Predicted", "payer", cancel, "NotAllowed"],
  // Finished and Canceled codes accept nothing.
  ...([11, 12, 13, 14] as const).flatMap((type): ReadonlyArray<Row> =>
    (["Finished", "Canceled"] as const).flatMap((from): ReadonlyArray<Row> => [
      [`X ${type} ${from}: apply by another wallet`, type, from, "stranger", apply(A), "NotActive"],
      [`X ${type} ${from}: apply by the creator`, type, from, "creator", apply(A), "NotActive"],
      [`X ${type} ${from}: cancel by the creator`, type, from, "creator", cancel, "NotActive"],
      [`X ${type} ${from}: cancel by the counterparty`, type, from, "payer", cancel, "NotActive"]
    ])
  )
]

describe("code creation", () => {
  const creations: ReadonlyArray<readonly [type: CodeType, stateCode: number, creator: D]> = [
    [11, FundsHolded, d(-A, A)], // C1: 11 starts Created / FundsHolded, free → lock_out
    [12, FundsHolded, d(-A, A)], // C2: 12 starts Created / FundsHolded, free → lock_out
    [13, InvoiceCreated, ZERO], //  C3: 13 starts Created / InvoiceCreated, nothing moves
    [14, InvoiceCreated, ZERO] //   C4: 14 starts Created / InvoiceCreated, nothing moves
  ]
  for (const [type, stateCode, creator] of creations) {
    it(`type ${type} starts Created / ${stateCode} and moves ${creator.join(",")} on the creator`, () => {
      assert.strictEqual(stateCodeOf({ typeTx: type, txState: Created }), stateCode)
      const net = netDeltas(creationPostings(type, CREATOR, CUR, A))
      assert.deepStrictEqual(net.get(CREATOR) ?? [0n, 0n, 0n, 0n], [...creator])
      assert.deepStrictEqual(
        [...net.keys()].filter((w) => w !== CREATOR),
        []
      )
    })
  }
})

describe("code transitions (one line per SPEC row)", () => {
  for (const [label, type, from, actor, trigger, expect] of rows) {
    it(label, () => {
      const before = codeAt(type, from)
      const by = walletOf(actor)
      const command: CodeCommand =
        trigger === "cancel" ? { _tag: "Cancel", by } : { _tag: "Apply", by, amount: trigger.apply }
      const result = transition(before, command)
      // transition dispatches to applyCode / cancelCode.
      assert.deepStrictEqual(
        result,
        trigger === "cancel" ? cancelCode(before, by) : applyCode(before, by, trigger.apply)
      )
      if (typeof expect === "string") {
        assert.deepStrictEqual(result, { _tag: "Reject", rule: expect })
        return
      }
      assert.strictEqual(
        result._tag,
        "Ok",
        `expected acceptance, got ${JSON.stringify(result, (_, v) => (typeof v === "bigint" ? String(v) : v))}`
      )
      if (result._tag !== "Ok") return
      const { state, postings, reply, debits } = result.outcome
      assert.strictEqual(state.txState, expect.to)
      assert.strictEqual(stateCodeOf(state), expect.stateCode)
      // The code's own data never changes.
      assert.deepStrictEqual(
        [state.typeTx, state.creator, state.currency, state.amount, state.fee, state.profitWallet],
        [before.typeTx, before.creator, before.currency, before.amount, before.fee, before.profitWallet]
      )
      // Binding: a join binds the acting wallet; an open invoice has no payer.
      if (state.txState === Joined) assert.strictEqual(state.counterparty, by)
      if (state.txState === Created || state.txState === Predicted) assert.strictEqual(state.counterparty, null)
      assert.strictEqual(reply, state.txState === Joined ? "NeedCodeConfirm" : "Confirmed")
      // Deltas per wallet and bucket; no other wallet is touched; the postings sum to zero.
      const net = netDeltas(postings)
      const expected = new Map<bigint, D>([
        [CREATOR, expect.deltas.creator ?? ZERO],
        [OTHER, expect.deltas.counterparty ?? ZERO],
        [STRANGER, expect.deltas.stranger ?? ZERO],
        [PROFIT, expect.deltas.profit ?? ZERO]
      ])
      for (const [wallet, deltas] of expected)
        assert.deepStrictEqual(net.get(wallet) ?? [0n, 0n, 0n, 0n], [...deltas], `wallet ${wallet}`)
      assert.deepStrictEqual(
        [...net.keys()].filter((w) => !expected.has(w)),
        []
      )
      assert.strictEqual(
        postings.reduce((s, p) => s + p.delta, 0n),
        0n
      )
      // `debits` names exactly the wallet whose free balance goes down.
      const debited = [...net].filter(([w, row]) => w !== PROFIT && row[Bucket.free] < 0n).map(([w]) => w)
      assert.strictEqual(debits, debited[0] ?? null)
      assert.isTrue(debited.length <= 1)
    })
  }

  it("type 14: a payer detaches (Predicted, InvoiceCreated again, payer unbound, lock released), then the invoice is paid again and finishes", () => {
    const P2 = 4n
    let s = codeAt(14, "Created")
    const totals = new Map<bigint, bigint[]>()
    const step = (command: CodeCommand) => {
      const r = transition(s, command)
      assert.strictEqual(r._tag, "Ok")
      if (r._tag !== "Ok") throw new Error("rejected")
      for (const p of r.outcome.postings) {
        const row = totals.get(p.walletId) ?? [0n, 0n, 0n, 0n]
        row[p.bucket] += p.delta
        totals.set(p.walletId, row)
      }
      s = r.outcome.state
      return r.outcome
    }
    assert.strictEqual(step({ _tag: "Apply", by: OTHER, amount: A }).reply, "NeedCodeConfirm")
    assert.deepStrictEqual([s.txState, stateCodeOf(s), s.counterparty], [Joined, NeedConfirm, OTHER])
    step({ _tag: "Cancel", by: OTHER })
    assert.deepStrictEqual([s.txState, stateCodeOf(s), s.counterparty], [Predicted, InvoiceCreated, null])
    assert.deepStrictEqual(totals.get(OTHER), [0n, 0n, 0n, 0n])
    // A new payer joins; the detached payer, no longer bound, may not confirm; the new payer pays.
    step({ _tag: "Apply", by: P2, amount: A })
    assert.deepStrictEqual([s.txState, s.counterparty], [Joined, P2])
    assert.deepStrictEqual(transition(s, { _tag: "Apply", by: OTHER, amount: A }), {
      _tag: "Reject",
      rule: "NotAllowed"
    })
    assert.deepStrictEqual(step({ _tag: "Apply", by: P2, amount: A }).reply, "Confirmed")
    assert.deepStrictEqual([s.txState, stateCodeOf(s)], [Finished, SFinished])
    assert.deepStrictEqual(totals.get(P2), [-A, 0n, 0n, 0n])
    assert.deepStrictEqual(totals.get(CREATOR), [A - F, 0n, 0n, 0n])
    assert.deepStrictEqual(totals.get(PROFIT), [F, 0n, 0n, 0n])
    assert.deepStrictEqual(transition(s, { _tag: "Cancel", by: CREATOR }), { _tag: "Reject", rule: "NotActive" })
  })

  it("a zero fee posts nothing to the profit wallet", () => {
    const r = applyCode({ ...codeAt(11, "Created"), fee: 0n }, OTHER, null)
    assert.strictEqual(r._tag, "Ok")
    if (r._tag !== "Ok") return
    assert.isFalse(r.outcome.postings.some((p) => p.walletId === PROFIT))
  })
})
