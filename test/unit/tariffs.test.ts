/**
 * quoteFee of src/platform/Tariffs.ts (CONTRACT C7) on hand-built rule sets: matching by class and
 * currency, the most specific rule winning (wallet group, then typeTx, then an amount range),
 * inclusive min/max bounds, fee = feeFixed + amount × feePercent / 100 rounded up to the currency's
 * decimals, default fee 0 and the Fees wallet as default profit account; and txClassOfType.
 * No service is started.
 */
import { assert, describe, it } from "@effect/vitest"
import { SystemWallet } from "../../sql/Ledger.ts"
import type { Tariff } from "../../sql/ReferenceRepo.ts"
import { type FeeQuery, quoteFee, txClassOfType } from "../../src/platform/Tariffs.ts"

const rule = (fields: Partial<Tariff> & Pick<Tariff, "feeFixed" | "feePercent">): Tariff => ({
  txClass: "InnerTransfer",
  currency: "USDT",
  walletGroup: null,
  typeTx: null,
  minAmount: null,
  maxAmount: null,
  profitWalletId: null,
  ...fields
})

const usdt = (amount: string, extra: Partial<FeeQuery> = {}): FeeQuery => ({
  txClass: "InnerTransfer",
  currency: "USDT",
  decimals: 6,
  amount: BigInt(Math.round(Number(amount) * 1e6)),
  walletGroup: 0,
  ...extra
})

describe("quoteFee", () => {
  it("fee = feeFixed + amount × feePercent / 100 (0.5 + 1 % of 100 = 1.5)", () => {
    const quote = quoteFee([rule({ feeFixed: "0.5", feePercent: "1" })], usdt("100"))
    assert.strictEqual(quote.fee, 1_500_000n)
    assert.strictEqual(quote.profitWalletId, SystemWallet.Fees)
  })

  it("no matching rule: fee 0, profit to the Fees wallet", () => {
    const rules = [
      rule({ feeFixed: "1", feePercent: "0", currency: "EUR" }),
      rule({ feeFixed: "1", feePercent: "0", txClass: "Withdraw" })
    ]
    assert.deepStrictEqual(quoteFee(rules, usdt("100")), { fee: 0n, profitWalletId: -2n })
    assert.deepStrictEqual(quoteFee([], usdt("100")), { fee: 0n, profitWalletId: -2n })
  })

  it("the rule's profit wallet is reported", () => {
    assert.strictEqual(
      quoteFee([rule({ feeFixed: "1", feePercent: "0", profitWalletId: 1000123n })], usdt("5")).profitWalletId,
      1000123n
    )
  })

  it("a wallet-group rule beats the generic rule, and applies only to its group", () => {
    const rules = [rule({ feeFixed: "2", feePercent: "0", walletGroup: 5 }), rule({ feeFixed: "1", feePercent: "0" })]
    assert.strictEqual(quoteFee(rules, usdt("10", { walletGroup: 5 })).fee, 2_000_000n)
    assert.strictEqual(quoteFee(rules, usdt("10", { walletGroup: 4 })).fee, 1_000_000n)
    // Order does not matter.
    assert.strictEqual(quoteFee([...rules].reverse(), usdt("10", { walletGroup: 5 })).fee, 2_000_000n)
  })

  it("a typeTx rule beats the class rule and applies only to its typeTx; a wallet group outranks it", () => {
    const rules = [
      rule({ feeFixed: "1", feePercent: "0" }),
      rule({ feeFixed: "3", feePercent: "0", typeTx: 13 }),
      rule({ feeFixed: "2", feePercent: "0", walletGroup: 5 })
    ]
    assert.strictEqual(quoteFee(rules, usdt("10", { typeTx: 13 })).fee, 3_000_000n)
    assert.strictEqual(quoteFee(rules, usdt("10", { typeTx: 11 })).fee, 1_000_000n)
    assert.strictEqual(quoteFee(rules, usdt("10")).fee, 1_000_000n)
    assert.strictEqual(quoteFee(rules, usdt("10", { typeTx: 13, walletGroup: 5 })).fee, 2_000_000n)
  })

  it("an amount range bounds its rule (inclusive) and makes it more specific than an open rule", () => {
    const rules = [
      rule({ feeFixed: "1", feePercent: "0", minAmount: "10", maxAmount: "100" }),
      rule({ feeFixed: "9", feePercent: "0" })
    ]
    assert.strictEqual(quoteFee(rules, usdt("9.999999")).fee, 9_000_000n)
    assert.strictEqual(quoteFee(rules, usdt("10")).fee, 1_000_000n)
    assert.strictEqual(quoteFee(rules, usdt("100")).fee, 1_000_000n)
    assert.strictEqual(quoteFee(rules, usdt("100.000001")).fee, 9_000_000n)
    const onlyMin = [rule({ feeFixed: "1", feePercent: "0", minAmount: "10" })]
    assert.strictEqual(quoteFee(onlyMin, usdt("5")).fee, 0n)
    assert.strictEqual(quoteFee(onlyMin, usdt("1000000")).fee, 1_000_000n)
  })

  it("rounds the fee up to the currency's decimals", () => {
    const eur = (amountMinor: bigint): FeeQuery => ({
      txClass: "InnerTransfer",
      currency: "EUR",
      decimals: 2,
      amount: amountMinor,
      walletGroup: 0
    })
    const percent = [rule({ currency: "EUR", feeFixed: "0", feePercent: "0.333" })]
    assert.strictEqual(quoteFee(percent, eur(100n)).fee, 1n) // 0.00333 → 0.01
    assert.strictEqual(quoteFee(percent, eur(30000n)).fee, 100n) // 0.999 → 1.00
    assert.strictEqual(quoteFee(percent, eur(30100n)).fee, 101n) // 1.00233 → 1.01
    const fixed = [rule({ currency: "EUR", feeFixed: "0.001", feePercent: "0" })]
    assert.strictEqual(quoteFee(fixed, eur(100n)).fee, 1n)
    const exact = [rule({ currency: "EUR", feeFixed: "0.25", feePercent: "0" })]
    assert.strictEqual(quoteFee(exact, eur(100n)).fee, 25n)
    // Exact however small: 0.1 % of 1 wei is 1e-21 ETH, which still rounds up to 1 wei.
    const wei: FeeQuery = { txClass: "Withdraw", currency: "ETH", decimals: 18, amount: 1n, walletGroup: 0 }
    assert.strictEqual(
      quoteFee([rule({ txClass: "Withdraw", currency: "ETH", feeFixed: "0", feePercent: "0.1" })], wei).fee,
      1n
    )
    const large: FeeQuery = {
      txClass: "Withdraw",
      currency: "ETH",
      decimals: 18,
      amount: 123_456_789_123_456_789_123_456_789n,
      walletGroup: 0
    }
    // 123456789.123456789123456789 ETH × 1e-18 % = 1234567.89123456789123456789 wei → 1234568 wei.
    assert.strictEqual(
      quoteFee(
        [rule({ txClass: "Withdraw", currency: "ETH", feeFixed: "0", feePercent: "0.000000000000000001" })],
        large
      ).fee,
      1_234_568n
    )
  })

  it("a zero rule still wins over a dearer generic one (fee 0 is a valid fee)", () => {
    const rules = [rule({ feeFixed: "5", feePercent: "0" }), rule({ feeFixed: "0", feePercent: "0", walletGroup: 1 })]
    assert.strictEqual(quoteFee(rules, usdt("10", { walletGroup: 1 })).fee, 0n)
  })
})

describe("txClassOfType", () => {
  it("maps the code types 11-14 to InnerTransfer and the others to their class", () => {
    for (const typeTx of [11, 12, 13, 14]) assert.strictEqual(txClassOfType(typeTx), "InnerTransfer")
    assert.strictEqual(txClassOfType(1), "Deposit")
    assert.strictEqual(txClassOfType(2), "Withdraw")
    assert.strictEqual(txClassOfType(15), "SelfTransfer")
    assert.strictEqual(txClassOfType(16), "Exchange")
    assert.strictEqual(txClassOfType(17), "Exchange")
    assert.strictEqual(txClassOfType(19), "Refund")
    assert.strictEqual(txClassOfType(20), "Payment")
    assert.strictEqual(txClassOfType(21), "Payout")
    assert.isUndefined(txClassOfType(99))
  })
})
