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
