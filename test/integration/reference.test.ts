/**
 * Reference data over real HTTP against the real service: the currency catalogue (private
 * `currencys`, session `assets`), terminals (add_network with every field authoritative, one Base
 * terminal per network, update_network's preservation / nullable / always-written rules of SPEC
 * "Terminal update request", the read-only built-in internal terminal, the curated
 * WalletTerminalOut views filtered by wallet group and flags), rates (SPEC market rule 7: direct,
 * inverse, via USDT, via BTC, none), tariffs and estimate_fee (CONTRACT C7), and the public health.
 * Rates and tariffs are global, so each describe sets what it needs and the tests read it in order.
 */
import { assert, beforeAll, describe, it } from "@effect/vitest"
import { assertRejected, serviceForFile } from "../support/Fixtures.ts"

const { client } = serviceForFile()

/** A new wallet (optionally in a wallet group) with a session. */
const sessionWallet = (walletGroup = 0) => client.party({ extra: { walletGroup } })

const getPrivate = (path: string) => client.priv("GET", path)

describe("currency catalogue (C7)", () => {
  const expected: Record<string, { decimals: number; exchangeEnabled: boolean; isBase: boolean }> = {
    BTC: { decimals: 8, exchangeEnabled: true, isBase: false },
    ETH: { decimals: 18, exchangeEnabled: true, isBase: false },
    USDT: { decimals: 6, exchangeEnabled: true, isBase: false },
    USDC: { decimals: 6, exchangeEnabled: true, isBase: false },
    EUR: { decimals: 2, exchangeEnabled: true, isBase: true },
    USD: { decimals: 2, exchangeEnabled: false, isBase: false }
  }

  const check = (rows: Array<any>) => {
    for (const [code, fields] of Object.entries(expected)) {
      const row = rows.find((r) => r.currency === code)
      assert.isDefined(row, code)
      assert.strictEqual(row.decimals, fields.decimals, code)
      assert.strictEqual(row.exchangeEnabled, fields.exchangeEnabled, code)
      assert.strictEqual(row.isBase, fields.isBase, code)
      assert.isString(row.name)
    }
    assert.strictEqual(rows.filter((r) => r.isBase).length, 1)
    assert.deepStrictEqual(
      rows.filter((r) => !r.exchangeEnabled).map((r) => r.currency),
      ["USD"]
    )
  }

  it("private currencys lists BTC 8, ETH 18, USDT 6, USDC 6, EUR 2 (base), USD 2 (no exchange)", async () => {
    const reply = await getPrivate("currencys")
    assert.strictEqual(reply.status, 200)
    check(reply.body.result)
  })

  it("session assets lists the same catalogue", async () => {
    const w = await sessionWallet()
    const reply = await client.call("GET", "/core/v1/assets", { sid: w.sid })
    assert.strictEqual(reply.status, 200)
    check(reply.body.result)
    assert.deepStrictEqual(reply.body.result, (await getPrivate("currencys")).body.result)
  })

  it("assets needs a session; currencys needs service credentials", async () => {
    assert.strictEqual((await client.call("GET", "/core/v1/assets")).status, 401)
    assert.strictEqual((await client.call("GET", "/private/v1/currencys")).status, 401)
  })
})

describe("terminals: add_network and update_network (SPEC Terminal update request)", () => {
  const fullTerminal = (overrides: Record<string, unknown> = {}) => ({
    typeNetwork: 2,
    typeContract: 0,
    currencyId: "ETH",
    decimals: 18,
    addressContract: null,
    name: "ethereum-mainnet",
    tag: "eth",
    priority: 10,
    networkFee: "0.001",
    displayName: "Ethereum",
    iconCode: "eth",
    flags: 3,
    defaultHotAddress: "0xHOT",
    defaultSystemWalletId: "-1",
    walletGroups: [1, 2],
    ...overrides
  })
  const add = (body: Record<string, unknown>) => client.priv("POST", "add_network", body)
  const patch = (body: Record<string, unknown>) => client.priv("POST", "update_network", body)

  let eth: any
  let usdtErc20: any

  it("add_network creates a terminal with every field as sent", async () => {
    const body = fullTerminal()
    const reply = await add(body)
    assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
    eth = reply.body.result
    assert.isString(eth.id)
    assert.match(eth.id, /^[0-9]+$/)
    const { currencyId, ...rest } = body
    assert.strictEqual(eth.currencyId, currencyId)
    for (const [field, value] of Object.entries(rest)) assert.deepStrictEqual(eth[field], value, field)
    assert.isNull(eth.lastBlock)

    const token = await add({
      typeNetwork: 2,
      typeContract: 1,
      currencyId: "USDT",
      decimals: 6,
      addressContract: "0xdAC17F958D2ee523a2206206994597C13D831ec7",
      flags: 1,
      defaultHotAddress: null,
      defaultSystemWalletId: null,
      walletGroups: []
    })
    assert.strictEqual(token.status, 200, JSON.stringify(token.body))
    usdtErc20 = token.body.result
    assert.strictEqual(usdtErc20.addressContract, "0xdAC17F958D2ee523a2206206994597C13D831ec7")
    // Optional attributes left out are stored as null.
    for (const field of [
      "name",
      "tag",
      "priority",
      "networkFee",
      "displayName",
      "iconCode",
      "defaultHotAddress",
      "defaultSystemWalletId"
    ]) {
      assert.isNull(usdtErc20[field], field)
    }
    assert.deepStrictEqual(usdtErc20.walletGroups, [])
  })

  it("a second Base (typeContract 0) terminal for the same network is rejected with 10041; other contracts are not", async () => {
    const again = await add(fullTerminal({ name: "again" }))
    assertRejected(again, 400, 10041)
    const racing = await Promise.all([
      add(fullTerminal({ typeNetwork: 3, currencyId: "USDT", decimals: 6 })),
      add(fullTerminal({ typeNetwork: 3, currencyId: "USDT", decimals: 6 }))
    ])
    assert.sameMembers(
      racing.map((r) => r.status),
      [200, 400]
    )
    assertRejected(
      racing.find((r) => r.status === 400)!,
      400,
      10041
    )
    const secondToken = await add({
      typeNetwork: 2,
      typeContract: 1,
      currencyId: "USDC",
      decimals: 6,
      flags: 1,
      defaultHotAddress: null,
      defaultSystemWalletId: null,
      walletGroups: []
    })
    assert.strictEqual(secondToken.status, 200)
  })

  it("add_network checks the currency (10020), its decimals (10032), the system wallet (10030) and the field ranges (10001)", async () => {
    assertRejected(await add(fullTerminal({ typeNetwork: 10, currencyId: "XYZ" })), 400, 10020)
    assertRejected(await add(fullTerminal({ typeNetwork: 10, decimals: 8 })), 400, 10032)
    assertRejected(await add(fullTerminal({ typeNetwork: 10, defaultSystemWalletId: "999999999" })), 404, 10030)
    for (const bad of [{ typeNetwork: 240 }, { typeContract: 234 }, { flags: 8 }, { walletGroups: [64] }]) {
      const reply = await add(fullTerminal({ typeNetwork: 10, ...bad }))
      assertRejected(reply, 400, 10001, JSON.stringify(bad))
    }
    const missing = await add({ typeNetwork: 10, typeContract: 0, currencyId: "ETH", decimals: 18 })
    assertRejected(missing, 400, 10001)
  })

  it("update_network preserves identity fields and lastBlock whatever the request sends", async () => {
    const reply = await patch({
      id: eth.id,
      typeNetwork: 5,
      typeContract: 3,
      currencyId: "BTC",
      decimals: 8,
      addressContract: "0xNEW",
      lastBlock: "123456",
      flags: eth.flags,
      defaultHotAddress: eth.defaultHotAddress,
      defaultSystemWalletId: eth.defaultSystemWalletId,
      walletGroups: eth.walletGroups
    })
    assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
    const after = reply.body.result
    for (const field of [
      "id",
      "typeNetwork",
      "typeContract",
      "currencyId",
      "decimals",
      "addressContract",
      "lastBlock"
    ]) {
      assert.deepStrictEqual(after[field], eth[field], field)
    }
    const token = await patch({
      id: usdtErc20.id,
      addressContract: null,
      flags: 1,
      defaultHotAddress: null,
      defaultSystemWalletId: null,
      walletGroups: []
    })
    assert.strictEqual(token.body.result.addressContract, usdtErc20.addressContract)
  })

  it("nullable attributes: null or absent keeps the value", async () => {
    const always = {
      flags: eth.flags,
      defaultHotAddress: eth.defaultHotAddress,
      defaultSystemWalletId: eth.defaultSystemWalletId,
      walletGroups: eth.walletGroups
    }
    const withNulls = await patch({
      id: eth.id,
      name: null,
      tag: null,
      priority: null,
      networkFee: null,
      displayName: null,
      iconCode: null,
      ...always
    })
    assert.strictEqual(withNulls.status, 200)
    const absent = await patch({ id: eth.id, ...always })
    for (const after of [withNulls.body.result, absent.body.result]) {
      for (const field of ["name", "tag", "priority", "networkFee", "displayName", "iconCode"])
        assert.deepStrictEqual(after[field], eth[field], field)
    }
  })

  it("nullable attributes: a value writes it", async () => {
    const reply = await patch({
      id: eth.id,
      name: "eth-new",
      tag: "eth2",
      priority: 20,
      networkFee: 0.002,
      displayName: "Ether",
      iconCode: "ether",
      flags: eth.flags,
      defaultHotAddress: eth.defaultHotAddress,
      defaultSystemWalletId: eth.defaultSystemWalletId,
      walletGroups: eth.walletGroups
    })
    assert.strictEqual(reply.status, 200)
    const after = reply.body.result
    assert.strictEqual(after.name, "eth-new")
    assert.strictEqual(after.tag, "eth2")
    assert.strictEqual(after.priority, 20)
    assert.strictEqual(Number(after.networkFee), 0.002)
    assert.strictEqual(after.displayName, "Ether")
    assert.strictEqual(after.iconCode, "ether")
  })

  it("nullable attributes: an empty string or 0 clears the value (null)", async () => {
    const always = {
      flags: eth.flags,
      defaultHotAddress: eth.defaultHotAddress,
      defaultSystemWalletId: eth.defaultSystemWalletId,
      walletGroups: eth.walletGroups
    }
    const strings = await patch({
      id: eth.id,
      name: "",
      tag: "",
      networkFee: "",
      displayName: "",
      iconCode: "",
      priority: 0,
      ...always
    })
    assert.strictEqual(strings.status, 200, JSON.stringify(strings.body))
    for (const field of ["name", "tag", "priority", "networkFee", "displayName", "iconCode"])
      assert.isNull(strings.body.result[field], field)
    // The numeric zero clears networkFee as well, whether sent as a number or a string.
    for (const zero of [0, "0", "0.000"]) {
      await patch({ id: eth.id, networkFee: "0.5", ...always })
      const cleared = await patch({ id: eth.id, networkFee: zero, ...always })
      assert.strictEqual(cleared.status, 200)
      assert.isNull(cleared.body.result.networkFee, JSON.stringify(zero))
    }
  })

  it("flags, defaultHotAddress, defaultSystemWalletId and walletGroups are always written (null clears)", async () => {
    const reply = await patch({
      id: eth.id,
      flags: 1,
      defaultHotAddress: null,
      defaultSystemWalletId: null,
      walletGroups: []
    })
    assert.strictEqual(reply.status, 200)
    assert.strictEqual(reply.body.result.flags, 1)
    assert.isNull(reply.body.result.defaultHotAddress)
    assert.isNull(reply.body.result.defaultSystemWalletId)
    assert.deepStrictEqual(reply.body.result.walletGroups, [])
    const back = await patch({
      id: eth.id,
      flags: 3,
      defaultHotAddress: "0xHOT2",
      defaultSystemWalletId: "-2",
      walletGroups: [7]
    })
    assert.strictEqual(back.body.result.flags, 3)
    assert.strictEqual(back.body.result.defaultHotAddress, "0xHOT2")
    assert.strictEqual(back.body.result.defaultSystemWalletId, "-2")
    assert.deepStrictEqual(back.body.result.walletGroups, [7])
    // They must be sent: leaving one out is a malformed request.
    for (const field of ["flags", "defaultHotAddress", "defaultSystemWalletId", "walletGroups"]) {
      const body: Record<string, unknown> = {
        id: eth.id,
        flags: 3,
        defaultHotAddress: "0xHOT2",
        defaultSystemWalletId: "-2",
        walletGroups: [7]
      }
      delete body[field]
      const omitted = await patch(body)
      assertRejected(omitted, 400, 10001, field)
    }
  })

  it("an unknown terminal is 404 with 10040; an unknown system wallet is 10030", async () => {
    const unknown = await patch({
      id: "987654321",
      flags: 0,
      defaultHotAddress: null,
      defaultSystemWalletId: null,
      walletGroups: []
    })
    assertRejected(unknown, 404, 10040)
    const wallet = await patch({
      id: eth.id,
      flags: 0,
      defaultHotAddress: null,
      defaultSystemWalletId: "999999999",
      walletGroups: []
    })
    assertRejected(wallet, 404, 10030)
  })

  it("the built-in internal terminal exists (240 / 234, Own Wallet Transfer) and is read-only (10042)", async () => {
    const list = await getPrivate("tokens_networks")
    const internal = (list.body.result as Array<any>).filter((t) => t.typeNetwork === 240)
    assert.strictEqual(internal.length, 1)
    assert.strictEqual(internal[0].typeContract, 234)
    assert.strictEqual(internal[0].displayName, "Own Wallet Transfer")
    const reply = await patch({
      id: internal[0].id,
      name: "mine",
      flags: 3,
      defaultHotAddress: null,
      defaultSystemWalletId: null,
      walletGroups: []
    })
    assertRejected(reply, 400, 10042)
    const after = (await getPrivate("tokens_networks")).body.result.find((t: any) => t.id === internal[0].id)
    assert.deepStrictEqual(after, internal[0])
  })
})

describe("tokens_networks (WalletTerminalOut)", () => {
  const terminal = async (typeNetwork: number, flags: number, walletGroups: Array<number>, displayName: string) => {
    const reply = await client.priv("POST", "add_network", {
      typeNetwork,
      typeContract: 0,
      currencyId: "BTC",
      decimals: 8,
      name: `raw-${displayName}`,
      tag: "raw-tag",
      displayName,
      iconCode: "btc",
      networkFee: "0.0001",
      priority: 5,
      flags,
      defaultHotAddress: null,
      defaultSystemWalletId: null,
      walletGroups
    })
    assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
    return reply.body.result.id as string
  }

  let everyone: string, group5Withdraw: string, group6: string, hidden: string, unusable: string, group5And6: string
  beforeAll(async () => {
    everyone = await terminal(101, 1, [], "Everyone")
    group5Withdraw = await terminal(102, 2, [5], "Group five")
    group6 = await terminal(103, 3, [6], "Group six")
    hidden = await terminal(104, 1 | 4, [], "Hidden")
    unusable = await terminal(105, 0, [], "Neither")
    group5And6 = await terminal(106, 3, [5, 6], "Five and six")
  })

  const expectedKeys = [
    "id",
    "typeNetwork",
    "typeContract",
    "currency",
    "decimals",
    "displayName",
    "iconCode",
    "networkFee",
    "priority",
    "canDeposit",
    "canWithdraw"
  ]

  it("the private list has every terminal, curated: no raw name, tag or symbol", async () => {
    const reply = await getPrivate("tokens_networks")
    assert.strictEqual(reply.status, 200)
    const ids = reply.body.result.map((t: any) => t.id)
    assert.includeMembers(ids, [everyone, group5Withdraw, group6, hidden, unusable, group5And6])
    for (const t of reply.body.result) {
      for (const raw of ["name", "tag", "symbol"]) assert.notProperty(t, raw)
      assert.sameMembers(Object.keys(t), expectedKeys)
    }
    const one = reply.body.result.find((t: any) => t.id === everyone)
    assert.strictEqual(one.displayName, "Everyone")
    assert.strictEqual(one.currency, "BTC")
    assert.strictEqual(one.decimals, 8)
    assert.isTrue(one.canDeposit)
    assert.isFalse(one.canWithdraw)
  })

  it("the session list keeps the wallet's group (walletGroups [] = all) and deposit/withdraw terminals, never hidden ones", async () => {
    const g5 = await sessionWallet(5)
    const reply = await client.call("GET", "/core/v1/tokens_networks", { sid: g5.sid })
    assert.strictEqual(reply.status, 200)
    const ids = reply.body.result.map((t: any) => t.id)
    assert.includeMembers(ids, [everyone, group5Withdraw, group5And6])
    for (const excluded of [group6, hidden, unusable]) assert.notInclude(ids, excluded)
    for (const t of reply.body.result) {
      for (const raw of ["name", "tag", "symbol"]) assert.notProperty(t, raw)
    }
    const withdraw = reply.body.result.find((t: any) => t.id === group5Withdraw)
    assert.isFalse(withdraw.canDeposit)
    assert.isTrue(withdraw.canWithdraw)

    const g6 = await sessionWallet(6)
    const six = (await client.call("GET", "/core/v1/tokens_networks", { sid: g6.sid })).body.result.map(
      (t: any) => t.id
    )
    assert.includeMembers(six, [everyone, group6, group5And6])
    for (const excluded of [group5Withdraw, hidden, unusable]) assert.notInclude(six, excluded)

    const g0 = await sessionWallet(0)
    const zero = (await client.call("GET", "/core/v1/tokens_networks", { sid: g0.sid })).body.result.map(
      (t: any) => t.id
    )
    assert.include(zero, everyone)
    for (const excluded of [group5Withdraw, group6, group5And6, hidden, unusable]) assert.notInclude(zero, excluded)
  })

  it("the session list follows update_network and update_wallet", async () => {
    const w = await sessionWallet(5)
    const list = async () =>
      (await client.call("GET", "/core/v1/tokens_networks", { sid: w.sid })).body.result.map((t: any) => t.id)
    await client.priv("POST", "update_network", {
      id: everyone,
      flags: 1 | 4,
      defaultHotAddress: null,
      defaultSystemWalletId: null,
      walletGroups: []
    })
    assert.notInclude(await list(), everyone)
    await client.priv("POST", "update_network", {
      id: everyone,
      flags: 1,
      defaultHotAddress: null,
      defaultSystemWalletId: null,
      walletGroups: []
    })
    assert.include(await list(), everyone)
    await client.priv("POST", "update_wallet", { id: w.id, wallet_group: 6 })
    const now = await list()
    assert.include(now, group6)
    assert.notInclude(now, group5Withdraw)
  })

  it("needs a session", async () => {
    assert.strictEqual((await client.call("GET", "/core/v1/tokens_networks")).status, 401)
  })
})

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

describe("public get_info", () => {
  it("answers without credentials: status, version, server time and uptime", async () => {
    const reply = await client.call("GET", "/core/v1/get_info")
    assert.strictEqual(reply.status, 200)
    const info = reply.body.result
    assert.strictEqual(info.status, "ok")
    assert.isString(info.version)
    assert.isTrue(Math.abs(Date.parse(info.serverTimeUTC) - Date.now()) < 60_000)
    assert.match(info.serverTimeUTC, /Z$/)
    assert.isTrue(Number.isInteger(info.uptimeSeconds) && info.uptimeSeconds >= 0)
  })
})
