/**
 * C15 "Journal and monitoring", the journal half, over HTTP against the real service: rows of
 * transactions on a crypto terminal (planted by SQL while the writers are built elsewhere: see
 * test/support/CryptoRows.ts) carry `tokenNetwork` in history, get_tx_info, get_tx_list_info,
 * transact_get and list_last_updated_txs, and every other row reads exactly as before; the
 * journal's `scope` and `networks` / `tokenNetworks` filters select by the crypto record.
 */
import { assert, beforeAll, describe, it } from "@effect/vitest"
import { assertRejected, errorCode } from "../support/Fixtures.ts"
import { cryptoServiceForFile, cryptoWorld, worldTerminals } from "../support/CryptoRows.ts"

const { client, plant } = cryptoServiceForFile()

/** The keys of a row of a transaction without a crypto record (SPEC's TxRow, as before C15). */
const plainKeys = [
  "amount",
  "currency",
  "dateTxUTC",
  "fee",
  "id",
  "idUpdate",
  "state",
  "tag",
  "txState",
  "typeTx",
  "walletFrom",
  "walletTo"
]

let holder: { id: string; sid: string }
let other: { id: string; sid: string }
let fundTx: string
let since: string
let world: ReturnType<typeof cryptoWorld>

/** Ids of the planted rows per terminal (every planted row, unattributed and other wallets' included). */
const plantedOn = (terminalIds: ReadonlyArray<string>) =>
  Object.values(world.txs)
    .filter((tx) => terminalIds.includes(tx.terminalId))
    .map((tx) => tx.id)
    .sort()

const journal = async (body: Record<string, unknown>) => {
  const reply = await client.priv("POST", "list_last_updated_txs", { since, limit: 1000, ...body })
  assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
  assert.match(reply.body.cursor ?? "", /^[0-9]+$/)
  return reply.body.result as Array<any>
}
const idsOf = (rows: ReadonlyArray<any>) => rows.map((row) => row.id as string).sort()

beforeAll(async () => {
  since = (await client.priv("POST", "list_last_updated_txs", { since: "0", limit: 1000 })).body.cursor!
  holder = await client.walletWithSession("810001")
  other = await client.walletWithSession("810002")
  fundTx = await client.fund(holder.id, "USDT", "10")
  world = cryptoWorld(holder.id, other.id)
  await plant(world.statements)
}, 240_000)

describe("tokenNetwork on the rows of transactions on a crypto terminal", () => {
  it("the journal: each planted row names its terminal, the client row is unchanged", async () => {
    const rows = await journal({})
    const byId = new Map(rows.map((row) => [row.id, row]))
    for (const tx of Object.values(world.txs)) {
      const row = byId.get(tx.id)
      assert.isDefined(row, tx.id)
      assert.strictEqual(row.tokenNetwork, tx.terminalId, tx.id)
    }
    const fund = byId.get(fundTx)
    assert.deepStrictEqual(Object.keys(fund).sort(), plainKeys)
    // The journal stays in update order, planted rows included.
    const updates = rows.map((row) => BigInt(row.idUpdate))
    assert.deepStrictEqual(
      updates,
      [...updates].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    )
  })

  it("transact_get, get_tx_info, get_tx_list_info and history carry it too", async () => {
    const { credited, withdrawal, refund } = world.txs
    const got = (await client.priv("GET", `transact_get?timetick=${credited.id}`)).body.result
    assert.strictEqual(got.tokenNetwork, worldTerminals.erc20.id)
    assert.strictEqual(got.amount, 5)
    assert.strictEqual(got.fee, 0.1)
    assert.strictEqual(got.state, "Finished")
    const plain = (await client.priv("GET", `transact_get?timetick=${fundTx}`)).body.result
    assert.deepStrictEqual(Object.keys(plain).sort(), plainKeys)

    const info = await client.call("GET", `/core/v1/wallet/get_tx_info?id=${withdrawal.id}`, { sid: holder.sid })
    assert.strictEqual(info.status, 200, JSON.stringify(info.body))
    assert.strictEqual(info.body.result.tokenNetwork, worldTerminals.btc.id)
    assert.strictEqual(info.body.result.amount, 0.00001234)
    assert.strictEqual(info.body.result.state, "Processing")

    const list = await client.call("POST", "/core/v1/wallet/get_tx_list_info", {
      sid: holder.sid,
      body: [credited.id, refund.id, fundTx]
    })
    assert.strictEqual(list.status, 200, JSON.stringify(list.body))
    const listed = new Map((list.body.result as Array<any>).map((row) => [row.id, row]))
    assert.strictEqual(listed.get(credited.id).tokenNetwork, worldTerminals.erc20.id)
    assert.strictEqual(listed.get(refund.id).tokenNetwork, worldTerminals.trc20.id)
    assert.notProperty(listed.get(fundTx), "tokenNetwork")

    const history = await client.call("GET", "/core/v1/wallet/get_history_transactions?limit=100", { sid: holder.sid })
    assert.strictEqual(history.status, 200, JSON.stringify(history.body))
    const mine = Object.values(world.txs).filter((tx) => tx.walletFrom === holder.id || tx.walletTo === holder.id)
    const rows = new Map((history.body.result as Array<any>).map((row) => [row.id, row]))
    for (const tx of mine) assert.strictEqual(rows.get(tx.id)?.tokenNetwork, tx.terminalId, tx.id)
    assert.notProperty(rows.get(fundTx), "tokenNetwork")
    assert.isFalse(rows.has(world.txs.othersIncome.id), "another wallet's Income is not in the history")
    const byUpdate = await client.call(
      "GET",
      "/core/v1/wallet/get_history_transactions?limit=100&orderByUpdate=true&oldestFirst=true&typeTx=2",
      { sid: holder.sid }
    )
    assert.deepStrictEqual(
      (byUpdate.body.result as Array<any>).map((row) => [row.id, row.tokenNetwork]),
      [[withdrawal.id, worldTerminals.btc.id]]
    )
  })
})

describe("list_last_updated_txs: scope, networks, tokenNetworks", () => {
  it("scope 2 (Address) is exactly the rows with a crypto record, unattributed included; 1 the others; 0 both", async () => {
    const all = await journal({})
    const both = await journal({ scope: 0 })
    const address = await journal({ scope: 2 })
    const client1 = await journal({ scope: 1 })
    const planted = Object.values(world.txs)
      .map((tx) => tx.id)
      .sort()
    assert.deepStrictEqual(idsOf(both), idsOf(all))
    assert.deepStrictEqual(idsOf(address), planted)
    assert.include(idsOf(address), world.txs.unattributed.id)
    assert.isTrue(
      address.every((row) => typeof row.tokenNetwork === "string"),
      "every Address row names its terminal"
    )
    assert.include(idsOf(client1), fundTx)
    assert.isTrue(client1.every((row) => !("tokenNetwork" in row)))
    assert.deepStrictEqual(idsOf([...address, ...client1]), idsOf(all), "scope 1 and 2 partition the journal")
  })

  it("networks and tokenNetworks keep the rows whose terminal matches either list", async () => {
    const { btc, erc20, trc20 } = worldTerminals
    const cases: Array<[string, Record<string, unknown>, ReadonlyArray<string>]> = [
      ["networks Ethereum", { networks: [2] }, plantedOn([erc20.id])],
      ["networks Tron and Bitcoin", { networks: [3, 1] }, plantedOn([trc20.id, btc.id])],
      ["tokenNetworks the BTC terminal", { tokenNetworks: [btc.id] }, plantedOn([btc.id])],
      ["tokenNetworks as a number", { tokenNetworks: [Number(trc20.id)] }, plantedOn([trc20.id])],
      ["either list", { networks: [1], tokenNetworks: [erc20.id] }, plantedOn([btc.id, erc20.id])],
      ["overlapping lists", { networks: [2], tokenNetworks: [erc20.id] }, plantedOn([erc20.id])],
      ["a network without terminals", { networks: [5] }, []],
      ["an unknown terminal", { tokenNetworks: ["424242"] }, []],
      ["a non-crypto network", { networks: [240] }, []],
      ["scope 2 with networks", { scope: 2, networks: [2] }, plantedOn([erc20.id])],
      ["scope 1 with networks: non-crypto rows drop out", { scope: 1, networks: [2] }, []],
      ["scope 0 with tokenNetworks", { scope: 0, tokenNetworks: [trc20.id] }, plantedOn([trc20.id])],
      [
        "empty lists filter nothing",
        { scope: 2, networks: [], tokenNetworks: [] },
        plantedOn([btc.id, erc20.id, trc20.id])
      ]
    ]
    for (const [label, body, expected] of cases) {
      assert.deepStrictEqual(idsOf(await journal(body)), [...expected].sort(), label)
    }
  })

  it("a full page of a filtered journal resumes from its cursor without gaps", async () => {
    const seen: Array<string> = []
    let cursor = since
    for (let pages = 0; pages < 20; pages++) {
      const reply = await client.priv("POST", "list_last_updated_txs", { since: cursor, limit: 2, scope: 2 })
      assert.strictEqual(reply.status, 200)
      seen.push(...(reply.body.result as Array<any>).map((row) => row.id))
      if (reply.body.result.length < 2) break
      cursor = reply.body.cursor!
    }
    assert.deepStrictEqual(
      seen.sort(),
      Object.values(world.txs)
        .map((tx) => tx.id)
        .sort()
    )
  })

  it("bad values are 10001 naming the field", async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ scope: 3 }, "body.scope"],
      [{ scope: -1 }, "body.scope"],
      [{ scope: "2" }, "body.scope"],
      [{ networks: [0] }, "body.networks[0]"],
      [{ networks: [2, 241] }, "body.networks[1]"],
      [{ networks: "2" }, "body.networks"],
      [{ tokenNetworks: ["0"] }, "body.tokenNetworks[0]"],
      [{ tokenNetworks: ["9101", "x"] }, "body.tokenNetworks[1]"],
      [{ tokenNetworks: Array.from({ length: 257 }, () => "1") }, "body.tokenNetworks"]
    ]
    for (const [body, field] of cases) {
      const reply = await client.priv("POST", "list_last_updated_txs", { since, ...body })
      assertRejected(reply, 400, errorCode.InvalidRequest, JSON.stringify(body), field)
    }
  })
})
