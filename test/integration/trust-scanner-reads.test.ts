/**
 * C19 §10 over HTTP: what a scanner and a signer may read, and what they need not tell.
 * - scanner_terminal: a crypto terminal's settings and its tip (null before the first push, then the last
 *   pushed block, a reorg's block after a reorg); 404 10040 unknown, 400 10200 not crypto; a scanner or a
 *   signer key may read it, an invest key is 403 10405, a wallet session 401.
 * - An out item with a null txId binds the HandedOff or Broadcast withdrawal reported with its txHash when
 *   `to` and amount match, and settles exactly as with the txId; a mismatched amount or `to` binds nothing;
 *   one withdrawal never binds two items; a reorg that re-mines it binds it again.
 * - A withdrawal without a client asset source is listed with the terminal's defaultHotAddress as its
 *   sourceAddress (index null).
 * The ledger audit runs after every test (serviceForFile).
 */
import { assert, describe, it } from "@effect/vitest"
import { addCryptoTerminal, type ItemIn, pushBlock, pushOk } from "../support/Chain.ts"
import { ethAddress, otherEthAddress, usdtFee, withdrawFile } from "../support/CryptoWithdrawals.ts"
import { assertRejected, errorCode, TxState } from "../support/Fixtures.ts"

const keys = {
  scanner: "scanner-" + "0a1b2c3d4e5f60718293a4b5c6d7e8f9",
  signer: "signer-" + "f9e8d7c6b5a4938271605f4e3d2c1b0a",
  invest: "invest-" + "00112233445566778899aabbccddeeff"
}
const { service, client, terminals, queue, list, report, txOf, assertBuckets, party } = withdrawFile({
  env: { SERVICE_KEYS: `{key},scanner:${keys.scanner},signer:${keys.signer},invest:${keys.invest}` }
})

const hot = "0x71C7656EC7ab88b098defB751B7401B5f6d8976F"

/** A USDT terminal of its own (Ethereum ERC20, Withdraw, networkFee 1, 4 confirmations), its hot address `hot`. */
const usdtTerminal = (overrides: Record<string, unknown> = {}) =>
  addCryptoTerminal(client, {
    currencyId: "USDT",
    decimals: 6,
    flags: 2,
    networkFee: "1",
    confirmations: 4,
    defaultHotAddress: hot,
    ...overrides
  })

const read = (tokenNetwork: string, bearer: string) =>
  client.call("GET", `/private/v1/scanner_terminal?tokenNetwork=${tokenNetwork}`, { bearer })

/** A chain per terminal: each push extends it by one block `<label><height>`. */
const chains = new Map<string, number>()
const push = (tokenNetwork: string, items: ReadonlyArray<ItemIn> = []) => {
  const height = (chains.get(tokenNetwork) ?? 0) + 1
  chains.set(tokenNetwork, height)
  return pushOk(client, tokenNetwork, { height, hash: `s${height}`, parentHash: `s${height - 1}`, items })
}

/** A withdrawal of `amount` USDT on `tokenNetwork` to `to`, handed off and reported broadcast with `txHash`. */
const broadcast = async (
  who: Awaited<ReturnType<typeof party>>,
  tokenNetwork: string,
  amount: number,
  txHash: string,
  to = ethAddress
) => {
  const one = await queue(who, { tokenNetwork, amount, address: to })
  const listed = await list({ tokenNetwork, cursor: "0", limit: 1000 })
  assert.include(
    (listed.body.result as Array<any>).map((i) => i.txId),
    one.txId
  )
  const sent = await report({ txId: one.txId, result: "broadcast", txHash })
  assert.strictEqual(sent.status, 200, JSON.stringify(sent.body))
  return one
}

const out = (txHash: string, amount: string, to = ethAddress, index = 0): ItemIn => ({
  txHash,
  index,
  direction: "out",
  to,
  amount,
  txId: null
})

const stageOf = async (who: Awaited<ReturnType<typeof party>>, txId: string) => {
  const reply = await client.call("POST", "/core/v1/address_tx_info", { sid: who.sid, body: [txId] })
  assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
  return (reply.body.result as Array<any>)[0].stage as string
}

describe("scanner_terminal", () => {
  it("answers the terminal's settings and its tip: null before the first push, then the last block", async () => {
    const t = await usdtTerminal()
    const expected = {
      tokenNetwork: t.id,
      typeNetwork: 2,
      typeContract: 1,
      currency: "USDT",
      decimals: 6,
      addressContract: t.addressContract,
      confirmations: 4,
      defaultHotAddress: hot
    }
    const first = await read(t.id, keys.scanner)
    assert.strictEqual(first.status, 200, JSON.stringify(first.body))
    assert.deepStrictEqual(first.body.result, { ...expected, tip: null })
    await push(t.id)
    await push(t.id)
    for (const key of [keys.scanner, keys.signer, service().key]) {
      const reply = await read(t.id, key)
      assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
      assert.deepStrictEqual(reply.body.result, { ...expected, tip: { height: 2, hash: "s2" } })
    }
    // A reorg's block is the tip after it.
    const fork = await pushBlock(client, t.id, { height: 2, hash: "r2", parentHash: "s1" })
    assert.strictEqual(fork.status, 200, JSON.stringify(fork.body))
    assert.deepStrictEqual((await read(t.id, keys.signer)).body.result.tip, { height: 2, hash: "r2" })
  })

  it("unknown 404 10040, not crypto 400 10200; an invest key 403 10405, a wallet session 401", async () => {
    assertRejected(await read("999999", keys.scanner), 404, errorCode.TerminalNotFound, "unknown", "tokenNetwork")
    assertRejected(await read(terminals.card, keys.signer), 400, errorCode.NotACryptoTerminal, "card", "tokenNetwork")
    assertRejected(await read(terminals.usdt, keys.invest), 403, errorCode.KeyScope, "invest key")
    const who = await party()
    const session = await client.call("GET", `/private/v1/scanner_terminal?tokenNetwork=${terminals.usdt}`, {
      sid: who.sid
    })
    assert.strictEqual(session.status, 401, JSON.stringify(session.body))
    assert.strictEqual(session.body.error?.code, errorCode.Unauthorized)
  })
})

describe("an out item without a txId binds by its txHash", () => {
  it("to and amount matching: bound, final after the confirmations, settled as with the txId", async () => {
    const t = await usdtTerminal()
    const who = await party()
    const one = await broadcast(who, t.id, 10, "hashA")
    const pushed = await push(t.id, [out("hashA", "10")])
    assert.strictEqual(pushed.items[0].txId, one.txId)
    assert.strictEqual(await stageOf(who, one.txId), "OnChain")
    for (let i = 0; i < 3; i++) await push(t.id)
    assert.strictEqual((await txOf(who, one.txId)).txState, TxState.Finished)
    await assertBuckets(who, 100 - 10 - usdtFee(10), 0, "USDT", "settled once")
    // The signer may no longer report it.
    assertRejected(await report({ txId: one.txId, result: "failed" }), 400, errorCode.SendReportRefused, "bound")
  })

  it("a mismatched amount or `to` binds nothing; the matching item binds later; never two items to one", async () => {
    const t = await usdtTerminal()
    const who = await party()
    const one = await broadcast(who, t.id, 7, "hashB")
    const reserved = { free: 100 - 7 - usdtFee(7), lockOut: 7 + usdtFee(7) }
    const wrong = await push(t.id, [out("hashB", "7.000001"), out("hashB", "7", otherEthAddress, 1)])
    assert.deepStrictEqual(
      wrong.items.map((i) => i.txId),
      [null, null]
    )
    assert.strictEqual(await stageOf(who, one.txId), "Broadcast")
    // Another terminal's block with the same hash, `to` and amount binds nothing either.
    const other = await usdtTerminal()
    const elsewhere = await push(other.id, [out("hashB", "7", ethAddress, 2)])
    assert.strictEqual(elsewhere.items[0].txId, null)
    await assertBuckets(who, reserved.free, reserved.lockOut, "USDT", "nothing moved")
    // Two items that both match: the first binds, the second stays unbound.
    const twice = await push(t.id, [out("hashB", "7", ethAddress, 3), out("hashB", "7", ethAddress, 4)])
    assert.deepStrictEqual(
      twice.items.map((i) => i.txId),
      [one.txId, null]
    )
    for (let i = 0; i < 3; i++) await push(t.id)
    assert.strictEqual((await txOf(who, one.txId)).txState, TxState.Finished)
    await assertBuckets(who, reserved.free, 0, "USDT", "settled once")
  })

  it("two withdrawals reported with one txHash bind one item each", async () => {
    const t = await usdtTerminal()
    const who = await party()
    const a = await broadcast(who, t.id, 2, "hashC")
    const b = await broadcast(who, t.id, 2, "hashC")
    const pushed = await push(t.id, [out("hashC", "2", ethAddress, 0), out("hashC", "2", ethAddress, 1)])
    assert.sameMembers(
      pushed.items.map((i) => i.txId),
      [a.txId, b.txId]
    )
    for (let i = 0; i < 3; i++) await push(t.id)
    await assertBuckets(who, 100 - 2 * (2 + usdtFee(2)), 0, "USDT", "both settled")
  })

  it("a reorg that mines it again (another index) binds it again; the money leaves once", async () => {
    const t = await usdtTerminal()
    const who = await party()
    const one = await broadcast(who, t.id, 5, "hashD")
    await push(t.id) // s1
    assert.strictEqual((await push(t.id, [out("hashD", "5", ethAddress, 3)])).items[0].txId, one.txId) // s2
    const fork = await pushBlock(client, t.id, {
      height: 2,
      hash: "d2",
      parentHash: "s1",
      items: [out("hashD", "5", ethAddress, 9)]
    })
    assert.strictEqual(fork.status, 200, JSON.stringify(fork.body))
    assert.deepStrictEqual(fork.body.result.orphaned, [2])
    assert.strictEqual(fork.body.result.items[0].txId, one.txId)
    for (let h = 3; h <= 5; h++)
      await pushOk(client, t.id, { height: h, hash: `d${h}`, parentHash: h === 3 ? "d2" : `d${h - 1}` })
    assert.strictEqual((await txOf(who, one.txId)).txState, TxState.Finished)
    await assertBuckets(who, 100 - 5 - usdtFee(5), 0, "USDT", "settled once")
  })
})

describe("a withdrawal without a client asset source is sent from the hot address", () => {
  it("its queue item names the terminal's defaultHotAddress, index null; none set: null", async () => {
    const t = await usdtTerminal()
    const who = await party()
    const one = await queue(who, { tokenNetwork: t.id, amount: 3 })
    const listed = await client.call("GET", `/private/v1/list_txs_to_send?tokenNetwork=${t.id}`, {
      bearer: keys.signer
    })
    assert.strictEqual(listed.status, 200, JSON.stringify(listed.body))
    const item = (listed.body.result as Array<any>).find((i) => i.txId === one.txId)
    assert.deepInclude(item, { sourceAddress: hot, sourceDerivationIndex: null, toAddress: ethAddress })
    const bare = await usdtTerminal({ defaultHotAddress: null })
    const two = await queue(who, { tokenNetwork: bare.id, amount: 3 })
    const plain = await list({ tokenNetwork: bare.id })
    const row = (plain.body.result as Array<any>).find((i) => i.txId === two.txId)
    assert.deepInclude(row, { sourceAddress: null, sourceDerivationIndex: null })
  })
})
