/**
 * The session's own wallet over real HTTP against the real service: the session actions get_info,
 * update_settings, set_security and get_balance (GetBalanceOut with its base-currency equivalent
 * derived from set rates).
 */
import { assert, describe, it } from "@effect/vitest"
import { assertRejected, WalletFlag } from "../support/Fixtures.ts"
import { walletsFile } from "../support/Wallets.ts"

const { IsDefault, Require2FA } = WalletFlag

const { client, newClientId, infoOf, defaultsOf } = walletsFile()

describe("session wallet actions (/core/v1/wallet/)", () => {
  it("get_info returns the session's wallet and the owner's other wallets as siblings", async () => {
    const owner = newClientId()
    const a = await client.createWallet(owner, { name: "A" })
    const b = await client.createWallet(owner, { name: "B" })
    const c = await client.createWallet(owner, { name: "C" })
    await client.createWallet(newClientId(), { name: "Stranger" })
    const sid = await client.createSession(b.id)
    const reply = await client.call("GET", "/core/v1/wallet/get_info", { sid })
    assert.strictEqual(reply.status, 200)
    assert.deepStrictEqual(reply.body.result.wallet, b)
    assert.sameMembers(
      reply.body.result.siblings.map((w: any) => w.id),
      [a.id, c.id]
    )
    for (const sibling of reply.body.result.siblings) assert.strictEqual(sibling.client_id, owner)
  })

  it("update_settings writes name and sortOrder, null keeps them", async () => {
    const w = await client.createWallet(newClientId(), { name: "Before" })
    const sid = await client.createSession(w.id)
    const first = await client.call("POST", "/core/v1/wallet/update_settings", {
      sid,
      body: { name: "After", sortOrder: 3 }
    })
    assert.strictEqual(first.status, 200)
    assert.strictEqual(first.body.result.name, "After")
    assert.strictEqual(first.body.result.sort_order, 3)
    const kept = await client.call("POST", "/core/v1/wallet/update_settings", {
      sid,
      body: { name: null, sortOrder: null, isDefault: null }
    })
    assert.strictEqual(kept.body.result.name, "After")
    assert.strictEqual(kept.body.result.sort_order, 3)
    assert.strictEqual(kept.body.result.flags, w.flags)
    assert.isTrue(BigInt(kept.body.result.timetick_update) > BigInt(first.body.result.timetick_update))
  })

  it("update_settings isDefault reconciles the owner's single default", async () => {
    const owner = newClientId()
    const a = await client.createWallet(owner)
    const b = await client.createWallet(owner)
    const sidB = await client.createSession(b.id)
    const made = await client.call("POST", "/core/v1/wallet/update_settings", { sid: sidB, body: { isDefault: true } })
    assert.strictEqual(made.status, 200)
    assert.strictEqual(made.body.result.flags & IsDefault, IsDefault)
    assert.deepStrictEqual(await defaultsOf(owner), [b.id])
    const sidA = await client.createSession(a.id)
    await client.call("POST", "/core/v1/wallet/update_settings", { sid: sidA, body: { isDefault: true } })
    assert.deepStrictEqual(await defaultsOf(owner), [a.id])
    await client.call("POST", "/core/v1/wallet/update_settings", { sid: sidA, body: { isDefault: false } })
    assert.deepStrictEqual(await defaultsOf(owner), [])
  })

  it("set_security toggles Require2FA (8) and leaves the other flags; off takes the second factor (C19 §4)", async () => {
    const w = await client.createWallet(newClientId())
    assert.strictEqual(w.flags, IsDefault)
    const sid = await client.createSession(w.id)
    const on = await client.call("POST", "/core/v1/wallet/set_security", { sid, body: { require2FA: true } })
    assert.strictEqual(on.status, 200)
    assert.strictEqual(on.body.result.flags, IsDefault | Require2FA)
    const again = await client.call("POST", "/core/v1/wallet/set_security", { sid, body: { require2FA: true } })
    assert.strictEqual(again.body.result.flags, IsDefault | Require2FA)
    // C19 §4: switching it off is step one (nothing changes), then step two with the code of the event.
    const one = await client.call("POST", "/core/v1/wallet/set_security", { sid, body: { require2FA: false } })
    assert.strictEqual(one.body.result.confirmationStatusCode, "NeedCodeConfirm", JSON.stringify(one.body))
    assert.strictEqual((await infoOf(w.id)).flags, IsDefault | Require2FA)
    const tick = one.body.result.confirmationTimetick
    const event = (await client.allEvents()).find((e) => e.kind === "ConfirmationCode" && e.payload.txId === tick)!
    const off = await client.call(
      "POST",
      `/core/v1/wallet/set_security?confirmationTimetick=${tick}&confirmationCode=${event.payload.code}`,
      { sid, body: { require2FA: false } }
    )
    assert.strictEqual(off.body.result.flags, IsDefault)
    assert.strictEqual((await infoOf(w.id)).flags, IsDefault)
    const bad = await client.call("POST", "/core/v1/wallet/set_security", { sid, body: { require2FA: "yes" } })
    assertRejected(bad, 400, 10001)
  })

  it("session actions need a valid session (401)", async () => {
    for (const [method, path] of [
      ["GET", "get_info"],
      ["GET", "get_balance"],
      ["POST", "update_settings"],
      ["POST", "set_security"]
    ] as const) {
      const reply = await client.call(method, `/core/v1/wallet/${path}`, {
        sid: "not-a-session",
        body: method === "POST" ? {} : undefined
      })
      assertRejected(reply, 401, 10401, path)
    }
  })
})

describe("get_balance (GetBalanceOut[])", () => {
  it("an unfunded wallet has no sub-balances", async () => {
    const w = await client.createWallet(newClientId())
    const sid = await client.createSession(w.id)
    const reply = await client.call("GET", "/core/v1/wallet/get_balance", { sid })
    assert.strictEqual(reply.status, 200)
    assert.deepStrictEqual(reply.body.result, [])
  })

  it("rows carry every GetBalanceOut field as numbers; userBalance is the sum of the buckets", async () => {
    const w = await client.createWallet(newClientId())
    const sid = await client.createSession(w.id)
    await client.fund(w.id, "USDC", "12.345678")
    await client.fund(w.id, "USDC", "0.000001")
    await client.fund(w.id, "USDC", "2.345679", "debit")
    const row = await client.balance(sid, "USDC")
    assert.sameMembers(Object.keys(row), [
      "currency",
      "freeBalance",
      "lockOutBalance",
      "lockInBalance",
      "lockOrders",
      "userBalance",
      "userBalanceBaseEqu"
    ])
    for (const field of ["freeBalance", "lockOutBalance", "lockInBalance", "lockOrders", "userBalance"])
      assert.isNumber(row[field], field)
    assert.strictEqual(row.freeBalance, 10)
    assert.strictEqual(row.userBalance, row.freeBalance + row.lockOutBalance + row.lockInBalance + row.lockOrders)
  })

  it("userBalanceBaseEqu is the EUR equivalent: direct, via the USDT cross rate, 1:1 for EUR, null without a rate", async () => {
    const set = await client.priv("POST", "set_rates", [
      { from: "USDT", to: "EUR", rate: "0.9" },
      { from: "BTC", to: "USDT", rate: "60000" }
    ])
    assert.strictEqual(set.status, 200)
    const w = await client.createWallet(newClientId())
    const sid = await client.createSession(w.id)
    await client.fund(w.id, "USDT", "10")
    await client.fund(w.id, "BTC", "0.001")
    await client.fund(w.id, "EUR", "5.55")
    await client.fund(w.id, "ETH", "1")
    const usdt = await client.balance(sid, "USDT")
    assert.strictEqual(usdt.userBalance, 10)
    assert.strictEqual(usdt.userBalanceBaseEqu, 9)
    // 0.001 BTC × 60000 USDT/BTC × 0.9 EUR/USDT = 54 EUR
    assert.strictEqual((await client.balance(sid, "BTC")).userBalanceBaseEqu, 54)
    assert.strictEqual((await client.balance(sid, "EUR")).userBalanceBaseEqu, 5.55)
    assert.isNull((await client.balance(sid, "ETH")).userBalanceBaseEqu)
  })

  it("the EUR equivalent follows the current rates and is rounded to the base currency's 2 decimals", async () => {
    const w = await client.createWallet(newClientId())
    const sid = await client.createSession(w.id)
    await client.fund(w.id, "USDT", "1.234567")
    await client.priv("POST", "set_rates", [{ from: "USDT", to: "EUR", rate: "0.5" }])
    assert.strictEqual((await client.balance(sid, "USDT")).userBalanceBaseEqu, 0.62)
    await client.priv("POST", "set_rates", [{ from: "USDT", to: "EUR", rate: "0.9" }])
    assert.strictEqual((await client.balance(sid, "USDT")).userBalanceBaseEqu, 1.11)
  })

  it("shows only the session wallet's own balances", async () => {
    const owner = newClientId()
    const a = await client.createWallet(owner)
    const b = await client.createWallet(owner)
    await client.fund(a.id, "EUR", "3")
    const sidB = await client.createSession(b.id)
    assert.isUndefined(await client.balance(sidB, "EUR"))
  })
})
