/**
 * The transfer-code state machine (actors/code/Engine.ts) against SPEC "Code transfer transitions" and
 * CONTRACT C13, with no service: first one table line per SPEC row (plus every rejection SPEC names),
 * each checking the next txState and stateCode and the net bucket deltas of the creator, the
 * counterparty, a stranger and the profit wallet; then a model-based property test that feeds the same
 * seeded random streams of creates, applies and cancels to the engine and to a naive reference model
 * written here from the SPEC table, and compares acceptance, states and every balance after each step,
 * while checking that money is neither created nor destroyed and no user bucket goes negative.
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
import { seeded } from "./Random.ts"

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

// ---------------------------------------------------------------------------------------------------
// Model-based property test
// ---------------------------------------------------------------------------------------------------

/** The reference model: a plain record per code and explicit rules written from the SPEC table. */
type Status = "created" | "joined" | "predicted" | "finished" | "canceled"
interface ModelCode {
  type: 11 | 12 | 13 | 14
  status: Status
  creator: bigint
  bound: bigint | null
  currency: string
  amount: bigint
  fee: bigint
}
/** wallet → currency → [free, lockOut, lockIn, lockOrders] */
type Balances = Map<bigint, Map<string, bigint[]>>
type Move = readonly [wallet: bigint, bucket: 0 | 1 | 2 | 3, delta: bigint]
type ModelResult =
  | {
      readonly ok: true
      readonly status: Status
      readonly bound: bigint | null
      readonly moves: ReadonlyArray<Move>
      readonly debit: bigint | null
      readonly reply: string
    }
  | { readonly ok: false; readonly rule: string }

const FREE = 0,
  LOCK_OUT = 1
const M_PROFIT = 99n
const WALLETS = [1n, 2n, 3n, 4n, 5n]
const CURRENCIES = ["USDT", "BTC"]

const modelTxState = (status: Status): number =>
  ({ created: 1, joined: 3, predicted: 4, finished: 8, canceled: 16 })[status]
const modelStateCode = (c: ModelCode): number => {
  if (c.status === "finished") return 7
  if (c.status === "canceled") return 8
  if (c.status === "joined") return 3
  if (c.type === 11 || c.type === 12) return 1 // FundsHolded
  return 2 // InvoiceCreated (also after a type-14 payer detached)
}

const modelApply = (c: ModelCode, by: bigint, amount: bigint | null): ModelResult => {
  const no = (rule: string): ModelResult => ({ ok: false, rule })
  if (c.status === "finished" || c.status === "canceled") return no("NotActive")
  if ((c.type === 13 || c.type === 14) && amount === null) return no("AmountRequired")
  if (amount !== null && amount !== c.amount) return no("InvalidAmount")
  const net = c.amount - c.fee
  if (c.type === 11) {
    if (by === c.creator) return no("SameAccounts")
    return {
      ok: true,
      status: "finished",
      bound: by,
      debit: null,
      reply: "Confirmed",
      moves: [
        [c.creator, LOCK_OUT, -c.amount],
        [by, FREE, net],
        [M_PROFIT, FREE, c.fee]
      ]
    }
  }
  if (c.type === 12) {
    if (c.status === "created") {
      if (by === c.creator) return no("SameAccounts")
      return { ok: true, status: "joined", bound: by, debit: null, reply: "NeedCodeConfirm", moves: [] }
    }
    // joined: only the sender confirms
    if (by !== c.creator) return no("NotAllowed")
    return {
      ok: true,
      status: "finished",
      bound: c.bound,
      debit: null,
      reply: "Confirmed",
      moves: [
        [c.creator, LOCK_OUT, -c.amount],
        [c.bound!, FREE, net],
        [M_PROFIT, FREE, c.fee]
      ]
    }
  }
  if (c.type === 13) {
    if (by === c.creator) return no("SameAccounts")
    return {
      ok: true,
      status: "finished",
      bound: by,
      debit: by,
      reply: "Confirmed",
      moves: [
        [by, FREE, -c.amount],
        [c.creator, FREE, net],
        [M_PROFIT, FREE, c.fee]
      ]
    }
  }
  // 14
  if (by === c.creator) return no("SameAccounts")
  if (c.status === "created" || c.status === "predicted") {
    return {
      ok: true,
      status: "joined",
      bound: by,
      debit: by,
      reply: "NeedCodeConfirm",
      moves: [
        [by, FREE, -c.amount],
        [by, LOCK_OUT, c.amount]
      ]
    }
  }
  if (by !== c.bound) return no("NotAllowed")
  return {
    ok: true,
    status: "finished",
    bound: by,
    debit: null,
    reply: "Confirmed",
    moves: [
      [by, LOCK_OUT, -c.amount],
      [c.creator, FREE, net],
      [M_PROFIT, FREE, c.fee]
    ]
  }
}

const modelCancel = (c: ModelCode, by: bigint): ModelResult => {
  const no = (rule: string): ModelResult => ({ ok: false, rule })
  const done = (status: Status, bound: bigint | null, moves: ReadonlyArray<Move>): ModelResult => ({
    ok: true,
    status,
    bound,
    debit: null,
    reply: "Confirmed",
    moves
  })
  if (c.status === "finished" || c.status === "canceled") return no("NotActive")
  if (c.type === 11 || c.type === 12) {
    const giveBack: ReadonlyArray<Move> = [
      [c.creator, LOCK_OUT, -c.amount],
      [c.creator, FREE, c.amount]
    ]
    if (c.status === "created") return by === c.creator ? done("canceled", null, giveBack) : no("NotAllowed")
    // 12 joined: the recipient only
    return by === c.bound ? done("canceled", c.bound, giveBack) : no("NotAllowed")
  }
  if (c.status === "created" || c.status === "predicted")
    return by === c.creator ? done("canceled", null, []) : no("NotAllowed")
  // 14 joined
  const payer = c.bound!
  const unlock: ReadonlyArray<Move> = [
    [payer, LOCK_OUT, -c.amount],
    [payer, FREE, c.amount]
  ]
  if (by === payer) return done("predicted", null, unlock)
  if (by === c.creator) return done("canceled", null, unlock)
  return no("NotAllowed")
}

const bucketsOf = (balances: Balances, wallet: bigint, currency: string): bigint[] => {
  let byCurrency = balances.get(wallet)
  if (!byCurrency) balances.set(wallet, (byCurrency = new Map()))
  let row = byCurrency.get(currency)
  if (!row) byCurrency.set(currency, (row = [0n, 0n, 0n, 0n]))
  return row
}
const cloneBalances = (b: Balances): Balances =>
  new Map([...b].map(([w, m]) => [w, new Map([...m].map(([c, row]) => [c, [...row]]))]))
const totalOf = (b: Balances, currency: string): bigint => {
  let sum = 0n
  for (const m of b.values()) for (const x of m.get(currency) ?? []) sum += x
  return sum
}
const show = (b: Balances): string =>
  [...b]
    .sort(([a], [c]) => Number(a - c))
    .map(
      ([w, m]) =>
        `${w}: ` +
        [...m]
          .sort(([a], [c]) => a.localeCompare(c))
          .map(([cur, row]) => `${cur}=[${row.join(",")}]`)
          .join(" ")
    )
    .join("; ")

describe("code engine vs. a reference model (property)", () => {
  it("300 seeded streams × 40 steps: same decisions, states and balances; money is conserved; no bucket goes negative", () => {
    const STREAMS = 300
    const STEPS = 40
    const counts = {
      creates: 0,
      skippedCreates: 0,
      accepted: 0,
      rejected: {} as Record<string, number>,
      finished: 0,
      predicted: 0
    }
    for (let seed = 1; seed <= STREAMS; seed++) {
      const random = seeded(seed * 7919)
      const pick = <T>(xs: ReadonlyArray<T>): T => xs[random.int(0, xs.length - 1)]

      // Identical starting balances on both sides; lock_in and lock_orders hold something codes must not touch.
      const initial: Balances = new Map()
      for (const w of WALLETS) {
        for (const cur of CURRENCIES) {
          const row = bucketsOf(initial, w, cur)
          row[0] = BigInt(random.int(0, 1500))
          row[2] = BigInt(random.int(0, 50))
          row[3] = BigInt(random.int(0, 50))
        }
      }
      for (const cur of CURRENCIES) bucketsOf(initial, M_PROFIT, cur)
      const totals = new Map(CURRENCIES.map((cur) => [cur, totalOf(initial, cur)]))
      const model = cloneBalances(initial)
      const engine = cloneBalances(initial)
      const modelCodes: ModelCode[] = []
      const engineCodes: CodeState[] = []

      for (let stepNo = 0; stepNo < STEPS; stepNo++) {
        const where = `seed ${seed} step ${stepNo}`
        if (modelCodes.length === 0 || random.next() < 0.3) {
          // Create.
          const type = pick([11, 12, 13, 14] as const)
          const creator = pick(WALLETS)
          const currency = pick(CURRENCIES)
          const amount = BigInt(random.int(1, 600))
          const fee = BigInt(random.int(0, Number(amount / 10n)))
          counts.creates++
          // Model: 11 and 12 hold the amount, so the creator's free must cover it.
          const modelAffordable = !(type === 11 || type === 12) || bucketsOf(model, creator, currency)[FREE] >= amount
          // Engine: whatever creationPostings debits from free must be covered.
          const postings = creationPostings(type, creator, currency, amount)
          const engineAffordable = postings.every(
            (p) =>
              p.bucket !== Bucket.free ||
              p.delta >= 0n ||
              bucketsOf(engine, p.walletId, p.currency)[Bucket.free] + p.delta >= 0n
          )
          assert.strictEqual(engineAffordable, modelAffordable, `${where}: create affordability`)
          if (!modelAffordable) {
            counts.skippedCreates++
            continue
          }
          modelCodes.push({ type, status: "created", creator, bound: null, currency, amount, fee })
          if (type === 11 || type === 12) {
            bucketsOf(model, creator, currency)[FREE] -= amount
            bucketsOf(model, creator, currency)[LOCK_OUT] += amount
          }
          for (const p of postings) bucketsOf(engine, p.walletId, p.currency)[p.bucket] += p.delta
          engineCodes.push({
            typeTx: type,
            txState: CodeTxState.Created,
            creator,
            counterparty: null,
            currency,
            amount,
            fee,
            profitWallet: M_PROFIT
          })
        } else {
          // Apply or cancel on an existing code (mostly a live one), by a random party, with a random amount.
          const live = modelCodes
            .map((c, i) => [c, i] as const)
            .filter(([c]) => c.status !== "finished" && c.status !== "canceled")
          const index = live.length > 0 && random.next() < 0.8 ? pick(live)[1] : random.int(0, modelCodes.length - 1)
          const mc = modelCodes[index]
          const roll = random.next()
          const by = roll < 0.35 ? mc.creator : roll < 0.65 && mc.bound !== null ? mc.bound : pick(WALLETS)
          const isApply = random.next() < 0.6
          const aroll = random.next()
          const amount =
            aroll < 0.5
              ? mc.amount
              : aroll < 0.7
                ? null
                : mc.amount > 1n && random.next() < 0.5
                  ? mc.amount - BigInt(random.int(1, Number(mc.amount) - 1))
                  : mc.amount + BigInt(random.int(1, 50))
          const command: CodeCommand = isApply ? { _tag: "Apply", by, amount } : { _tag: "Cancel", by }

          // Model decision, then the balance check on the wallet it debits.
          let m = isApply ? modelApply(mc, by, amount) : modelCancel(mc, by)
          if (m.ok && m.debit !== null && bucketsOf(model, m.debit, mc.currency)[FREE] < mc.amount)
            m = { ok: false, rule: "BalanceNotEnough" }
          // Engine decision, then the same check on `outcome.debits`.
          const es = engineCodes[index]
          const t = transition(es, command)
          let e:
            | { ok: true; postings: ReadonlyArray<Posting>; state: CodeState; reply: string; debits: bigint | null }
            | { ok: false; rule: string } =
            t._tag === "Reject" ? { ok: false, rule: t.rule } : { ok: true, ...t.outcome }
          if (e.ok && e.debits !== null && bucketsOf(engine, e.debits, es.currency)[Bucket.free] < es.amount)
            e = { ok: false, rule: "BalanceNotEnough" }

          const label = `${where}: type ${mc.type} ${mc.status} ${command._tag} by ${by}${isApply ? ` amount ${amount}` : ""} (creator ${mc.creator}, bound ${mc.bound})`
          assert.strictEqual(
            e.ok,
            m.ok,
            `${label}: acceptance (engine ${e.ok ? "ok" : e.rule}, model ${m.ok ? "ok" : m.rule})`
          )
          if (!e.ok || !m.ok) {
            assert.strictEqual(e.ok ? "" : e.rule, m.ok ? "" : m.rule, `${label}: rejection rule`)
            const rule = m.ok ? "" : m.rule
            counts.rejected[rule] = (counts.rejected[rule] ?? 0) + 1
          } else {
            counts.accepted++
            if (m.status === "finished") counts.finished++
            if (m.status === "predicted") counts.predicted++
            assert.strictEqual(e.reply, m.reply, `${label}: reply`)
            assert.strictEqual(e.debits, m.debit, `${label}: debited wallet`)
            for (const [wallet, bucket, delta] of m.moves) bucketsOf(model, wallet, mc.currency)[bucket] += delta
            modelCodes[index] = { ...mc, status: m.status, bound: m.bound }
            for (const p of e.postings) bucketsOf(engine, p.walletId, p.currency)[p.bucket] += p.delta
            engineCodes[index] = e.state
          }
        }

        // After every step: every code's state, every balance, conservation, non-negativity.
        for (let i = 0; i < modelCodes.length; i++) {
          const mc = modelCodes[i]
          const ec = engineCodes[i]
          assert.strictEqual(ec.txState, modelTxState(mc.status), `${where}: code ${i} txState`)
          assert.strictEqual(stateCodeOf(ec), modelStateCode(mc), `${where}: code ${i} stateCode`)
          if (mc.status === "joined" || mc.status === "created" || mc.status === "predicted") {
            assert.strictEqual(ec.counterparty, mc.bound, `${where}: code ${i} bound party`)
          }
        }
        assert.strictEqual(show(engine), show(model), `${where}: balances`)
        for (const cur of CURRENCIES)
          assert.strictEqual(totalOf(engine, cur), totals.get(cur), `${where}: ${cur} conserved`)
        for (const [wallet, m] of engine) {
          for (const [cur, row] of m)
            for (const x of row) assert.isTrue(x >= 0n, `${where}: wallet ${wallet} ${cur} [${row.join(",")}] negative`)
        }
      }
      // Whatever is still held equals the live codes' holds, wallet by wallet.
      const held = new Map<string, bigint>()
      for (const c of modelCodes) {
        const holder =
          c.type === 11 || c.type === 12
            ? c.status === "created" || c.status === "joined"
              ? c.creator
              : null
            : c.status === "joined"
              ? c.bound
              : null
        if (holder !== null) held.set(`${holder}/${c.currency}`, (held.get(`${holder}/${c.currency}`) ?? 0n) + c.amount)
      }
      for (const [wallet, m] of engine) {
        for (const [cur, row] of m)
          assert.strictEqual(
            row[Bucket.lockOut],
            held.get(`${wallet}/${cur}`) ?? 0n,
            `seed ${seed}: lock_out of ${wallet} ${cur}`
          )
      }
    }
    // The streams exercise every path.
    assert.isAbove(counts.accepted, 1000)
    assert.isAbove(counts.finished, 300)
    assert.isAbove(counts.predicted, 20)
    assert.isAbove(counts.skippedCreates, 10)
    for (const rule of [
      "NotActive",
      "AmountRequired",
      "InvalidAmount",
      "SameAccounts",
      "NotAllowed",
      "BalanceNotEnough"
    ]) {
      assert.isAbove(counts.rejected[rule] ?? 0, 10, `rule ${rule} exercised`)
    }
  })
})
