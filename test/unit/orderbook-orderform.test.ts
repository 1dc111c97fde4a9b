import { describe, expect, it } from "vitest"
import { mapOrderForm, parseScaled, type PairSpec } from "../../actors/room/OrderForm.ts"

// BTC quoted in a 2-decimal quote: lot 0.00000001 BTC, quote unit 0.01.
const pair: PairSpec = { base: "BTC", quote: "USDT", baseDecimals: 8, priceDecimals: 2 }
const form = (o: Partial<Parameters<typeof mapOrderForm>[1]>) =>
  mapOrderForm(pair, {
    fromCurrency: "BTC",
    toCurrency: "USDT",
    fromAmount: "1",
    toAmount: "1",
    isLimit: true,
    postOnly: false,
    ...o
  })

describe("order form → engine order", () => {
  it("parses decimal strings exactly", () => {
    expect(parseScaled("1.5")).toBe(1_500_000_000_000_000_000n)
    expect(parseScaled("0")).toBe(0n)
    expect(parseScaled("-1")).toBeNull()
    expect(parseScaled("1e5")).toBeNull()
  })

  it("a sell of base: quantity = fromAmount, the ratio = toAmount / fromAmount exactly (reduced)", () => {
    expect(form({ fromAmount: "0.5", toAmount: "30000" })).toEqual({
      ok: true,
      side: "sell",
      kind: "limit",
      num: 3,
      den: 50,
      quantity: 50_000_000
    })
    // 100 / 3 stays 10000 units for 300000000 lots: no tick rounding.
    expect(form({ fromAmount: "3", toAmount: "100" })).toMatchObject({ num: 1, den: 30_000, quantity: 300_000_000 })
  })

  it("a buy of base: budget = fromAmount, the ratio = fromAmount / toAmount exactly", () => {
    expect(form({ fromCurrency: "USDT", toCurrency: "BTC", fromAmount: "100", toAmount: "3", postOnly: true })).toEqual(
      {
        ok: true,
        side: "buy",
        kind: "limitOnly",
        num: 1,
        den: 30_000,
        quantity: 300_000_000,
        budget: 10_000
      }
    )
  })

  it("the same price written both ways is the same ratio", () => {
    const sell = form({ fromAmount: "9", toAmount: "10" }) // 9 BTC for 10
    const buy = form({ fromCurrency: "USDT", toCurrency: "BTC", fromAmount: "5", toAmount: "4.5" }) // 5 for 4.5 BTC
    expect(sell).toMatchObject({ num: 1, den: 900_000 })
    expect(buy).toMatchObject({ num: 1, den: 900_000 })
  })

  it("market orders: sell by base quantity, buy by budget (and toAmount as a lot bound when given)", () => {
    expect(form({ isLimit: false, fromAmount: "0.25", toAmount: null })).toEqual({
      ok: true,
      side: "sell",
      kind: "market",
      quantity: 25_000_000
    })
    expect(
      form({ isLimit: false, fromCurrency: "USDT", toCurrency: "BTC", fromAmount: "10", toAmount: "0.001" })
    ).toEqual({
      ok: true,
      side: "buy",
      kind: "market",
      budget: 1000,
      quantity: 100_000
    })
    expect(
      form({ isLimit: false, fromCurrency: "USDT", toCurrency: "BTC", fromAmount: "10.05", toAmount: undefined })
    ).toEqual({
      ok: true,
      side: "buy",
      kind: "market",
      budget: 1005
    })
  })

  it("rejects other pairs, amounts that are not whole lots or quote units, missing limit toAmount", () => {
    expect(form({ fromCurrency: "ETH" })).toEqual({ ok: false, reason: "WrongPair" })
    expect(form({ fromAmount: "0.000000001" })).toEqual({ ok: false, reason: "InvalidAmount" })
    expect(form({ fromAmount: "0" })).toEqual({ ok: false, reason: "InvalidAmount" })
    expect(form({ toAmount: null })).toEqual({ ok: false, reason: "InvalidAmount" })
    expect(form({ toAmount: "0.001" })).toEqual({ ok: false, reason: "InvalidAmount" })
  })
})
