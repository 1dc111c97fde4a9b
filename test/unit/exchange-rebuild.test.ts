/**
 * A room rebuilt from rows placed before exact ratios (migration 0014): such rows rested on decimal
 * ticks, so two of them can now cross (the mirror case: 10 USDT for 9 EUR beside 4.5 EUR for 5 USDT).
 * Restoring never crosses the book: the crossing row is refused by `restore` and matched as a taker
 * (the room actor does so before anything else), and rows without a stored ratio take it from their amounts.
 */
import { describe, expect, it } from "vitest"
import { makeBook, ratioOfRow } from "../../actors/room/Matching.ts"
import { makePair } from "../../actors/room/Pair.ts"
import { OrderState } from "../../actors/room/Settlement.ts"
import type { Order } from "../../sql/OrderRepo.ts"

// EUR/USDT: USDT is the quote (6 decimals), EUR the base (2 decimals: a lot is one cent).
const pair = makePair("EUR", "USDT", 2, 6)

const row = (
  o: Partial<Order> & Pick<Order, "id" | "walletId" | "side" | "fromAmount" | "toAmount" | "seq">
): Order => {
  const sell = o.side === 1
  const lots = sell ? o.fromAmount : o.toAmount!
  return {
    walletGroup: 0,
    typeTx: sell ? 16 : 17,
    roomKey: 0n,
    base: "EUR",
    quote: "USDT",
    orderType: 1,
    priceTicks: null,
    priceNum: null,
    priceDen: null,
    quantityLots: lots,
    remainingLots: lots,
    fromCurrency: sell ? "EUR" : "USDT",
    toCurrency: sell ? "USDT" : "EUR",
    locked: o.fromAmount,
    given: 0n,
    received: 0n,
    fee: 0n,
    state: 1,
    tag: null,
    createdAt: new Date(0),
    updatedAt: new Date(0),
    ...o
  }
}

describe("rebuilding a room from rows rested on ticks", () => {
  it("derives the ratio from the amounts, refuses the crossing row on restore, and matches it as a taker", () => {
    // A buy: 10 USDT (10,000,000 units) for 9 EUR (900 lots); a sell: 4.5 EUR (450 lots) for 5 USDT.
    const buy = row({ id: 1n, walletId: 11n, side: 0, fromAmount: 10_000_000n, toAmount: 900n, seq: 1n })
    const sell = row({ id: 2n, walletId: 12n, side: 1, fromAmount: 450n, toAmount: 5_000_000n, seq: 2n })
    expect(ratioOfRow(pair, buy)).toEqual([100000, 9])
    expect(ratioOfRow(pair, sell)).toEqual([100000, 9])
    const book = makeBook(pair, 0n, "0:EUR:USDT", 2)
    expect(book.restore(buy)).toBe(true)
    expect(book.restore(sell)).toBe(false)
    book.validate()
    let trade = 100n
    const decision = book.place(
      sell,
      false,
      () => ({ fee: 0n, profitWalletId: -2n }),
      () => trade++
    )
    expect(decision.figures).toMatchObject({
      state: OrderState.Completed,
      given: 450n,
      received: 5_000_000n,
      locked: 0n
    })
    expect(book.resting("1")).toMatchObject({ remainingLots: 450n, given: 5_000_000n, received: 450n })
    book.validate()
  })
})
