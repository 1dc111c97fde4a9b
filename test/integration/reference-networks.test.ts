/**
 * Reference data over real HTTP against the real service, part two: the curated WalletTerminalOut
 * views (tokens_networks, filtered by wallet group and flags) and the public health (get_info).
 */
import { assert, beforeAll, describe, it } from "@effect/vitest"
import { serviceForFile } from "../support/Fixtures.ts"
import { referenceHelpers } from "../support/Reference.ts"

const { client } = serviceForFile()
const { getPrivate, sessionWallet } = referenceHelpers(client)

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
    "canWithdraw",
    "confirmations",
    "requirePartnerInfo"
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
