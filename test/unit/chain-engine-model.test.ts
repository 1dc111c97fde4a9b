/**
 * The chain actor's pure placement engine (actors/chain/Engine.ts) against the independent model
 * (test/support/ChainModel.ts) on seeded simulator streams: every push is placed the same way —
 * appended, replayed, a reorg orphaning the same heights, or refused with the same rule — and the
 * tip follows. Also the kept window: a chain longer than 1000 blocks forgets its oldest headers.
 */
import { assert, describe, it } from "@effect/vitest"
import { applyPlacement, emptyView, place, windowSize } from "../../actors/chain/Engine.ts"
import { makeChainModel } from "../support/ChainModel.ts"
import { simulateChain } from "../support/ChainSim.ts"

const wallets = [
  { id: "1", address: "0x9858EfFD232B4033E47d90003D41EC34EcaEda94" },
  { id: "2", address: "0x6Fac4D18c912343BF86fa7049364Dd4E424Ab9C0" }
]
const ruleCode = { HeightGap: 10205, NotConnected: 10206, TooOld: 10207 } as const

describe("chain placement engine vs ChainModel", () => {
  for (const seed of [1, 2, 3, 4, 5, 6]) {
    it(`seed ${seed}: 500 pushes placed as the model places them`, () => {
      const confirmations = 1 + (seed % 4)
      const pushes = simulateChain({ seed, pushes: 500, wallets, confirmations, decimals: 18 })
      const model = makeChainModel({ confirmations, decimals: 18, addresses: new Map() })
      let view = emptyView
      const seen = new Map<string, number>()
      for (const { block } of pushes) {
        const expected = model.push(block)
        if (expected.kind === "refused" && expected.code === 10208) continue // the service refuses duplicates before the engine
        const placement = place(view, BigInt(block.height), block.hash, block.parentHash)
        const got =
          placement._tag === "Refuse"
            ? `refused ${ruleCode[placement.rule]}`
            : { Append: "appended", Replay: "replayed", Reorg: "reorg" }[placement._tag]
        const want = expected.kind === "refused" ? `refused ${expected.code}` : expected.kind
        assert.strictEqual(got, want, `height ${block.height} ${block.hash}`)
        seen.set(got, (seen.get(got) ?? 0) + 1)
        if (placement._tag === "Reorg" && expected.kind === "reorg")
          assert.deepStrictEqual(placement.orphaned.map(Number), [...expected.orphaned])
        view = applyPlacement(view, placement, BigInt(block.height), block.hash)
        if (expected.kind !== "refused") assert.strictEqual(Number(view.tip), expected.tipHeight)
      }
      for (const kind of ["appended", "replayed", "reorg", "refused 10205", "refused 10206"])
        assert.isTrue((seen.get(kind) ?? 0) > 0, `seed ${seed} exercised ${kind}`)
    })
  }

  it("keeps the last 1000 headers: the oldest are forgotten and a block below them is too old", () => {
    let view = emptyView
    const total = Number(windowSize) + 5
    for (let h = 1; h <= total; h++) {
      const placement = place(view, BigInt(h), `h${h}`, `h${h - 1}`)
      assert.strictEqual(placement._tag, "Append")
      view = applyPlacement(view, placement, BigInt(h), `h${h}`)
    }
    assert.strictEqual(view.hashes.size, Number(windowSize))
    assert.strictEqual(view.first, 6n)
    assert.deepStrictEqual(place(view, 5n, "h5", "h4"), { _tag: "Refuse", rule: "TooOld" })
    assert.deepStrictEqual(place(view, 6n, "x6", "h5"), { _tag: "Refuse", rule: "TooOld" })
    assert.strictEqual(place(view, 7n, "x7", "h6")._tag, "Reorg")
    assert.strictEqual(place(view, 6n, "h6", "h5")._tag, "Replay")
  })
})
