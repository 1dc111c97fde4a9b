/**
 * Wallet lifecycle through the private API over real HTTP against the real service: create_wallet
 * (C3/C12), update_wallet with every WalletInfo write rule of SPEC (null or absent keeps, client_id
 * and timetick_update ignored, a fresh timetick_update on each write, the 0..63 wallet group, one
 * IsDefault per owner even under concurrent writes), get_wallets paging and wallet_info_get.
 */
import { assert, describe, it } from "@effect/vitest"
import { assertRejected, WalletFlag } from "../support/Fixtures.ts"
import { walletsFile } from "../support/Wallets.ts"

const { IsDefault, Require2FA } = WalletFlag

const { client, newClientId, update, infoOf, defaultsOf } = walletsFile()

describe("create_wallet (private, C3/C12)", () => {
  it("the first wallet of a client gets IsDefault; the second does not", async () => {
    const clientId = newClientId()
    const first = await client.createWallet(clientId, { name: "Main" })
    const second = await client.createWallet(clientId, { name: "Savings" })
    assert.strictEqual(first.flags & IsDefault, IsDefault)
    assert.strictEqual(second.flags & IsDefault, 0)
    assert.notStrictEqual(first.id, second.id)
    assert.deepStrictEqual(await defaultsOf(clientId), [first.id])
  })

  it("answers a full WalletInfo: ids and ticks as decimal strings, address starting with W", async () => {
    const clientId = newClientId()
    const reply = await client.priv("POST", "create_wallet", { clientId, name: "Shop", project: 3, walletGroup: 7 })
    assert.strictEqual(reply.status, 200)
    const w = reply.body.result
    assert.isString(w.id)
    assert.match(w.id, /^[1-9][0-9]*$/)
    assert.strictEqual(w.client_id, clientId)
    assert.isString(w.timetick_update)
    assert.match(w.timetick_update, /^[0-9]+$/)
    assert.strictEqual(w.name, "Shop")
    assert.strictEqual(w.project, 3)
    assert.strictEqual(w.wallet_group, 7)
    assert.isNumber(w.max_addr_count)
    assert.isNumber(w.sort_order)
    assert.isString(w.address)
    assert.match(w.address, /^W/)
    assert.sameMembers(Object.keys(w), [
      "id",
      "client_id",
      "timetick_update",
      "flags",
      "wallet_group",
      "project",
      "max_addr_count",
      "name",
      "sort_order",
      "address"
    ])
  })

  it("accepts a JSON-integer clientId and only clientId; addresses are unique", async () => {
    const clientId = Number(newClientId())
    const a = await client.createWallet(clientId as unknown as string)
    const b = await client.createWallet(String(clientId))
    assert.strictEqual(a.client_id, String(clientId))
    assert.strictEqual(b.client_id, String(clientId))
    assert.notStrictEqual(a.address, b.address)
  })

  it("accepts crmId, phone and messengerId; another client cannot take them", async () => {
    const clientId = newClientId()
    const suffix = String(Date.now()).slice(-8)
    const w = await client.createWallet(clientId, {
      crmId: `crm-${suffix}`,
      phone: `+49${suffix}`,
      messengerId: `@user_${suffix}`
    })
    assert.strictEqual(w.client_id, clientId)
    // The same client repeating its identifiers is fine.
    await client.createWallet(clientId, { crmId: `crm-${suffix}`, phone: `+49${suffix}` })
    const taken = await client.priv("POST", "create_wallet", { clientId: newClientId(), phone: `+49${suffix}` })
    assert.strictEqual(taken.status, 400)
    assert.isNull(taken.body.result)
    assert.isNumber(taken.body.error?.code)
  })

  it("rejects a malformed request with 10001 (missing clientId, wallet group 64, bad phone)", async () => {
    for (const body of [
      {},
      { clientId: newClientId(), walletGroup: 64 },
      { clientId: newClientId(), phone: "12345" },
      { clientId: "abc" }
    ]) {
      const reply = await client.priv("POST", "create_wallet", body)
      assertRejected(reply, 400, 10001, JSON.stringify(body))
    }
  })
})

describe("update_wallet (private, SPEC Wallet update rules)", () => {
  it("null and absent fields keep every value", async () => {
    const w = await client.createWallet(newClientId(), { name: "Keep", project: 2, walletGroup: 5 })
    const before = await infoOf(w.id)
    const withNulls = await update({
      id: w.id,
      flags: null,
      wallet_group: null,
      project: null,
      max_addr_count: null,
      name: null,
      sort_order: null
    })
    assert.strictEqual(withNulls.status, 200)
    const absent = await update({ id: w.id })
    assert.strictEqual(absent.status, 200)
    for (const after of [withNulls.body.result, absent.body.result, await infoOf(w.id)]) {
      for (const field of [
        "id",
        "client_id",
        "flags",
        "wallet_group",
        "project",
        "max_addr_count",
        "name",
        "sort_order",
        "address"
      ]) {
        assert.deepStrictEqual(after[field], before[field], field)
      }
    }
  })

  it("writes each field on its own and leaves the others", async () => {
    const w = await client.createWallet(newClientId(), { name: "Start" })
    const changes: Array<[string, unknown]> = [
      ["name", "Renamed"],
      ["sort_order", 9],
      ["project", 4],
      ["max_addr_count", 25],
      ["wallet_group", 63],
      ["flags", IsDefault | Require2FA]
    ]
    let expected = await infoOf(w.id)
    for (const [field, value] of changes) {
      const reply = await update({ id: w.id, [field]: value })
      assert.strictEqual(reply.status, 200, field)
      expected = { ...expected, [field]: value, timetick_update: reply.body.result.timetick_update }
      assert.deepStrictEqual(reply.body.result, expected, field)
    }
    assert.deepStrictEqual(await infoOf(w.id), expected)
  })

  it("ignores client_id and timetick_update in the request", async () => {
    const clientId = newClientId()
    const w = await client.createWallet(clientId)
    const reply = await update({ id: w.id, client_id: "123456789", timetick_update: "1", name: "x" })
    assert.strictEqual(reply.status, 200)
    assert.strictEqual(reply.body.result.client_id, clientId)
    assert.notStrictEqual(reply.body.result.timetick_update, "1")
    assert.isTrue(BigInt(reply.body.result.timetick_update) > BigInt(w.timetick_update))
    const again = await update({ id: w.id, client_id: 5, timetick_update: 99 })
    assert.strictEqual(again.body.result.client_id, clientId)
    assert.strictEqual((await infoOf(w.id)).client_id, clientId)
  })

  it("timetick_update increases on every update, even one that changes nothing", async () => {
    const w = await client.createWallet(newClientId())
    let last = BigInt(w.timetick_update)
    for (const body of [{ name: "a" }, {}, { sort_order: 1 }, { flags: null }, { name: "a" }]) {
      const reply = await update({ id: w.id, ...body })
      const tick = BigInt(reply.body.result.timetick_update)
      assert.isTrue(tick > last, JSON.stringify(body))
      last = tick
    }
    assert.strictEqual((await infoOf(w.id)).timetick_update, String(last))
  })

  it("wallet_group is 0..63: the bounds are written, outside them is rejected with 10001", async () => {
    const w = await client.createWallet(newClientId(), { walletGroup: 10 })
    assert.strictEqual((await update({ id: w.id, wallet_group: 0 })).body.result.wallet_group, 0)
    assert.strictEqual((await update({ id: w.id, wallet_group: 63 })).body.result.wallet_group, 63)
    for (const bad of [64, -1, 1.5, "7"]) {
      const reply = await update({ id: w.id, wallet_group: bad })
      assertRejected(reply, 400, 10001, String(bad))
    }
    assert.strictEqual((await infoOf(w.id)).wallet_group, 63)
  })

  it("rejects flags outside the known bits and names longer than 100 (10001)", async () => {
    const w = await client.createWallet(newClientId())
    for (const body of [{ flags: 32 }, { flags: -1 }, { name: "n".repeat(101) }]) {
      const reply = await update({ id: w.id, ...body })
      assertRejected(reply, 400, 10001, JSON.stringify(body))
    }
  })

  it("an unknown wallet is 404 with code 10030; a missing id is 10001", async () => {
    const unknown = await update({ id: "999999999", name: "x" })
    assertRejected(unknown, 404, 10030)
    const system = await update({ id: "-1", name: "x" })
    assert.strictEqual(system.status, 404)
    const missing = await update({ name: "x" })
    assertRejected(missing, 400, 10001)
  })

  it("setting IsDefault on wallet B clears it on wallet A of the same owner, and only that owner", async () => {
    const owner = newClientId()
    const a = await client.createWallet(owner)
    const b = await client.createWallet(owner)
    const stranger = await client.createWallet(newClientId())
    const reply = await update({ id: b.id, flags: IsDefault | Require2FA })
    assert.strictEqual(reply.status, 200)
    assert.strictEqual(reply.body.result.flags, IsDefault | Require2FA)
    assert.deepStrictEqual(await defaultsOf(owner), [b.id])
    assert.strictEqual((await infoOf(a.id)).flags & IsDefault, 0)
    assert.strictEqual((await infoOf(stranger.id)).flags & IsDefault, IsDefault)
  })

  it("clearing IsDefault leaves the owner without a default; flags without IsDefault on another wallet keep the default", async () => {
    const owner = newClientId()
    const a = await client.createWallet(owner)
    const b = await client.createWallet(owner)
    await update({ id: b.id, flags: Require2FA })
    assert.deepStrictEqual(await defaultsOf(owner), [a.id])
    await update({ id: a.id, flags: 0 })
    assert.deepStrictEqual(await defaultsOf(owner), [])
  })

  it("two concurrent updates setting the default on two different wallets leave exactly one default", async () => {
    for (let round = 0; round < 5; round++) {
      const owner = newClientId()
      const wallets = [
        await client.createWallet(owner),
        await client.createWallet(owner),
        await client.createWallet(owner)
      ]
      const [r1, r2] = await Promise.all([
        update({ id: wallets[1].id, flags: IsDefault }),
        update({ id: wallets[2].id, flags: IsDefault })
      ])
      assert.strictEqual(r1.status, 200, JSON.stringify(r1.body))
      assert.strictEqual(r2.status, 200, JSON.stringify(r2.body))
      const defaults = await defaultsOf(owner)
      assert.strictEqual(defaults.length, 1, `round ${round}`)
      assert.include([wallets[1].id, wallets[2].id], defaults[0])
    }
  })

  it("many concurrent default changes across all wallets of one owner leave exactly one default", async () => {
    const owner = newClientId()
    const wallets = await Promise.all(Array.from({ length: 6 }, () => client.createWallet(owner)))
    const replies = await Promise.all(
      wallets.flatMap((w) => [update({ id: w.id, flags: IsDefault }), update({ id: w.id, flags: IsDefault })])
    )
    for (const reply of replies) assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
    assert.strictEqual((await defaultsOf(owner)).length, 1)
  })

  it("wallets created concurrently for a new client: exactly one is the default", async () => {
    const owner = newClientId()
    await Promise.all(Array.from({ length: 6 }, () => client.createWallet(owner)))
    assert.strictEqual((await defaultsOf(owner)).length, 1)
  })
})

describe("get_wallets and wallet_info_get (private)", () => {
  it("filters by client_id and pages by from_id (exclusive) and limit, in id order", async () => {
    const owner = newClientId()
    const created = []
    for (let i = 0; i < 5; i++) created.push(await client.createWallet(owner, { name: `w${i}` }))
    const ids = created.map((w) => w.id)
    const all = await client.priv("GET", `get_wallets?client_id=${owner}`)
    assert.strictEqual(all.status, 200)
    assert.deepStrictEqual(
      all.body.result.map((w: any) => w.id),
      ids
    )
    for (const w of all.body.result) assert.strictEqual(w.client_id, owner)

    const page1 = await client.priv("GET", `get_wallets?client_id=${owner}&limit=2`)
    assert.deepStrictEqual(
      page1.body.result.map((w: any) => w.id),
      ids.slice(0, 2)
    )
    const page2 = await client.priv("GET", `get_wallets?client_id=${owner}&limit=2&from_id=${ids[1]}`)
    assert.deepStrictEqual(
      page2.body.result.map((w: any) => w.id),
      ids.slice(2, 4)
    )
    const page3 = await client.priv("GET", `get_wallets?client_id=${owner}&limit=2&from_id=${ids[3]}`)
    assert.deepStrictEqual(
      page3.body.result.map((w: any) => w.id),
      ids.slice(4)
    )
    const none = await client.priv("GET", `get_wallets?client_id=${newClientId()}`)
    assert.deepStrictEqual(none.body.result, [])
  })

  it("without a filter lists user wallets only (no system wallets), ids as strings", async () => {
    await client.createWallet(newClientId())
    const reply = await client.priv("GET", "get_wallets?limit=1000")
    assert.isAbove(reply.body.result.length, 0)
    for (const w of reply.body.result) {
      assert.isString(w.id)
      assert.isTrue(BigInt(w.id) > 0n)
    }
  })

  it("rejects a limit outside 1..1000 with 10001", async () => {
    for (const limit of ["0", "1001", "x"]) {
      const reply = await client.priv("GET", `get_wallets?limit=${limit}`)
      assertRejected(reply, 400, 10001, limit)
    }
  })

  it("wallet_info_get returns the WalletInfo; an unknown wallet is the 404 envelope with 10030", async () => {
    const w = await client.createWallet(newClientId(), { name: "Info" })
    const info = await infoOf(w.id)
    assert.deepStrictEqual(info, w)
    const unknown = await client.priv("GET", "wallet_info_get?wallet_id=999999999")
    assert.strictEqual(unknown.status, 404)
    assert.isNull(unknown.body.result)
    assertRejected(unknown, 404, 10030)
    assert.isString(unknown.body.error?.message)
    assert.isNumber(unknown.body.id)
  })
})
