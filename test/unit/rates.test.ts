/**
 * crossRate of src/services/exchange/Rates.ts (SPEC market rule 7, CONTRACT C14) on hand-built rate tables:
 * a direct rate or its inverse, else via USDT, else via BTC (each leg direct or via USDT), else none;
 * each route tried only when the earlier ones fail. No service is started.
 */
import { BigNumber } from "bignumber.js"
import { assert, describe, it } from "@effect/vitest"
import { crossRate } from "../../src/services/exchange/Rates.ts"

const table = (rates: Record<string, string>) =>
  new Map(Object.entries(rates).map(([pair, rate]) => [pair, new BigNumber(rate)]))

const rateOf = (rates: Record<string, string>, from: string, to: string) => {
  const found = crossRate(table(rates), from, to)
  return found === undefined
    ? undefined
    : { rate: found.rate.toFixed(), via: found.via, from: found.from, to: found.to }
}

describe("crossRate", () => {
  it("a currency to itself is 1", () => {
    assert.deepStrictEqual(rateOf({}, "EUR", "EUR"), { rate: "1", via: "direct", from: "EUR", to: "EUR" })
  })

  it("direct: the set rate of the pair", () => {
    assert.deepStrictEqual(rateOf({ "BTC/USDT": "65000.12" }, "BTC", "USDT"), {
      rate: "65000.12",
      via: "direct",
      from: "BTC",
      to: "USDT"
    })
  })

  it("inverse: 1 / the rate of the opposite pair, to 18 decimals", () => {
    assert.deepStrictEqual(rateOf({ "USDT/EUR": "0.8" }, "EUR", "USDT"), {
      rate: "1.25",
      via: "direct",
      from: "EUR",
      to: "USDT"
    })
    assert.strictEqual(rateOf({ "BTC/USDT": "60000" }, "USDT", "BTC")?.rate, "0.000016666666666667")
  })

  it("a forward rate beats the inverse of the opposite pair", () => {
    assert.strictEqual(rateOf({ "EUR/USD": "1.1", "USD/EUR": "0.5" }, "EUR", "USD")?.rate, "1.1")
  })

  it("via USDT: A/USDT × USDT/B, each leg direct or inverse", () => {
    assert.deepStrictEqual(rateOf({ "BTC/USDT": "60000", "USDT/EUR": "0.9" }, "BTC", "EUR"), {
      rate: "54000",
      via: "USDT",
      from: "BTC",
      to: "EUR"
    })
    assert.strictEqual(rateOf({ "BTC/USDT": "60000", "EUR/USDT": "2" }, "BTC", "EUR")?.rate, "30000")
    assert.strictEqual(rateOf({ "BTC/USDT": "60000", "USDT/EUR": "0.9" }, "EUR", "BTC")?.via, "USDT")
  })

  it("via BTC: A/BTC × BTC/B when no USDT route exists; the BTC leg may itself go via USDT", () => {
    assert.deepStrictEqual(rateOf({ "ETH/BTC": "0.05", "BTC/EUR": "50000" }, "ETH", "EUR"), {
      rate: "2500",
      via: "BTC",
      from: "ETH",
      to: "EUR"
    })
    assert.deepStrictEqual(rateOf({ "ETH/BTC": "0.05", "BTC/USDT": "60000", "USDT/EUR": "0.9" }, "ETH", "EUR"), {
      rate: "2700",
      via: "BTC",
      from: "ETH",
      to: "EUR"
    })
    assert.strictEqual(rateOf({ "ETH/BTC": "0.05", "BTC/USDT": "60000" }, "ETH", "USDT")?.rate, "3000")
    // The first leg too: X→BTC = X/USDT × USDT/BTC, when USDT/EUR is missing but BTC/EUR is set.
    assert.deepStrictEqual(rateOf({ "X/USDT": "2", "BTC/USDT": "50000", "BTC/EUR": "40000" }, "X", "EUR"), {
      rate: "1.6",
      via: "BTC",
      from: "X",
      to: "EUR"
    })
    assert.isUndefined(rateOf({ "BTC/USDT": "60000" }, "ETH", "EUR"))
  })

  it("the earlier route wins: direct over USDT over BTC", () => {
    const all = { "ETH/EUR": "2000", "ETH/USDT": "2500", "USDT/EUR": "0.9", "ETH/BTC": "0.05", "BTC/EUR": "50000" }
    assert.deepStrictEqual(rateOf(all, "ETH", "EUR"), { rate: "2000", via: "direct", from: "ETH", to: "EUR" })
    const { "ETH/EUR": _direct, ...noDirect } = all
    assert.deepStrictEqual(rateOf(noDirect, "ETH", "EUR"), { rate: "2250", via: "USDT", from: "ETH", to: "EUR" })
    const { "ETH/USDT": _usdt, ...onlyBtc } = noDirect
    assert.deepStrictEqual(rateOf(onlyBtc, "ETH", "EUR"), { rate: "2500", via: "BTC", from: "ETH", to: "EUR" })
  })

  it("none: undefined when no route exists", () => {
    assert.isUndefined(rateOf({}, "USD", "EUR"))
    assert.isUndefined(rateOf({ "BTC/USDT": "60000", "USDT/EUR": "0.9" }, "USD", "EUR"))
    assert.isUndefined(rateOf({ "USD/GBP": "0.8" }, "USD", "EUR"))
  })

  it("rounds to 18 decimals, half to even", () => {
    assert.strictEqual(rateOf({ "A/B": "3" }, "B", "A")?.rate, "0.333333333333333333")
    assert.strictEqual(rateOf({ "A/B": "1.0000000000000000005" }, "A", "B")?.rate, "1")
    assert.strictEqual(rateOf({ "A/B": "1.0000000000000000015" }, "A", "B")?.rate, "1.000000000000000002")
  })
})
