/**
 * Deposit addresses over HTTP against the real service (CONTRACT C15 "Addresses"): create_address on
 * derived networks (the published first addresses of the BIP-39 test mnemonic, EIP-55 case, new=true,
 * max_addr_count with nothing allocated) and memo networks (one stable record per wallet and
 * terminal), every rejection, list_addresses without a terminal, address_block_list paging, and
 * indices 0..n−1 without gaps under concurrent allocation. technicalState: crypto-addresses-state.test.ts.
 */
import { assert, describe, it } from "@effect/vitest"
import { toChecksumAddress } from "../../src/platform/crypto/Addresses.ts"
import {
  cryptoHelpers,
  expectedAddress,
  FIRST,
  Flag,
  SOLANA_HOT,
  startFailing,
  XPUB_ETH,
  xpubEnv
} from "../support/CryptoAddresses.ts"
import { assertRejected, errorCode, serviceForFile } from "../support/Fixtures.ts"

const t: Record<string, string> = {}
const { client } = serviceForFile({
  env: xpubEnv,
  setup: async () => {
    t.eth = await addNetwork({ typeNetwork: 2, typeContract: 0, currencyId: "ETH", decimals: 18 })
    t.ethUsdt = await addNetwork({ typeNetwork: 2, typeContract: 1, currencyId: "USDT", decimals: 6 })
    t.ethWithdrawOnly = await addNetwork({
      typeNetwork: 2,
      typeContract: 1,
      currencyId: "USDC",
      decimals: 6,
      flags: Flag.Withdraw
    })
    t.ethGroup5 = await addNetwork({
      typeNetwork: 2,
      typeContract: 4,
      currencyId: "USDC",
      decimals: 6,
      walletGroups: [5, 7]
    })
    t.btc = await addNetwork({ typeNetwork: 1, typeContract: 0, currencyId: "BTC", decimals: 8 })
    t.tronUsdt = await addNetwork({ typeNetwork: 3, typeContract: 2, currencyId: "USDT", decimals: 6 })
    t.bnbUsdt = await addNetwork({ typeNetwork: 4, typeContract: 3, currencyId: "USDT", decimals: 6 })
    t.sol = await addNetwork({
      typeNetwork: 5,
      typeContract: 0,
      currencyId: "USDC",
      decimals: 6,
      defaultHotAddress: SOLANA_HOT
    })
    t.solUsdt = await addNetwork({
      typeNetwork: 5,
      typeContract: 5,
      currencyId: "USDT",
      decimals: 6,
      defaultHotAddress: SOLANA_HOT
    })
    t.tonNoHot = await addNetwork({ typeNetwork: 6, typeContract: 6, currencyId: "USDT", decimals: 6 })
    t.card = await addNetwork({ typeNetwork: 100, typeContract: 0, currencyId: "EUR", decimals: 2 })
  }
})
const { addNetwork, createAddress, listAddresses, blockList, watchAll } = cryptoHelpers(client)

const created = async (sid: string, terminal: string, fresh?: boolean) => {
  const reply = await createAddress(sid, terminal, fresh)
  assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
  return reply.body.result as {
    id: string
    address: string
    typeAddress: string
    memo: string | null
    typeNetwork: number
    technicalState: unknown
  }
}

describe("create_address on derived networks (C15)", () => {
  it("the first address of each network is index 0: the published vectors, EIP-55 case", async () => {
    const w = await client.party()
    const eth = await created(w.sid, t.eth!)
    assert.deepStrictEqual(
      { ...eth, id: "" },
      { id: "", address: FIRST[2], typeAddress: "EOA", memo: null, typeNetwork: 2, technicalState: null }
    )
    assert.strictEqual(eth.address, toChecksumAddress(eth.address.toLowerCase()))
    assert.notStrictEqual(eth.address, eth.address.toLowerCase())
    const btc = await created(w.sid, t.btc!)
    assert.strictEqual(btc.address, FIRST[1])
    assert.strictEqual(btc.typeAddress, "P2WPKH")
    assert.strictEqual(btc.typeNetwork, 1)
    const tron = await created(w.sid, t.tronUsdt!)
    assert.strictEqual(tron.address, FIRST[3])
    assert.strictEqual(tron.typeAddress, "EOA")
    assert.match(eth.id, /^[1-9][0-9]*$/)
  })

  it("the newest address is answered again; one address serves every terminal of the network", async () => {
    const w = await client.party()
    const first = await created(w.sid, t.eth!)
    assert.deepStrictEqual(await created(w.sid, t.eth!), first)
    assert.deepStrictEqual(await created(w.sid, t.ethUsdt!), first)
    assert.deepStrictEqual(await created(w.sid, t.eth!, false), first)
  })

  it("new=true allocates the next index; later calls answer the newest", async () => {
    const w = await client.party()
    const first = await created(w.sid, t.ethUsdt!)
    const second = await created(w.sid, t.ethUsdt!, true)
    assert.notStrictEqual(second.id, first.id)
    assert.notStrictEqual(second.address, first.address)
    assert.deepStrictEqual(await created(w.sid, t.eth!), second)
    const watched = await watchAll(t.eth!)
    const indexOf = (id: string) => watched.find((item) => item.id === id)!.derivationIndex as number
    assert.strictEqual(indexOf(second.id), indexOf(first.id) + 1)
    assert.strictEqual(first.address, expectedAddress(2, indexOf(first.id)))
    assert.strictEqual(second.address, expectedAddress(2, indexOf(second.id)))
  })

  it("more than max_addr_count addresses on one network: 10203 and nothing allocated", async () => {
    const w = await client.party()
    const update = await client.priv("POST", "update_wallet", { id: w.id, max_addr_count: 2 })
    assert.strictEqual(update.status, 200, JSON.stringify(update.body))
    await created(w.sid, t.btc!)
    await created(w.sid, t.btc!, true)
    const before = await watchAll(t.btc!)
    assertRejected(await createAddress(w.sid, t.btc!, true), 400, errorCode.AddressLimitReached, "3rd", "new")
    assertRejected(await createAddress(w.sid, t.btc!, true), 400, errorCode.AddressLimitReached, "4th")
    assert.deepStrictEqual(await watchAll(t.btc!), before)
    // The limit is per network: Ethereum still takes one, and the next Bitcoin index follows without a gap.
    await created(w.sid, t.eth!)
    const other = await client.party()
    const next = await created(other.sid, t.btc!)
    const after = await watchAll(t.btc!)
    assert.strictEqual(after.at(-1).id, next.id)
    assert.strictEqual(after.at(-1).derivationIndex, before.at(-1).derivationIndex + 1)
    assert.deepStrictEqual(
      (await listAddresses(w.sid, t.btc!)).body.result.length,
      2,
      "the wallet still holds two Bitcoin addresses"
    )
  })

  it("max_addr_count 0: even the first address is 10203", async () => {
    const w = await client.party()
    await client.priv("POST", "update_wallet", { id: w.id, max_addr_count: 0 })
    assertRejected(await createAddress(w.sid, t.tronUsdt!), 400, errorCode.AddressLimitReached)
    assert.deepStrictEqual((await listAddresses(w.sid)).body.result, [])
  })
})

describe("create_address on memo networks and rejections (C15)", () => {
  it("one record per wallet and terminal, always the same; the wallet's memo is one across terminals", async () => {
    const w = await client.party()
    const sol = await created(w.sid, t.sol!)
    assert.strictEqual(sol.address, SOLANA_HOT)
    assert.strictEqual(sol.typeAddress, "Memo")
    assert.strictEqual(sol.typeNetwork, 5)
    assert.match(sol.memo!, /^[1-9][0-9]{5,9}$/)
    assert.isNull(sol.technicalState)
    assert.deepStrictEqual(await created(w.sid, t.sol!, true), sol, "new is ignored")
    assert.deepStrictEqual(await created(w.sid, t.sol!), sol)
    const solUsdt = await created(w.sid, t.solUsdt!, true)
    assert.notStrictEqual(solUsdt.id, sol.id)
    assert.strictEqual(solUsdt.memo, sol.memo)
    const other = await client.party()
    assert.notStrictEqual((await created(other.sid, t.sol!)).memo, sol.memo)
  })

  it("10202: XPUB unset for the network, or a memo terminal without defaultHotAddress", async () => {
    const w = await client.party()
    assertRejected(await createAddress(w.sid, t.bnbUsdt!), 400, errorCode.AddressesUnavailable, "bnb", "token_network")
    assert.include((await createAddress(w.sid, t.bnbUsdt!)).body.error?.message, "XPUB_BNB_SMART_CHAIN")
    assertRejected(await createAddress(w.sid, t.tonNoHot!), 400, errorCode.AddressesUnavailable, "ton")
    assert.deepStrictEqual((await listAddresses(w.sid)).body.result, [])
  })

  it("10200 not crypto, 10201 no Deposit flag or not the wallet's group, 404 10040 unknown terminal", async () => {
    const w = await client.party()
    assertRejected(await createAddress(w.sid, t.card!), 400, errorCode.NotACryptoTerminal, "card", "token_network")
    assertRejected(await createAddress(w.sid, "1"), 400, errorCode.NotACryptoTerminal, "built-in internal")
    assertRejected(await createAddress(w.sid, t.ethWithdrawOnly!), 400, errorCode.TerminalNotAllowed, "flags")
    assertRejected(await createAddress(w.sid, t.ethGroup5!), 400, errorCode.TerminalNotAllowed, "group")
    assertRejected(await createAddress(w.sid, "987654321"), 404, errorCode.TerminalNotFound, "unknown", "token_network")
    assertRejected(await createAddress(w.sid, "abc"), 400, errorCode.InvalidRequest, "malformed")
    assert.strictEqual((await client.call("GET", `/core/v1/wallet/create_address?token_network=${t.eth}`)).status, 401)
    const grouped = await client.party({ extra: { walletGroup: 7 } })
    assert.strictEqual((await created(grouped.sid, t.ethGroup5!)).typeNetwork, 2)
  })
})

describe("list_addresses without a terminal (C15)", () => {
  it("all the wallet's records oldest first, technicalState null; another wallet's are not listed", async () => {
    const w = await client.party()
    const a = await created(w.sid, t.tronUsdt!)
    const b = await created(w.sid, t.sol!)
    const c = await created(w.sid, t.eth!)
    const d = await created(w.sid, t.eth!, true)
    await created((await client.party()).sid, t.eth!)
    const reply = await listAddresses(w.sid, undefined, true)
    assert.strictEqual(reply.status, 200)
    assert.deepStrictEqual(reply.body.result, [a, b, c, d])
    assert.deepStrictEqual(Object.keys(reply.body.result[0]).sort(), [
      "address",
      "id",
      "memo",
      "technicalState",
      "typeAddress",
      "typeNetwork"
    ])
    // With a terminal: its network's derived records; a memo terminal: its memo record; non-crypto: none.
    assert.deepStrictEqual((await listAddresses(w.sid, t.ethUsdt!)).body.result, [c, d])
    assert.deepStrictEqual((await listAddresses(w.sid, t.sol!, true)).body.result, [b])
    assert.deepStrictEqual((await listAddresses(w.sid, t.solUsdt!)).body.result, [])
    assert.deepStrictEqual((await listAddresses(w.sid, t.card!, true)).body.result, [])
    assertRejected(await listAddresses(w.sid, "987654321"), 404, errorCode.TerminalNotFound, "unknown")
  })
})

describe("address_block_list (C15, scanner)", () => {
  it("a terminal's watch list in allocation order, paged by an exclusive cursor", async () => {
    const w = await client.party()
    await created(w.sid, t.tronUsdt!)
    await created(w.sid, t.tronUsdt!, true)
    const all = await watchAll(t.tronUsdt!)
    assert.isAtLeast(all.length, 3)
    const ids = all.map((item) => BigInt(item.id))
    for (let i = 1; i < ids.length; i++) assert.isTrue(ids[i]! > ids[i - 1]!, "ascending ids")
    for (const item of all) {
      assert.deepStrictEqual(Object.keys(item).sort(), [
        "address",
        "derivationIndex",
        "id",
        "memo",
        "tick",
        "typeNetwork",
        "walletId"
      ])
      assert.strictEqual(item.address, expectedAddress(3, item.derivationIndex))
      assert.isNull(item.memo)
      assert.strictEqual(item.typeNetwork, 3)
      assert.match(item.tick, /^[1-9][0-9]*$/)
      assert.match(item.walletId, /^[1-9][0-9]*$/)
    }
    assert.strictEqual(all.at(-1).walletId, w.id)
    // Pages of 2 cover the same list; the cursor is the last id of the page; past the end: empty, same cursor.
    assert.deepStrictEqual(await watchAll(t.tronUsdt!, 2), all)
    const first = await blockList({ tokenNetwork: t.tronUsdt, limit: 2 })
    assert.deepStrictEqual(first.body.result, all.slice(0, 2))
    assert.strictEqual(first.body.cursor, all[1].id)
    const second = await blockList({ tokenNetwork: t.tronUsdt, cursor: first.body.cursor, limit: 2 })
    assert.deepStrictEqual(second.body.result, all.slice(2, 4))
    const end = await blockList({ tokenNetwork: t.tronUsdt, cursor: all.at(-1).id })
    assert.deepStrictEqual(end.body.result, [])
    assert.strictEqual(end.body.cursor, all.at(-1).id)
    // The same network through another terminal: the same list (derived addresses serve the network).
    const btcWatch = await watchAll(t.btc!)
    assert.isTrue(btcWatch.every((item) => item.typeNetwork === 1 && item.address.startsWith("bc1q")))
  })

  it("memo terminals list their memo records; limits, unknown and non-crypto terminals, credentials", async () => {
    const w = await client.party()
    const rec = await created(w.sid, t.solUsdt!)
    const items = await watchAll(t.solUsdt!)
    const mine = items.find((item) => item.id === rec.id)
    assert.deepStrictEqual(
      { ...mine, tick: "" },
      {
        id: rec.id,
        address: SOLANA_HOT,
        memo: rec.memo,
        walletId: w.id,
        typeNetwork: 5,
        derivationIndex: null,
        tick: ""
      }
    )
    assert.isFalse(
      (await watchAll(t.sol!)).some((item) => item.id === rec.id),
      "another terminal's records"
    )
    for (const limit of ["0", "1001", "-1", "x"])
      assertRejected(await blockList({ tokenNetwork: t.eth, limit }), 400, errorCode.InvalidRequest, `limit ${limit}`)
    assertRejected(await blockList({ tokenNetwork: t.eth, cursor: "-5" }), 400, errorCode.InvalidRequest, "cursor")
    assert.strictEqual((await blockList({ tokenNetwork: t.eth, limit: 1000 })).status, 200)
    assertRejected(
      await blockList({ tokenNetwork: "987654321" }),
      404,
      errorCode.TerminalNotFound,
      "unknown",
      "tokenNetwork"
    )
    assertRejected(await blockList({ tokenNetwork: t.card }), 400, errorCode.NotACryptoTerminal, "card")
    assert.strictEqual((await client.call("GET", `/private/v1/address_block_list?tokenNetwork=${t.eth}`)).status, 401)
  })
})

describe("index allocation under concurrency (C15: never reused, never skipped)", () => {
  it("20 concurrent new=true across wallets: the network's indices are exactly 0..n−1", async () => {
    const parties = await Promise.all(Array.from({ length: 10 }, () => client.party()))
    const replies = await Promise.all(
      parties.flatMap((p) => [createAddress(p.sid, t.eth!, true), createAddress(p.sid, t.ethUsdt!, true)])
    )
    for (const reply of replies) assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
    const watched = await watchAll(t.eth!)
    const indices = watched.map((item) => item.derivationIndex as number).sort((a, b) => a - b)
    assert.deepStrictEqual(
      indices,
      indices.map((_, i) => i)
    )
    for (const item of watched) assert.strictEqual(item.address, expectedAddress(2, item.derivationIndex))
    const answered = new Set(replies.map((reply) => reply.body.result.id as string))
    assert.strictEqual(answered.size, 20)
    for (const p of parties) assert.strictEqual((await listAddresses(p.sid, t.eth!)).body.result.length, 2)
  })
})

describe("the limit under concurrency and XPUB settings at start (C15)", () => {
  it("14 concurrent new=true of one wallet with max_addr_count 10: exactly 10 stored, 4 refused 10203", async () => {
    const w = await client.party()
    const replies = await Promise.all(Array.from({ length: 14 }, () => createAddress(w.sid, t.tronUsdt!, true)))
    assert.strictEqual(replies.filter((r) => r.status === 200).length, 10)
    for (const r of replies.filter((r) => r.status !== 200)) assertRejected(r, 400, errorCode.AddressLimitReached)
    assert.strictEqual((await listAddresses(w.sid, t.tronUsdt!)).body.result.length, 10)
    const indices = (await watchAll(t.tronUsdt!)).map((item) => item.derivationIndex as number).sort((a, b) => a - b)
    assert.deepStrictEqual(
      indices,
      indices.map((_, i) => i)
    )
  })

  it("concurrent first calls of one wallet: one derived address, one memo, one memo record", async () => {
    const w = await client.party()
    const derived = await Promise.all(Array.from({ length: 8 }, () => createAddress(w.sid, t.btc!)))
    assert.strictEqual(new Set(derived.map((r) => r.body.result.id)).size, 1, JSON.stringify(derived[0]!.body))
    const memo = await Promise.all(Array.from({ length: 8 }, (_, i) => createAddress(w.sid, t.sol!, i % 2 === 0)))
    assert.strictEqual(new Set(memo.map((r) => r.body.result.id)).size, 1, JSON.stringify(memo[0]!.body))
    assert.strictEqual((await listAddresses(w.sid)).body.result.length, 2)
  })

  it("a malformed XPUB_ETHEREUM stops the service at start: exit ≠ 0, the variable named on stderr", async () => {
    const { exitCode, stderr } = await startFailing({ ...xpubEnv, XPUB_ETHEREUM: XPUB_ETH.slice(0, -4) + "abcd" })
    assert.notStrictEqual(exitCode, 0)
    assert.include(stderr, "XPUB_ETHEREUM")
    const zpubForEth = await startFailing({ XPUB_ETHEREUM: xpubEnv.XPUB_BITCOIN })
    assert.notStrictEqual(zpubForEth.exitCode, 0)
    assert.include(zpubForEth.stderr, "XPUB_ETHEREUM")
  }, 60_000)
})
