/** Folding consecutive changes of one row within a batch (sql/Folding.ts): chains fold, breaks stay apart. */
import { describe, expect, it } from "vitest"
import { foldTransitions } from "../../sql/Folding.ts"
import { foldOrderUpdates } from "../../sql/rows/ExchangeRows.ts"

const upd = (
  id: bigint,
  prevRemainingLots: bigint,
  prevSeq: bigint | null,
  remainingLots: bigint,
  seq: bigint | null,
  state = 1
) => ({
  id,
  prevRemainingLots,
  prevSeq,
  remainingLots,
  seq,
  state,
  locked: remainingLots,
  given: 0n,
  received: 0n,
  fee: 0n
})

describe("folding a batch's row changes", () => {
  it("a chain of transitions of one transaction folds to first precondition, last result and tick", () => {
    const rows = [
      { t: { id: 1n, from: 1, to: 1, amount: 5n }, tick: 10n },
      { t: { id: 2n, from: 1, to: 8 }, tick: 11n },
      { t: { id: 1n, from: 1, to: 8, amount: 7n, fee: 1n }, tick: 12n }
    ]
    expect(foldTransitions(rows)).toEqual([
      {
        t: {
          id: 1n,
          from: 1,
          to: 8,
          amount: 7n,
          amountTo: undefined,
          fee: 1n,
          walletFrom: undefined,
          walletTo: undefined
        },
        tick: 12n
      },
      { t: { id: 2n, from: 1, to: 8 }, tick: 11n }
    ])
  })

  it("a transition that does not continue the previous one stays apart (the batch then fails and retries one by one)", () => {
    const rows = [
      { t: { id: 1n, from: 1, to: 8 }, tick: 1n },
      { t: { id: 1n, from: 1, to: 16 }, tick: 2n }
    ]
    expect(foldTransitions(rows)).toHaveLength(2)
  })

  it("order updates chain on remaining lots and seq", () => {
    const folded = foldOrderUpdates([
      upd(1n, 10n, null, 10n, 5n),
      upd(1n, 10n, 5n, 4n, null),
      upd(1n, 4n, 5n, 0n, null, 198)
    ])
    expect(folded).toHaveLength(1)
    expect(folded[0]).toMatchObject({ prevRemainingLots: 10n, prevSeq: null, remainingLots: 0n, seq: 5n, state: 198 })
  })

  it("an order update after the order ended, or from other figures, stays apart", () => {
    expect(foldOrderUpdates([upd(1n, 10n, null, 0n, 5n, 198), upd(1n, 0n, 5n, 0n, null, 199)])).toHaveLength(2)
    expect(foldOrderUpdates([upd(1n, 10n, null, 8n, 5n), upd(1n, 9n, 5n, 4n, null)])).toHaveLength(2)
  })
})
