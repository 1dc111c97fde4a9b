/**
 * The C15 deposit model (test/support/ChainModel.ts) on hand-written scenarios — append, replay,
 * short and deep reorgs, re-attachment, a cancelled key seen again, the refusals 10205 / 10206 /
 * 10207 / 10208, unattributed deposits, the fee — and on seeded simulator runs (ChainSim.ts) with
 * its invariants: Σ = 0, Finished never reversed, no key credited twice, balances recomputed from
 * the Incomes alone.
 */
import { assert, describe, it } from "@effect/vitest"
import {
  type ChainBlock,
  type ChainItem,
  fromMinor,
  makeChainModel,
  type PushOutcome,
  tariffFee,
  toMinor,
  TREASURY,
  UNATTRIBUTED
} from "../support/ChainModel.ts"
import { simulateChain } from "../support/ChainSim.ts"

const W1 = "0x9858EfFD232B4033E47d90003D41EC34EcaEda94"
const W2 = "0x6Fac4D18c912343BF86fa7049364Dd4E424Ab9C0"
const STRANGER = "0x1111111111111111111111111111111111111111"
const PROFIT = "77"
const D = 18
const u = (amount: string) => toMinor(amount, D)

const model = (window?: number) =>
  makeChainModel({
    confirmations: 3,
    decimals: D,
    addresses: new Map([
      [W1.toLowerCase(), "1"],
      [W2.toLowerCase(), "2"]
    ]),
    feeFixed: "0.01",
    feePercent: "0",
    profitWalletId: PROFIT,
    ...(window === undefined ? {} : { window })
  })

const deposit = (txHash: string, to: string, amount: string, index = 0): ChainItem => ({
  txHash,
  index,
  direction: "in",
  from: null,
  to,
  memo: null,
  amount,
  txId: null
})
const block = (height: number, hash: string, parentHash: string, items: Array<ChainItem> = []): ChainBlock => ({
  height,
  hash,
  parentHash,
  items
})
/** A straight chain from `from` to `to`: hashes h<height>, each the parent of the next. */
const straight = (m: ReturnType<typeof model>, from: number, to: number) => {
  for (let h = from; h <= to; h++) accepted(m.push(block(h, `h${h}`, `h${h - 1}`)))
}
const accepted = (outcome: PushOutcome) => {
  if (outcome.kind === "refused") throw new Error(`refused ${outcome.code}`)
  return outcome
}
const refused = (outcome: PushOutcome, code: number, field?: string) => {
  assert.strictEqual(outcome.kind, "refused")
  if (outcome.kind !== "refused") return
  assert.strictEqual(outcome.code, code)
  if (field !== undefined) assert.strictEqual(outcome.field, field)
}

describe("ChainModel: scanner pushes (C15)", () => {
  it("appends, then makes an Income final at the required confirmations", () => {
    const m = model()
    const first = accepted(m.push(block(100, "a100", "a99", [deposit("t1", W1, "1.5")])))
    assert.strictEqual(first.kind, "appended")
    assert.strictEqual(first.tipHeight, 100)
    assert.deepStrictEqual(first.items[0], {
      txHash: "t1",
      index: 0,
      direction: "in",
      income: 1,
      created: true,
      walletId: "1"
    })
    assert.deepStrictEqual(m.buckets("1"), { free: 0n, lockIn: u("1.5") })
    assert.strictEqual(m.buckets(TREASURY).free, -u("1.5"))
    accepted(m.push(block(101, "a101", "a100")))
    assert.strictEqual(m.income(1).txState, 1)
    accepted(m.push(block(102, "a102", "a101")))
    assert.strictEqual(m.income(1).txState, 8)
    assert.deepStrictEqual(m.buckets("1"), { free: u("1.49"), lockIn: 0n })
    assert.strictEqual(m.buckets(PROFIT).free, u("0.01"))
    assert.strictEqual(m.total(), 0n)
  })

  it("a replay answers replayed and the recorded Income; only new items apply", () => {
    const m = model()
    straight(m, 10, 12)
    accepted(m.push(block(13, "h13", "h12", [deposit("t1", W1, "2")])))
    const again = accepted(m.push(block(13, "h13", "h12", [deposit("t1", W1, "2"), deposit("t2", W2, "1")])))
    assert.strictEqual(again.kind, "replayed")
    assert.isTrue(again.replayed)
    assert.deepStrictEqual(again.orphaned, [])
    assert.strictEqual(again.tipHeight, 13)
    assert.deepStrictEqual(
      again.items.map((i) => [i.income, i.created]),
      [
        [1, false],
        [2, true]
      ]
    )
    assert.strictEqual(m.buckets("1").lockIn, u("2"))
    assert.strictEqual(m.buckets("2").lockIn, u("1"))
    const old = accepted(m.push(block(11, "h11", "h10")))
    assert.strictEqual(old.kind, "replayed")
    assert.strictEqual(old.tipHeight, 13)
  })

  it("a short reorg orphans the heights above the fork and cancels the unconfirmed Incomes", () => {
    const m = model()
    straight(m, 1, 3)
    accepted(m.push(block(4, "h4", "h3", [deposit("t1", W1, "1")])))
    const reorg = accepted(m.push(block(4, "x4", "h3")))
    assert.strictEqual(reorg.kind, "reorg")
    assert.deepStrictEqual(reorg.orphaned, [4])
    assert.isNull(reorg.deepReorg)
    assert.strictEqual(m.income(1).txState, 16)
    assert.deepStrictEqual(m.buckets("1"), { free: 0n, lockIn: 0n })
    assert.strictEqual(m.buckets(TREASURY).free, 0n)
    assert.strictEqual(m.reorgs(), 1)
    // The cancelled key seen again creates a new Income.
    const seen = accepted(m.push(block(5, "x5", "x4", [deposit("t1", W1, "1")])))
    assert.deepStrictEqual([seen.items[0]!.income, seen.items[0]!.created], [2, true])
    assert.strictEqual(m.buckets("1").lockIn, u("1"))
    assert.strictEqual(m.incomeOfKey("t1", 0)!.serial, 2)
  })

  it("a deep reorg keeps Finished Incomes, flags them orphaned, and a re-attachment credits nothing twice", () => {
    const m = model()
    straight(m, 1, 1)
    accepted(m.push(block(2, "h2", "h1", [deposit("t1", W1, "3")])))
    straight(m, 3, 4)
    assert.strictEqual(m.income(1).txState, 8)
    const freeAfter = m.buckets("1").free
    const deep = accepted(m.push(block(2, "y2", "h1")))
    assert.deepStrictEqual(deep.orphaned, [2, 3, 4])
    assert.deepStrictEqual(deep.deepReorg, { forkHeight: 2, orphanedHeights: [2, 3, 4], finished: [1] })
    assert.strictEqual(m.income(1).txState, 8)
    assert.isTrue(m.income(1).orphaned)
    assert.strictEqual(m.buckets("1").free, freeAfter)
    const back = accepted(m.push(block(3, "y3", "y2", [deposit("t1", W1, "3")])))
    assert.deepStrictEqual([back.items[0]!.income, back.items[0]!.created, back.items[0]!.walletId], [1, false, "1"])
    assert.isFalse(m.income(1).orphaned)
    assert.strictEqual(m.income(1).height, 3)
    assert.strictEqual(m.buckets("1").free, freeAfter)
    assert.strictEqual(m.incomes().length, 1)
    assert.strictEqual(m.deepReorgs().length, 1)
    assert.strictEqual(m.total(), 0n)
  })

  it("refuses a height gap (10205), an unconnected parent (10206), a block below the window or the first block (10207), a repeated key (10208)", () => {
    const m = model(5)
    refused(m.push(block(1, "d1", "d0", [deposit("t", W1, "1"), deposit("t", W1, "1")])), 10208, "items[1]")
    assert.isNull(m.tip())
    straight(m, 100, 102)
    refused(m.push(block(104, "h104", "h103")), 10205, "height")
    refused(m.push(block(103, "h103", "nope")), 10206, "parentHash")
    refused(m.push(block(101, "z101", "nope")), 10206, "parentHash")
    refused(m.push(block(100, "z100", "h99")), 10207)
    refused(m.push(block(99, "h99", "h98")), 10207)
    straight(m, 103, 110)
    assert.strictEqual(m.lowestKept(), 106)
    refused(m.push(block(104, "h104", "h103")), 10207)
    refused(m.push(block(106, "z106", "h105")), 10207)
    assert.strictEqual(accepted(m.push(block(106, "h106", "h105"))).kind, "replayed")
    assert.strictEqual(accepted(m.push(block(107, "z107", "h106"))).kind, "reorg")
    assert.strictEqual(m.tip(), 107)
  })

  it("an unattributed deposit is held by −4 without fee, final at txState 3, and cancelled when orphaned", () => {
    const m = model()
    straight(m, 1, 1)
    const out = accepted(m.push(block(2, "h2", "h1", [deposit("t1", STRANGER, "5")])))
    assert.strictEqual(out.items[0]!.walletId, UNATTRIBUTED)
    straight(m, 3, 6)
    assert.strictEqual(m.income(1).txState, 3)
    assert.strictEqual(m.income(1).fee, 0n)
    assert.strictEqual(m.buckets(UNATTRIBUTED).lockIn, u("5"))
    accepted(m.push(block(2, "x2", "h1")))
    assert.strictEqual(m.income(1).txState, 16)
    assert.strictEqual(m.buckets(UNATTRIBUTED).lockIn, 0n)
    assert.strictEqual(m.total(), 0n)
  })

  it("attributes EVM addresses case-insensitively; out items move nothing", () => {
    const m = model()
    const out = accepted(
      m.push(
        block(1, "h1", "h0", [
          deposit("t1", W1.toLowerCase(), "1"),
          deposit("t2", "0x" + W2.slice(2).toUpperCase(), "1"),
          { ...deposit("t3", STRANGER, "1"), direction: "out", from: W1 }
        ])
      )
    )
    assert.deepStrictEqual(
      out.items.map((i) => i.walletId),
      ["1", "2", null]
    )
    assert.isNull(out.items[2]!.income)
    assert.strictEqual(m.incomes().length, 2)
  })

  it("fee: feeFixed + amount × feePercent / 100 rounded up to the decimals, never above the amount", () => {
    assert.strictEqual(tariffFee(u("1"), D, "0.01", "0"), u("0.01"))
    assert.strictEqual(tariffFee(u("2"), D, "0", "0.5"), u("0.01"))
    assert.strictEqual(tariffFee(1n, D, "0", "0.5"), 1n)
    assert.strictEqual(tariffFee(3n, 2, "0.01", "33.3"), 2n)
    assert.strictEqual(fromMinor(u("1.25"), D), "1.25")
    assert.strictEqual(fromMinor(-5n, 2), "-0.05")
    assert.strictEqual(fromMinor(0n, D), "0")
    const m = model()
    straight(m, 1, 1)
    accepted(m.push(block(2, "h2", "h1", [deposit("t1", W1, "0.000000000000000042")])))
    straight(m, 3, 4)
    assert.strictEqual(m.income(1).fee, 42n)
    assert.deepStrictEqual(m.buckets("1"), { free: 0n, lockIn: 0n })
    assert.strictEqual(m.buckets(PROFIT).free, 42n)
  })
})

describe("ChainModel under ChainSim (seeded)", () => {
  const wallets = [
    { id: "1", address: W1 },
    { id: "2", address: W2 }
  ]
  for (const seed of [1, 2, 3, 4, 5]) {
    it(`seed ${seed}: Σ = 0, Finished never reversed, no key credited twice, balances follow the Incomes`, () => {
      const pushes = simulateChain({ seed, pushes: 400, wallets, confirmations: 3, decimals: D })
      const m = model()
      const kinds = new Map<string, number>()
      const finished = new Set<number>()
      let reattached = 0
      for (const { block: b, step } of pushes) {
        const wasOrphaned = new Set(
          m
            .incomes()
            .filter((i) => i.orphaned)
            .map((i) => i.serial)
        )
        const out = m.push(b)
        const kind = out.kind === "refused" ? `refused ${out.code}` : out.kind
        kinds.set(kind, (kinds.get(kind) ?? 0) + 1)
        if (step === "walk-back") assert.strictEqual(out.kind, "refused", "a walk-back push is refused")
        if (step === "too-old") refused(out, 10207)
        if (step === "append" || step === "first") assert.strictEqual(out.kind, "appended", step)
        assert.strictEqual(m.total(), 0n, "Σ = 0")
        for (const income of m.incomes()) {
          if (finished.has(income.serial)) assert.strictEqual(income.txState, 8, "Finished never reversed")
          if (income.txState === 8) finished.add(income.serial)
          if (wasOrphaned.has(income.serial) && !income.orphaned) reattached++
        }
        // No key credited twice: at most one Finished Income per key, and it is the key's newest.
        const perKey = new Map<string, number>()
        for (const income of m.incomes().filter((i) => i.txState === 8)) {
          perKey.set(income.key, (perKey.get(income.key) ?? 0) + 1)
          assert.strictEqual(m.incomeOfKey(income.txHash, income.index)!.serial, income.serial)
        }
        for (const count of perKey.values()) assert.strictEqual(count, 1)
        // Balances recomputed from the Incomes alone.
        for (const wallet of ["1", "2", UNATTRIBUTED]) {
          const own = m.incomes().filter((i) => i.holder === wallet)
          const lockIn = own.filter((i) => i.txState === 1 || i.txState === 3).reduce((s, i) => s + i.amount, 0n)
          const free = own.filter((i) => i.txState === 8).reduce((s, i) => s + i.amount - i.fee, 0n)
          assert.deepStrictEqual(m.buckets(wallet), { free, lockIn }, `wallet ${wallet}`)
        }
      }
      assert.isUndefined(kinds.get("refused 10208"), "the simulator never repeats a key within a block")
      // The run exercised every rule it is meant to.
      for (const kind of ["appended", "replayed", "reorg", "refused 10205", "refused 10206", "refused 10207"])
        assert.isAbove(kinds.get(kind) ?? 0, 0, `${kind} in ${JSON.stringify([...kinds])}`)
      assert.isAbove(m.deepReorgs().length, 0, "deep reorgs")
      assert.isAbove(reattached + m.incomes().filter((i) => i.orphaned).length, 0, "orphaned Finished Incomes")
      const keys = new Set(m.incomes().map((i) => i.key))
      assert.isBelow(keys.size, m.incomes().length, "a cancelled key seen again")
    })
  }
})

describe("ChainSim: pushes the service would validate", () => {
  const wallets = [
    { id: "1", address: W1 },
    { id: "2", address: W2 }
  ]
  it("is deterministic per seed; hashes, amounts and EVM addresses are well formed", () => {
    const a = simulateChain({ seed: 9, pushes: 300, wallets, confirmations: 3, decimals: D })
    assert.deepStrictEqual(simulateChain({ seed: 9, pushes: 300, wallets, confirmations: 3, decimals: D }), a)
    assert.notDeepEqual(simulateChain({ seed: 10, pushes: 300, wallets, confirmations: 3, decimals: D }), a)
    const eip55 = new Set(wallets.map((w) => w.address))
    const evm = (address: string) =>
      /^0x([0-9a-f]{40}|[0-9A-F]{40})$/.test(address) || eip55.has(address) || assert.fail(`address ${address}`)
    for (const { block: b } of a) {
      assert.match(b.hash, /^[0-9A-Za-z]{1,128}$/)
      assert.match(b.parentHash, /^[0-9A-Za-z]{1,128}$/)
      assert.isAtMost(b.items.length, 1000)
      for (const item of b.items) {
        assert.match(item.txHash, /^[0-9A-Za-z]{1,128}$/)
        assert.isAtLeast(item.index, 0)
        assert.isTrue(toMinor(item.amount, D) > 0n, item.amount)
        evm(item.to)
        if (item.from !== null) evm(item.from)
        assert.isNull(item.memo)
        assert.isNull(item.txId)
      }
    }
  })
})
