/**
 * Reference data over real HTTP against the real service, part one: the currency catalogue (private
 * `currencys`, session `assets`) and terminals (add_network with every field authoritative, one Base
 * terminal per network, update_network's preservation / nullable / always-written rules of SPEC
 * "Terminal update request", the read-only built-in internal terminal). The curated WalletTerminalOut
 * views are reference-networks.test.ts; rates and tariffs are reference-pricing.test.ts.
 */
import { assert, describe, it } from "@effect/vitest"
import { assertRejected, serviceForFile } from "../support/Fixtures.ts"
import { referenceHelpers } from "../support/Reference.ts"

const { client } = serviceForFile()
const { getPrivate, sessionWallet } = referenceHelpers(client)

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
    for (const bad of [
      { typeNetwork: 240 },
      { typeContract: 234 },
      { flags: 16 },
      { confirmations: 1001 },
      { confirmations: 0 },
      { walletGroups: [64] }
    ]) {
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
