/**
 * C15 "Partner info and refunds", the reads, over HTTP against the real service, on crypto
 * transactions planted by SQL (test/support/CryptoRows.ts): address_tx_info (the caller's Incomes,
 * Outcomes and Refunds with a terminal, in request order, every field; 10070 past 100 ids) and
 * list_txs_awaiting_partner_info (active Incomes on RequirePartnerInfo terminals without partner
 * info or a refund under way, oldest first; limit 1..100).
 */
import { assert, beforeAll, describe, it } from "@effect/vitest"
import { assertRejected, errorCode } from "../support/Fixtures.ts"
import { cryptoServiceForFile, cryptoWorld, worldTerminals } from "../support/CryptoRows.ts"

const { client, plant } = cryptoServiceForFile()

let holder: { id: string; sid: string }
let other: { id: string; sid: string }
let stranger: { id: string; sid: string }
let fundTx: string
let world: ReturnType<typeof cryptoWorld>

const info = (sid: string, ids: ReadonlyArray<unknown>) =>
  client.call("POST", "/core/v1/address_tx_info", { sid, body: ids })

const awaiting = (sid: string, query = "") =>
  client.call("GET", `/core/v1/wallet/list_txs_awaiting_partner_info${query}`, { sid })

beforeAll(async () => {
  holder = await client.walletWithSession("820001")
  other = await client.walletWithSession("820002")
  stranger = await client.walletWithSession("820003")
  fundTx = await client.fund(holder.id, "USDT", "3")
  world = cryptoWorld(holder.id, other.id)
  await plant(world.statements)
}, 240_000)

describe("address_tx_info", () => {
  it("answers every field of an Income: decimals in the currency's units, confirmations from the tip", async () => {
    const { credited } = world.txs
    const reply = await info(holder.sid, [credited.id])
    assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
    assert.deepStrictEqual(reply.body.result, [
      {
        txId: credited.id,
        typeTx: 1,
        txState: 8,
        state: "Finished",
        stage: "Credited",
        tokenNetwork: worldTerminals.erc20.id,
        typeNetwork: 2,
        currency: "USDT",
        amount: "5",
        fee: "0.1",
        networkFee: "0",
        txHash: "aa01",
        index: 0,
        fromAddress: "0x00000000000000000000000000000000000000f1",
        toAddress: "0x00000000000000000000000000000000000000a1",
        memo: null,
        // The ERC20 terminal's tip is 105: blocks 100..105.
        blockHeight: 100,
        blockHash: "h100",
        confirmations: 6,
        requiredConfirmations: 6,
        requirePartnerInfo: false,
        partnerInfo: null,
        description: null,
        orphaned: false,
        sourceAddress: null,
        refundTxId: null,
        incomeTxId: null
      }
    ])
  })

  it("a queued withdrawal never seen on chain: on-chain fields and confirmations null, BTC to 8 decimals", async () => {
    const { withdrawal } = world.txs
    const [row] = (await info(holder.sid, [withdrawal.id])).body.result
    assert.include(row, {
      txId: withdrawal.id,
      typeTx: 2,
      txState: 3,
      state: "Processing",
      stage: "Queued",
      tokenNetwork: worldTerminals.btc.id,
      typeNetwork: 1,
      currency: "BTC",
      amount: "0.00001234",
      fee: "0.000015",
      networkFee: "0.000005",
      requiredConfirmations: 2,
      toAddress: "bc1qplantedtarget",
      sourceAddress: "bc1qplantedsource"
    })
    for (const field of ["txHash", "index", "fromAddress", "blockHeight", "blockHash", "memo", "confirmations"])
      assert.isNull(row[field], field)
  })

  it("refund links both ways, partner info, the RequirePartnerInfo flag, an orphaned Finished Income", async () => {
    const { refunding, refund, sealed, orphaned, awaiting: held } = world.txs
    const reply = await info(holder.sid, [refunding.id, refund.id, sealed.id, orphaned.id, held.id])
    const [income, out, seal, orphan, hold] = reply.body.result
    assert.include(income, { stage: "Refunding", refundTxId: refund.id, incomeTxId: null, requirePartnerInfo: true })
    assert.include(out, {
      typeTx: 19,
      stage: "Queued",
      amount: "2",
      fee: "0.5",
      networkFee: "0.5",
      incomeTxId: refunding.id,
      refundTxId: null,
      toAddress: "TSenderAddress",
      confirmations: null
    })
    assert.include(seal, { partnerInfo: "Acme Ltd", description: "invoice 7", confirmations: 2 })
    // Orphaned: its block left the chain, so it has no confirmations, whatever its old height.
    assert.include(orphan, { orphaned: true, state: "Finished", blockHeight: 90, confirmations: 0 })
    assert.include(hold, {
      stage: "AwaitingPartnerInfo",
      txState: 3,
      state: "Processing",
      confirmations: 11,
      requiredConfirmations: 20
    })
  })

  it("in request order; another wallet's, unattributed, non-crypto and unknown ids are left out; repeats answered once", async () => {
    const { credited, withdrawal, othersIncome, unattributed, canceled } = world.txs
    const ids = [
      withdrawal.id,
      "123",
      othersIncome.id,
      credited.id,
      unattributed.id,
      fundTx,
      withdrawal.id,
      canceled.id
    ]
    const reply = await info(holder.sid, ids)
    assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
    assert.deepStrictEqual(
      (reply.body.result as Array<any>).map((row) => row.txId),
      [withdrawal.id, credited.id, canceled.id]
    )
    const theirs = await info(other.sid, [credited.id, othersIncome.id])
    assert.deepStrictEqual(
      (theirs.body.result as Array<any>).map((row) => row.txId),
      [othersIncome.id]
    )
    assert.deepStrictEqual((await info(stranger.sid, ids)).body.result, [])
    assert.deepStrictEqual((await info(holder.sid, [])).body.result, [])
    // Ids may be sent as JSON numbers too (below 2^53).
    assert.strictEqual((await info(holder.sid, [123])).status, 200)
  })

  it("101 ids are 10070; malformed bodies 10001; no session 401", async () => {
    const many = Array.from({ length: 101 }, (_, i) => String(i + 1))
    assertRejected(await info(holder.sid, many), 400, errorCode.TooManyItems, "101 ids")
    assert.strictEqual((await info(holder.sid, many.slice(0, 100))).status, 200)
    assertRejected(await info(holder.sid, ["x"]), 400, errorCode.InvalidRequest, "not an id", "body[0]")
    assertRejected(await info(holder.sid, [1.5]), 400, errorCode.InvalidRequest, "a fraction", "body[0]")
    assertRejected(
      await client.call("POST", "/core/v1/address_tx_info", { sid: holder.sid, body: { txId: "1" } }),
      400,
      errorCode.InvalidRequest,
      "an object"
    )
    assert.strictEqual((await client.call("POST", "/core/v1/address_tx_info", { body: [] })).status, 401)
  })
})

describe("list_txs_awaiting_partner_info", () => {
  it("the wallet's active held Incomes, oldest first, as history rows with the chain figures", async () => {
    const { awaiting: held, confirming } = world.txs
    const reply = await awaiting(holder.sid)
    assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
    const rows = reply.body.result as Array<any>
    // Not: sealed (partner info given), refunding, cancelled, on a terminal without the flag, others'.
    assert.deepStrictEqual(
      rows.map((row) => row.id),
      [held.id, confirming.id]
    )
    const [first, second] = rows
    assert.include(first, {
      id: held.id,
      typeTx: 1,
      txState: 3,
      state: "Processing",
      walletFrom: "-1",
      walletTo: holder.id,
      currency: "USDT",
      amount: 2.5,
      fee: 0,
      tag: null,
      tokenNetwork: worldTerminals.trc20.id,
      txHash: "bb02",
      confirmations: 11,
      requiredConfirmations: 20
    })
    assert.match(first.idUpdate, /^[0-9]+$/)
    assert.isString(first.dateTxUTC)
    assert.include(second, { txHash: "cc03", confirmations: 3, txState: 1 })
    // The same rows as the history shows them, plus the three chain fields.
    const history = await client.call("GET", `/core/v1/wallet/get_tx_info?id=${held.id}`, { sid: holder.sid })
    const { txHash: _h, confirmations: _c, requiredConfirmations: _r, ...asHistory } = first
    assert.deepStrictEqual(asHistory, history.body.result)

    const theirs = (await awaiting(other.sid)).body.result as Array<any>
    assert.deepStrictEqual(
      theirs.map((row) => row.id),
      [world.txs.othersIncome.id]
    )
    assert.deepStrictEqual((await awaiting(stranger.sid)).body.result, [])
  })

  it("limit 1..100 (default 100): limit=1 keeps the oldest; others are 10001 naming limit", async () => {
    const one = await awaiting(holder.sid, "?limit=1")
    assert.deepStrictEqual(
      (one.body.result as Array<any>).map((row) => row.id),
      [world.txs.awaiting.id]
    )
    assert.strictEqual((await awaiting(holder.sid, "?limit=100")).body.result.length, 2)
    for (const bad of ["0", "101", "-1", "1.5", "x", ""]) {
      assertRejected(
        await awaiting(holder.sid, `?limit=${bad}`),
        400,
        errorCode.InvalidRequest,
        `limit=${bad}`,
        "query.limit"
      )
    }
    assert.strictEqual((await awaiting("")).status, 401)
  })
})
