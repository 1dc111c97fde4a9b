import { describe, expect, it } from "vitest"
import { mapOrderForm, parseScaled, type PairSpec } from "../../actors/room/OrderForm.ts"

// BTC quoted in USDT: lot 0.00000001 BTC, tick 0.01 USDT per BTC.
const pair: PairSpec = { base: "BTC", quote: "USDT", baseDecimals: 8, priceDecimals: 2 }
const form = (o: Partial<Parameters<typeof mapOrderForm>[1]>) =>
  mapOrderForm(pair, { fromCurrency: "BTC", toCurrency: "USDT", fromAmount: "1", toAmount: "1", isLimit: true, postOnly: false, ...o })

describe("order form → engine order", () => {
  it("parses decimal strings exactly", () => {
    expect(parseScaled("1.5")).toBe(1_500_000_000_000_000_000n)
    expect(parseScaled("0")).toBe(0n)
    expect(parseScaled("-1")).toBeNull()
    expect(parseScaled("1e5")).toBeNull()
  })

  it("a sell of base: quantity = fromAmount, price = toAmount/fromAmount rounded up to a tick", () => {
    expect(form({ fromAmount: "0.5", toAmount: "30000" })).toEqual({ ok: true, side: "sell", kind: "limit", price: 6_000_000, quantity: 50_000_000 })
    // 100 / 3 = 33.333… → 33.34 (never less than toAmount in total)
    expect(form({ fromAmount: "3", toAmount: "100" })).toMatchObject({ price: 3334, quantity: 300_000_000 })
  })

  it("a buy of base: quantity = toAmount, price = fromAmount/toAmount rounded down to a tick", () => {
    expect(form({ fromCurrency: "USDT", toCurrency: "BTC", fromAmount: "100", toAmount: "3", postOnly: true })).toEqual({
      ok: true, side: "buy", kind: "limitOnly", price: 3333, quantity: 300_000_000
    })
  })

  it("market orders: sell by base quantity, buy by toAmount or else by funds", () => {
    expect(form({ isLimit: false, fromAmount: "0.25", toAmount: null })).toEqual({ ok: true, side: "sell", kind: "market", quantity: 25_000_000 })
    expect(form({ isLimit: false, fromCurrency: "USDT", toCurrency: "BTC", fromAmount: "10", toAmount: "0.001" })).toEqual({ ok: true, side: "buy", kind: "market", quantity: 100_000 })
    // 10.005 USDT in notional units of 10^-10 USDT (tick 10^-2 × lot 10^-8)
    expect(form({ isLimit: false, fromCurrency: "USDT", toCurrency: "BTC", fromAmount: "10.005", toAmount: undefined })).toEqual({ ok: true, side: "buy", kind: "market", funds: 100_050_000_000 })
  })

  it("rejects other pairs, non-lot amounts, missing limit toAmount and sub-tick prices", () => {
    expect(form({ fromCurrency: "ETH" })).toEqual({ ok: false, reason: "WrongPair" })
    expect(form({ fromAmount: "0.000000001" })).toEqual({ ok: false, reason: "InvalidAmount" })
    expect(form({ fromAmount: "0" })).toEqual({ ok: false, reason: "InvalidAmount" })
    expect(form({ toAmount: null })).toEqual({ ok: false, reason: "InvalidAmount" })
    expect(form({ fromCurrency: "USDT", toCurrency: "BTC", fromAmount: "0.001", toAmount: "1" })).toEqual({ ok: false, reason: "InvalidPrice" })
  })
})
