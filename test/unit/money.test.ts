/**
 * schema/Money.ts, the conversion between decimal text and integer minor units, checked on fixed
 * cases and property-style over many seeded random amounts and decimals (bignumber.js is the
 * oracle for the canonical text). No service is started.
 */
import { BigNumber } from "bignumber.js"
import { assert, describe, it } from "@effect/vitest"
import { fromMinorUnits, minorToNumber, toMinorUnits } from "../../schema/Money.ts"
import { seeded } from "./Random.ts"

describe("toMinorUnits", () => {
  it("scales by the currency's decimals", () => {
    assert.strictEqual(toMinorUnits("100.5", 6), 100_500_000n)
    assert.strictEqual(toMinorUnits("0.01", 2), 1n)
    assert.strictEqual(toMinorUnits("1", 18), 10n ** 18n)
    assert.strictEqual(toMinorUnits("0.000000000000000001", 18), 1n)
    assert.strictEqual(toMinorUnits("12345678901234567890.12345678", 8), 1234567890123456789012345678n)
    assert.strictEqual(toMinorUnits("7", 0), 7n)
    assert.strictEqual(toMinorUnits("0", 2), 0n)
  })

  it("ignores trailing zeros of the fraction", () => {
    assert.strictEqual(toMinorUnits("1.500", 2), 150n)
    assert.strictEqual(toMinorUnits("5.0", 0), 5n)
    assert.strictEqual(toMinorUnits("1.0010000", 3), 1001n)
  })

  it("answers undefined when the amount has more decimals than the currency", () => {
    assert.isUndefined(toMinorUnits("1.001", 2))
    assert.isUndefined(toMinorUnits("5.1", 0))
    assert.isUndefined(toMinorUnits("0.0000000000000000001", 18))
    assert.isUndefined(toMinorUnits("0.000000001", 8))
  })

  it("property: random decimal text → minor units equals the exact scaled value, or undefined when too precise", () => {
    const random = seeded(20240601)
    for (let i = 0; i < 5000; i++) {
      const decimals = random.int(0, 18)
      const whole = random.digits(random.int(1, 24)).replace(/^0+(?=.)/, "")
      const fractionLength = random.int(0, 18)
      const fraction = random.digits(fractionLength)
      const text = fractionLength > 0 ? `${whole}.${fraction}` : whole
      const minor = toMinorUnits(text, decimals)
      const scaled = new BigNumber(text).shiftedBy(decimals)
      if (scaled.isInteger()) {
        assert.strictEqual(minor, BigInt(scaled.toFixed(0)), `${text} @${decimals}`)
      } else {
        assert.isUndefined(minor, `${text} @${decimals}`)
      }
    }
  })
})

describe("fromMinorUnits", () => {
  it("writes the canonical decimal: no trailing zeros, no exponent, leading 0 below one", () => {
    assert.strictEqual(fromMinorUnits(100_500_000n, 6), "100.5")
    assert.strictEqual(fromMinorUnits(1n, 2), "0.01")
    assert.strictEqual(fromMinorUnits(1n, 18), "0.000000000000000001")
    assert.strictEqual(fromMinorUnits(10n ** 18n, 18), "1")
    assert.strictEqual(fromMinorUnits(0n, 8), "0")
    assert.strictEqual(fromMinorUnits(7n, 0), "7")
    assert.strictEqual(fromMinorUnits(10n ** 30n, 2), "10000000000000000000000000000")
  })

  it("writes negative amounts (system wallets) with a leading minus", () => {
    assert.strictEqual(fromMinorUnits(-150n, 2), "-1.5")
    assert.strictEqual(fromMinorUnits(-1n, 6), "-0.000001")
  })

  it("property: minor → text → minor round-trips for random values and decimals", () => {
    const random = seeded(7)
    for (let i = 0; i < 5000; i++) {
      const decimals = random.int(0, 18)
      const minor = BigInt(random.digits(random.int(1, 40)))
      const text = fromMinorUnits(minor, decimals)
      assert.strictEqual(text, new BigNumber(minor.toString()).shiftedBy(-decimals).toFixed(), `${minor} @${decimals}`)
      assert.notMatch(text, /e|\.$|\.\d*0$/)
      assert.strictEqual(toMinorUnits(text, decimals), minor, `${minor} @${decimals}`)
      assert.strictEqual(fromMinorUnits(-minor, decimals), minor === 0n ? "0" : `-${text}`)
    }
  })

  it("property: text → minor → text gives the canonical form of the text", () => {
    const random = seeded(99)
    for (let i = 0; i < 5000; i++) {
      const decimals = random.int(0, 18)
      const fraction = random.digits(random.int(0, decimals))
      const text = `${random.digits(random.int(1, 20))}${fraction.length > 0 ? "." + fraction : ""}`
      const minor = toMinorUnits(text, decimals)
      assert.isDefined(minor, text)
      assert.strictEqual(fromMinorUnits(minor!, decimals), new BigNumber(text).toFixed(), text)
    }
  })
})

describe("minorToNumber", () => {
  it("gives the JSON number of the amount", () => {
    assert.strictEqual(minorToNumber(150n, 2), 1.5)
    assert.strictEqual(minorToNumber(1n, 6), 0.000001)
    assert.strictEqual(minorToNumber(0n, 18), 0)
  })
})
