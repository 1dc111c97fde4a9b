/**
 * Scanner pushes and deposits over HTTP (C15 "Scanner pushes", "Deposits"): the chain rules with
 * their refusals, unattributed deposits held by −4 and linked later, reorgs cancelling what was not
 * final, a deep reorg that reverses nothing, and the ledger audit after every test.
 */
import { assert, describe, it } from "@effect/vitest"
import { addCryptoTerminal, emptyBlocks, pushBlock, pushOk, someEvmAddress } from "../support/Chain.ts"
import { assertRejected, errorCode, serviceForFile, TxState } from "../support/Fixtures.ts"

const { client } = serviceForFile({
  setup: (c) => c.setTariffs([{ txClass: "Deposit", currency: "ETH", feeFixed: "0.001", feePercent: "0" }])
})

const journalRow = async (txId: string) => {
  const reply = await client.priv("GET", `transact_get?timetick=${txId}`)
  assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
  return reply.body.result as { txState: number; walletTo: string; amount: number; fee: number }
}

describe("tx_list_push: the chain rules", () => {
  it("appends, replays, and refuses gaps, unconnected parents and blocks below the window", async () => {
    const t = await addCryptoTerminal(client)
    const first = await pushOk(client, t.id, { height: 500, hash: "a500", parentHash: "a499" })
    assert.deepStrictEqual([first.tipHeight, first.replayed, first.orphaned], [500, false, []])
    await pushOk(client, t.id, { height: 501, hash: "a501", parentHash: "a500" })
    const replay = await pushOk(client, t.id, { height: 500, hash: "a500", parentHash: "a499" })
    assert.deepStrictEqual([replay.tipHeight, replay.replayed], [501, true])
    assertRejected(
      await pushBlock(client, t.id, { height: 503, hash: "a503", parentHash: "a502" }),
      400,
      errorCode.BlockHeightGap,
      "gap",
      "height"
    )
    assertRejected(
      await pushBlock(client, t.id, { height: 502, hash: "a502", parentHash: "zz" }),
      400,
      errorCode.BlockNotConnected,
      "parent",
      "parentHash"
    )
    assertRejected(
      await pushBlock(client, t.id, { height: 501, hash: "x501", parentHash: "zz" }),
      400,
      errorCode.BlockNotConnected,
      "fork parent",
      "parentHash"
    )
    assertRejected(
      await pushBlock(client, t.id, { height: 499, hash: "a499", parentHash: "a498" }),
      400,
      errorCode.BlockTooOld,
      "below",
      "height"
    )
    assertRejected(
      await pushBlock(client, t.id, { height: 500, hash: "x500", parentHash: "a499" }),
      400,
      errorCode.BlockTooOld,
      "first block",
      "height"
    )
  })

  it("validates the whole block before anything moves, naming the field", async () => {
    const t = await addCryptoTerminal(client, { typeNetwork: 4, currencyId: "USDT", decimals: 6, typeContract: 3 })
    const to = someEvmAddress()
    const block = (items: Array<Record<string, unknown>>) => ({
      height: 1,
      hash: "v1",
      parentHash: "v0",
      items: items as any
    })
    assertRejected(
      await pushBlock(client, "999999", block([])),
      404,
      errorCode.TerminalNotFound,
      "terminal",
      "tokenNetwork"
    )
    assertRejected(
      await pushBlock(client, t.id, block([{ txHash: "h1", to, amount: "1.0000001" }])),
      400,
      errorCode.TooManyDecimals,
      "decimals",
      "items[0].amount"
    )
    assertRejected(
      await pushBlock(client, t.id, block([{ txHash: "h1", to: "0xnothex", amount: "1" }])),
      400,
      errorCode.InvalidAddress,
      "to",
      "items[0].to"
    )
    assertRejected(
      await pushBlock(client, t.id, block([{ txHash: "h1", to, from: "T-not", amount: "1" }])),
      400,
      errorCode.InvalidAddress,
      "from",
      "items[0].from"
    )
    assertRejected(
      await pushBlock(client, t.id, block([{ txHash: "h1", to, amount: "0" }])),
      400,
      errorCode.InvalidRequest,
      "zero",
      "items[0].amount"
    )
    assertRejected(
      await pushBlock(
        client,
        t.id,
        block([
          { txHash: "h1", to, amount: "1" },
          { txHash: "h1", to, amount: "2" }
        ])
      ),
      400,
      errorCode.DuplicateItem,
      "duplicate",
      "items[1].index"
    )
    const many = Array.from({ length: 1001 }, (_, i) => ({ txHash: `m${i}`, to, amount: "1" }))
    assertRejected(await pushBlock(client, t.id, block(many)), 400, errorCode.TooManyItems, "1001 items")
    const bad = await client.priv("POST", "tx_list_push", {
      tokenNetwork: t.id,
      height: 1,
      hash: "bad-hash!",
      parentHash: "v0",
      items: []
    })
    assertRejected(bad, 400, errorCode.InvalidRequest, "hash")
    // Nothing of the refused blocks moved: the chain has not started.
    const started = await pushOk(client, t.id, { height: 7, hash: "s7", parentHash: "s6" })
    assert.strictEqual(started.tipHeight, 7)
  })

  it("refuses terminals off the crypto networks (10200)", async () => {
    const t = await addCryptoTerminal(client, { typeNetwork: 77, currencyId: "EUR", decimals: 2 })
    assertRejected(
      await pushBlock(client, t.id, { height: 1, hash: "n1", parentHash: "n0" }),
      400,
      errorCode.NotACryptoTerminal
    )
  })
})

describe("deposits: unattributed, linked, reorged", () => {
  it("an unattributed deposit is held by −4 until linked, then credited at once with the Deposit tariff", async () => {
    const t = await addCryptoTerminal(client, { confirmations: 2 })
    const payer = await client.party()
    const pushed = await pushOk(client, t.id, {
      height: 10,
      hash: "u10",
      parentHash: "u9",
      items: [{ txHash: "dep1", to: someEvmAddress(), from: someEvmAddress(), amount: "0.5" }]
    })
    const [item] = pushed.items
    assert.strictEqual(item.walletId, "-4")
    assert.strictEqual((await journalRow(item.txId!)).txState, TxState.Created)
    await pushOk(client, t.id, { height: 11, hash: "u11", parentHash: "u10" })
    assert.strictEqual((await journalRow(item.txId!)).txState, TxState.Created | TxState.Confirmed)

    const linked = await client.priv("POST", "link_address_transactions", [{ txId: item.txId, walletId: payer.id }])
    assert.strictEqual(linked.status, 200, JSON.stringify(linked.body))
    assert.deepStrictEqual(linked.body.result[0], { txId: item.txId, walletId: payer.id, replayed: false, error: null })
    const row = await journalRow(item.txId!)
    assert.deepStrictEqual([row.txState, row.walletTo, row.fee], [TxState.Finished, payer.id, 0.001])
    const buckets = await client.bucketsOf(payer, "ETH")
    assert.deepStrictEqual([buckets.free, buckets.lockIn], [0.499, 0])

    const again = await client.priv("POST", "link_address_transactions", [
      { txId: item.txId, walletId: payer.id },
      { txId: "123", walletId: payer.id },
      { txId: item.txId, walletId: "99999999" }
    ])
    assert.strictEqual(again.body.result[0].replayed, true)
    assert.strictEqual(again.body.result[1].error.code, errorCode.TransactionNotFound)
    assert.strictEqual(again.body.result[2].error.code, errorCode.WalletNotFound)
    const other = await client.party()
    const taken = await client.priv("POST", "link_address_transactions", [{ txId: item.txId, walletId: other.id }])
    assert.strictEqual(taken.body.result[0].error.code, errorCode.NotUnattributed)
    // Pushing the same key again in a later block creates nothing.
    const repeat = await pushOk(client, t.id, {
      height: 12,
      hash: "u12",
      parentHash: "u11",
      items: [{ txHash: "dep1", to: someEvmAddress(), amount: "0.5" }]
    })
    assert.strictEqual(repeat.items[0].txId, item.txId)
    assert.deepStrictEqual(await client.bucketsOf(payer, "ETH"), buckets)
  })

  it("a reorg cancels what was not final; the key seen again on the new branch is a new Income", async () => {
    const t = await addCryptoTerminal(client, { confirmations: 3 })
    await pushOk(client, t.id, { height: 1, hash: "r1", parentHash: "r0" })
    const to = someEvmAddress()
    const first = await pushOk(client, t.id, {
      height: 2,
      hash: "r2",
      parentHash: "r1",
      items: [{ txHash: "k1", to, amount: "1" }]
    })
    await pushOk(client, t.id, { height: 3, hash: "r3", parentHash: "r2" })
    const fork = await pushOk(client, t.id, { height: 2, hash: "f2", parentHash: "r1" })
    assert.deepStrictEqual(fork.orphaned, [2, 3])
    assert.strictEqual((await journalRow(first.items[0].txId!)).txState, TxState.Canceled)
    const again = await pushOk(client, t.id, {
      height: 3,
      hash: "f3",
      parentHash: "f2",
      items: [{ txHash: "k1", to, amount: "1" }]
    })
    assert.notStrictEqual(again.items[0].txId, first.items[0].txId)
    assert.strictEqual((await journalRow(again.items[0].txId!)).txState, TxState.Created)
  })

  it("a deep reorg reverses nothing Finished: it is flagged and one DeepReorg event records it", async () => {
    const t = await addCryptoTerminal(client, { confirmations: 2 })
    const payer = await client.party()
    await pushOk(client, t.id, { height: 1, hash: "d1", parentHash: "d0" })
    const dep = await pushOk(client, t.id, {
      height: 2,
      hash: "d2",
      parentHash: "d1",
      items: [{ txHash: "deep1", to: someEvmAddress(), amount: "2" }]
    })
    const txId = dep.items[0].txId!
    await client.priv("POST", "link_address_transactions", [{ txId, walletId: payer.id }])
    await emptyBlocks(client, t.id, "d", 3, 4)
    assert.strictEqual((await journalRow(txId)).txState, TxState.Finished)
    const before = await client.bucketsOf(payer, "ETH")
    const deep = await pushOk(client, t.id, { height: 2, hash: "e2", parentHash: "d1" })
    assert.deepStrictEqual(deep.orphaned, [2, 3, 4])
    assert.strictEqual((await journalRow(txId)).txState, TxState.Finished)
    assert.deepStrictEqual(await client.bucketsOf(payer, "ETH"), before)
    const events = (await client.allEvents()).filter((e) => e.kind === "DeepReorg")
    const mine = events.find((e) => (e.payload as any).tokenNetwork === t.id)
    assert.deepStrictEqual(mine?.payload, {
      tokenNetwork: t.id,
      forkHeight: "2",
      orphanedHeights: ["2", "3", "4"],
      finishedTxIds: [txId]
    })
    // Seen again on the new branch: re-attached, never credited twice.
    const back = await pushOk(client, t.id, {
      height: 3,
      hash: "e3",
      parentHash: "e2",
      items: [{ txHash: "deep1", to: someEvmAddress(), amount: "2" }]
    })
    assert.strictEqual(back.items[0].txId, txId)
    assert.deepStrictEqual(await client.bucketsOf(payer, "ETH"), before)
  })
})
