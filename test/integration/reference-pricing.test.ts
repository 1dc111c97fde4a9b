/**
 * Reference data over real HTTP against the real service, part three: rates (SPEC market rule 7:
 * direct, inverse, via USDT, via BTC, none) and tariffs with estimate_fee (CONTRACT C7). Rates and
 * tariffs are global, so each describe sets what it needs and the tests read it in order.
 */
import { assert, beforeAll, describe, it } from "@effect/vitest"
import { assertRejected, serviceForFile } from "../support/Fixtures.ts"
import { referenceHelpers } from "../support/Reference.ts"

const { client } = serviceForFile()
const { getPrivate, sessionWallet } = referenceHelpers(client)

describe("rates (SPEC market rule 7, C14)", () => {
  beforeAll(async () => {
    const reply = await client.priv("POST", "set_rates", [
      { from: "BTC", to: "USDT", rate: "60000" },
      { from: "USDT", to: "EUR", rate: "0.9" },
      { from: "ETH", to: "BTC", rate: "0.05" }
    ])
    assert.strictEqual(reply.status, 200)
    assert.strictEqual(reply.body.result.updated, 3)
  })

  const rate = (from: string, to: string) => client.priv("GET", `get_rate?from=${from}&to=${to}`)

  it("direct: the set rate", async () => {
    const reply = await rate("BTC", "USDT")
    assert.strictEqual(reply.status, 200)
    assert.deepStrictEqual(reply.body.result, { from: "BTC", to: "USDT", rate: "60000", via: "direct" })
  })

  it("inverse: 1 / the set rate of the opposite pair", async () => {
    const reply = await rate("USDT", "BTC")
    assert.strictEqual(reply.body.result.via, "direct")
    assert.strictEqual(reply.body.result.rate, "0.000016666666666667")
    assert.strictEqual((await rate("EUR", "USDT")).body.result.rate, "1.111111111111111111")
  })

  it("via USDT: BTC→EUR = BTC/USDT × USDT/EUR", async () => {
    const reply = await rate("BTC", "EUR")
    assert.deepStrictEqual(reply.body.result, { from: "BTC", to: "EUR", rate: "54000", via: "USDT" })
    const back = await rate("EUR", "BTC")
    assert.strictEqual(back.body.result.via, "USDT")
    assert.closeTo(Number(back.body.result.rate), 1 / 54000, 1e-15)
  })

  it("via BTC: ETH has only an ETH/BTC rate, so ETH→EUR and ETH→USDT go through BTC", async () => {
    assert.deepStrictEqual((await rate("ETH", "EUR")).body.result, { from: "ETH", to: "EUR", rate: "2700", via: "BTC" })
    assert.deepStrictEqual((await rate("ETH", "USDT")).body.result, {
      from: "ETH",
      to: "USDT",
      rate: "3000",
      via: "BTC"
    })
    const back = await rate("EUR", "ETH")
    assert.strictEqual(back.body.result.via, "BTC")
    assert.closeTo(Number(back.body.result.rate), 1 / 2700, 1e-15)
  })

  it("none: 404 with 10050; an unknown currency is 10020", async () => {
    const none = await rate("USD", "EUR")
    assertRejected(none, 404, 10050)
    assertRejected(await rate("USDC", "BTC"), 404, 10050)
    const unknown = await rate("XYZ", "EUR")
    assertRejected(unknown, 400, 10020)
  })

  it("a new set rate replaces the old one; a direct rate beats a cross rate", async () => {
    await client.priv("POST", "set_rates", [{ from: "BTC", to: "EUR", rate: "50000" }])
    assert.deepStrictEqual((await rate("BTC", "EUR")).body.result, {
      from: "BTC",
      to: "EUR",
      rate: "50000",
      via: "direct"
    })
    await client.priv("POST", "set_rates", [{ from: "BTC", to: "EUR", rate: "54000" }])
    assert.strictEqual((await rate("BTC", "EUR")).body.result.rate, "54000")
  })

  it("set_rates rejects unknown currencies (10020), a pair with itself and non-positive rates", async () => {
    assertRejected(await client.priv("POST", "set_rates", [{ from: "XYZ", to: "EUR", rate: "1" }]), 400, 10020)
    assert.strictEqual((await client.priv("POST", "set_rates", [{ from: "EUR", to: "EUR", rate: "1" }])).status, 400)
    for (const bad of ["0", "-1", "abc"]) {
      const reply = await client.priv("POST", "set_rates", [{ from: "USD", to: "EUR", rate: bad }])
      assert.strictEqual(reply.status, 400, bad)
    }
    assert.strictEqual((await rate("USD", "EUR")).status, 404)
  })

  it("private get_rates lists the set rates", async () => {
    const reply = await getPrivate("get_rates")
    assert.strictEqual(reply.status, 200)
    const pairs = reply.body.result.map((r: any) => `${r.from}/${r.to}=${r.rate}`)
    assert.includeMembers(pairs, ["BTC/USDT=60000", "USDT/EUR=0.9", "ETH/BTC=0.05"])
  })

  it("market get_rates (session) defaults to EUR over every currency with a rate", async () => {
    const w = await sessionWallet()
    const reply = await client.call("GET", "/core/v1/market/get_rates", { sid: w.sid })
    assert.strictEqual(reply.status, 200)
    const byFrom = Object.fromEntries(reply.body.result.map((r: any) => [r.from, r]))
    for (const r of reply.body.result) assert.strictEqual(r.to, "EUR")
    assert.strictEqual(byFrom.BTC.rate, "54000")
    assert.strictEqual(byFrom.ETH.rate, "2700")
    assert.strictEqual(byFrom.USDT.rate, "0.9")
    assert.notProperty(byFrom, "USD")
    assert.notProperty(byFrom, "USDC")
  })

  it("market get_rates takes repeated from and another to", async () => {
    const w = await sessionWallet()
    const two = await client.call("GET", "/core/v1/market/get_rates?from=BTC&from=ETH", { sid: w.sid })
    assert.strictEqual(two.status, 200, JSON.stringify(two.body))
    assert.sameMembers(
      two.body.result.map((r: any) => `${r.from}/${r.to}=${r.rate}`),
      ["BTC/EUR=54000", "ETH/EUR=2700"]
    )
    const one = await client.call("GET", "/core/v1/market/get_rates?from=BTC&to=USDT", { sid: w.sid })
    assert.strictEqual(one.status, 200, JSON.stringify(one.body))
    assert.deepStrictEqual(one.body.result, [{ from: "BTC", to: "USDT", rate: "60000", via: "direct" }])
    const unknown = await client.call("GET", "/core/v1/market/get_rates?to=XYZ", { sid: w.sid })
    assertRejected(unknown, 400, 10020)
  })
})

describe("tariffs and estimate_fee (C7)", () => {
  const setTariffs = async (rules: Array<Record<string, unknown>>) => {
    const reply = await client.priv("POST", "set_tariffs", rules)
    assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
    return reply
  }
  const estimate = (sid: string, txType: string, currency: string, amount: string) =>
    client.call("GET", `/core/v1/estimate_fee?tx_type=${txType}&currency=${currency}&amount=${amount}`, { sid })

  it("set_tariffs replaces the whole set; get_tariffs lists it", async () => {
    await setTariffs([
      { txClass: "InnerTransfer", currency: "USDT", feeFixed: "1", feePercent: "0" },
      { txClass: "Withdraw", currency: "BTC", feeFixed: "0.0001", feePercent: "0" }
    ])
    assert.strictEqual((await getPrivate("get_tariffs")).body.result.length, 2)
    const reply = await setTariffs([
      {
        txClass: "InnerTransfer",
        currency: "EUR",
        walletGroup: 3,
        typeTx: 12,
        feeFixed: 0.25,
        feePercent: 0.5,
        minAmount: "1",
        maxAmount: "1000",
        profitWalletId: "-2"
      }
    ])
    assert.strictEqual(reply.body.result.rules, 1)
    const listed = (await getPrivate("get_tariffs")).body.result
    assert.strictEqual(listed.length, 1)
    const rule = listed[0]
    assert.strictEqual(rule.txClass, "InnerTransfer")
    assert.strictEqual(rule.currency, "EUR")
    assert.strictEqual(rule.walletGroup, 3)
    assert.strictEqual(rule.typeTx, 12)
    assert.strictEqual(Number(rule.feeFixed), 0.25)
    assert.strictEqual(Number(rule.feePercent), 0.5)
    assert.strictEqual(Number(rule.minAmount), 1)
    assert.strictEqual(Number(rule.maxAmount), 1000)
    assert.strictEqual(rule.profitWalletId, "-2")
    await setTariffs([])
    assert.deepStrictEqual((await getPrivate("get_tariffs")).body.result, [])
  })

  it("set_tariffs rejects an unknown currency (10020), an unknown profit wallet (10030) and an unknown txClass (10001), keeping the set", async () => {
    await setTariffs([{ txClass: "Withdraw", currency: "BTC", feeFixed: "0.0001", feePercent: "0" }])
    assertRejected(
      await client.priv("POST", "set_tariffs", [
        { txClass: "Withdraw", currency: "XYZ", feeFixed: "1", feePercent: "0" }
      ]),
      400,
      10020
    )
    assertRejected(
      await client.priv("POST", "set_tariffs", [
        { txClass: "Withdraw", currency: "BTC", feeFixed: "1", feePercent: "0", profitWalletId: "999999999" }
      ]),
      404,
      10030
    )
    assertRejected(
      await client.priv("POST", "set_tariffs", [{ txClass: "Bogus", currency: "BTC", feeFixed: "1", feePercent: "0" }]),
      400,
      10001
    )
    assert.strictEqual((await getPrivate("get_tariffs")).body.result.length, 1)
  })

  it("estimate_fee: feeFixed 0.5 + feePercent 1 on 100 USDT is 1.5", async () => {
    await setTariffs([{ txClass: "InnerTransfer", currency: "USDT", feeFixed: "0.5", feePercent: "1" }])
    const w = await sessionWallet()
    const reply = await estimate(w.sid, "InnerTransfer", "USDT", "100")
    assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
    assert.deepStrictEqual(reply.body.result, {
      txClass: "InnerTransfer",
      currency: "USDT",
      amount: 100,
      fee: 1.5,
      feeText: "1.5"
    })
  })

  it("numeric tx_type 11 (and the other code types 12-14) map to InnerTransfer", async () => {
    await setTariffs([{ txClass: "InnerTransfer", currency: "USDT", feeFixed: "0.5", feePercent: "1" }])
    const w = await sessionWallet()
    for (const txType of ["11", "12", "13", "14"]) {
      const reply = await estimate(w.sid, txType, "USDT", "100")
      assert.strictEqual(reply.body.result.txClass, "InnerTransfer", txType)
      assert.strictEqual(reply.body.result.fee, 1.5, txType)
    }
  })

  it("the most specific rule wins: a wallet-group rule over the generic one, a typeTx rule over the class rule", async () => {
    await setTariffs([
      { txClass: "InnerTransfer", currency: "USDT", feeFixed: "1", feePercent: "0" },
      { txClass: "InnerTransfer", currency: "USDT", walletGroup: 5, feeFixed: "2", feePercent: "0" },
      { txClass: "InnerTransfer", currency: "USDT", typeTx: 13, feeFixed: "3", feePercent: "0" }
    ])
    const plain = await sessionWallet(0)
    const group5 = await sessionWallet(5)
    assert.strictEqual((await estimate(plain.sid, "InnerTransfer", "USDT", "10")).body.result.fee, 1)
    assert.strictEqual((await estimate(group5.sid, "InnerTransfer", "USDT", "10")).body.result.fee, 2)
    assert.strictEqual((await estimate(plain.sid, "13", "USDT", "10")).body.result.fee, 3)
    assert.strictEqual((await estimate(plain.sid, "11", "USDT", "10")).body.result.fee, 1)
    // The wallet group outranks the typeTx narrowing.
    assert.strictEqual((await estimate(group5.sid, "13", "USDT", "10")).body.result.fee, 2)
  })

  it("minAmount and maxAmount bound the amounts a rule applies to (inclusive)", async () => {
    await setTariffs([
      { txClass: "Withdraw", currency: "USDT", feeFixed: "9", feePercent: "0" },
      { txClass: "Withdraw", currency: "USDT", feeFixed: "1", feePercent: "0", minAmount: "10", maxAmount: "100" }
    ])
    const w = await sessionWallet()
    const fee = async (amount: string) => (await estimate(w.sid, "Withdraw", "USDT", amount)).body.result.fee
    assert.strictEqual(await fee("9.999999"), 9)
    assert.strictEqual(await fee("10"), 1)
    assert.strictEqual(await fee("55"), 1)
    assert.strictEqual(await fee("100"), 1)
    assert.strictEqual(await fee("100.000001"), 9)
  })

  it("a bounded rule alone: outside its bounds the fee is the default 0", async () => {
    await setTariffs([{ txClass: "Withdraw", currency: "USDT", feeFixed: "1", feePercent: "0", minAmount: "10" }])
    const w = await sessionWallet()
    assert.strictEqual((await estimate(w.sid, "Withdraw", "USDT", "5")).body.result.fee, 0)
    assert.strictEqual((await estimate(w.sid, "Withdraw", "USDT", "10")).body.result.fee, 1)
  })

  it("the fee is rounded up to the currency's decimals", async () => {
    await setTariffs([
      { txClass: "InnerTransfer", currency: "EUR", feeFixed: "0", feePercent: "0.333" },
      { txClass: "InnerTransfer", currency: "USDT", feeFixed: "0", feePercent: "0.0001" },
      { txClass: "InnerTransfer", currency: "BTC", feeFixed: "0.000000001", feePercent: "0" }
    ])
    const w = await sessionWallet()
    const eur = await estimate(w.sid, "InnerTransfer", "EUR", "1.00")
    assert.strictEqual(eur.body.result.fee, 0.01)
    assert.strictEqual(eur.body.result.feeText, "0.01")
    assert.strictEqual((await estimate(w.sid, "InnerTransfer", "EUR", "300")).body.result.fee, 1)
    assert.strictEqual((await estimate(w.sid, "InnerTransfer", "EUR", "301")).body.result.fee, 1.01)
    assert.strictEqual((await estimate(w.sid, "InnerTransfer", "USDT", "1")).body.result.feeText, "0.000001")
    assert.strictEqual((await estimate(w.sid, "InnerTransfer", "BTC", "1")).body.result.feeText, "0.00000001")
  })

  it("with no matching rule the fee is 0", async () => {
    await setTariffs([{ txClass: "Withdraw", currency: "USDT", feeFixed: "1", feePercent: "1" }])
    const w = await sessionWallet()
    for (const [txType, currency] of [
      ["InnerTransfer", "USDT"],
      ["Withdraw", "BTC"],
      ["Deposit", "USDT"]
    ]) {
      const reply = await estimate(w.sid, txType, currency, "100")
      assert.strictEqual(reply.status, 200)
      assert.strictEqual(reply.body.result.fee, 0, `${txType} ${currency}`)
      assert.strictEqual(reply.body.result.feeText, "0")
    }
  })

  it("rejects an unknown tx_type (10001), an unknown currency (10020), too many decimals (10021) and a non-positive amount (10001)", async () => {
    const w = await sessionWallet()
    assertRejected(await estimate(w.sid, "Bogus", "USDT", "1"), 400, 10001)
    assertRejected(await estimate(w.sid, "99", "USDT", "1"), 400, 10001)
    assertRejected(await estimate(w.sid, "InnerTransfer", "XYZ", "1"), 400, 10020)
    assertRejected(await estimate(w.sid, "InnerTransfer", "EUR", "1.001"), 400, 10021)
    assertRejected(await estimate(w.sid, "InnerTransfer", "EUR", "0"), 400, 10001)
    assertRejected(await estimate(w.sid, "InnerTransfer", "EUR", "-1"), 400, 10001)
    const missing = await client.call("GET", "/core/v1/estimate_fee?currency=EUR&amount=1", { sid: w.sid })
    assertRejected(missing, 400, 10001)
  })

  it("needs a session", async () => {
    assert.strictEqual(
      (await client.call("GET", "/core/v1/estimate_fee?tx_type=InnerTransfer&currency=USDT&amount=1")).status,
      401
    )
  })
})
