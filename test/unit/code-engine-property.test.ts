/**
 * The transfer-code state machine (actors/code/Engine.ts) against SPEC "Code transfer transitions" and
 * CONTRACT C13, with no service: a model-based property test that feeds seeded random streams of
 * creates, applies and cancels to the engine and to a naive reference model written here from the SPEC
 * table, and compares acceptance, states and every balance after each step, while checking that money
 * is neither created nor destroyed and no user bucket goes negative. The fixed table of SPEC rows is
 * code-engine-transitions.test.ts.
 */
import { assert, describe, it } from "@effect/vitest"
import {
  type CodeCommand,
  type CodeState,
  CodeTxState,
  creationPostings,
  stateCodeOf,
  transition
} from "../../actors/code/Engine.ts"
import { Bucket, type Posting } from "../../sql/Ledger.ts"
import { seeded } from "./Random.ts"

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
