/**
 * create_withdraw's source rules over real HTTP (CONTRACT C15 "Withdrawals": requireClientAssetSource,
 * sourceAddress): the source must be the wallet's own derived address on the network (compared
 * case-insensitively on EVM) and hold at least the amount on that terminal (Σ in − Σ out of its chain
 * items, orphaned excluded), else 10212; the pinned source and its derivation index reach the signer.
 * Addresses come from create_address (XPUB_* of the BIP-39 test mnemonic); chain items are planted
 * with SQL on the service's database (the chain actor that writes them is not on this branch).
 */
import { afterAll, afterEach, assert, beforeAll, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import type { SqlClient } from "effect/sql"
import { makeClient } from "../support/Client.ts"
import { type FileTerminals, setUpWithdrawals, withdrawHelpers } from "../support/CryptoWithdrawals.ts"
import { cryptoHelpers, onServiceDatabase, xpubEnv } from "../support/CryptoAddresses.ts"
import { assertRejected } from "../support/Fixtures.ts"
import { type RunningService, startService } from "../support/Service.ts"

let running: RunningService | undefined
const client = makeClient(() => running!)
const terminals = {} as FileTerminals
const { createAddress, watchAll } = cryptoHelpers(client)
const { withdraw, queue, list, report, assertBuckets, party } = withdrawHelpers(client, terminals)
beforeAll(async () => {
  running = await startService({ env: xpubEnv })
  Object.assign(terminals, await setUpWithdrawals(client))
}, 120_000)
afterEach(() => client.assertLedgerSound())
afterAll(async () => {
  await running?.stop()
})

/** An item of `amount` (minor units) into (direction 0) or out of (1) an address on a terminal. */
const item = (terminal: string, n: number, direction: 0 | 1, address: string, amount: bigint, orphaned = false) => {
  const key = address.toLowerCase()
  const dead = "0x000000000000000000000000000000000000dead"
  const [from, fromKey, to, toKey] = direction === 0 ? [null, null, address, key] : [address, key, dead, dead]
  const text = (v: string | null) => (v === null ? "NULL" : `'${v}'`)
  return `INSERT INTO chain_items (terminal_id, tx_hash, idx, direction, from_address, from_key, to_address, to_key, memo,
      amount, block_height, block_hash, orphaned, tx_id, tick)
    VALUES (${terminal}, 'w${n}', 0, ${direction}, ${text(from)}, ${text(fromKey)}, ${text(to)}, ${text(toKey)}, NULL,
      ${amount}, ${100 + n}, 'b${n}', ${orphaned}, NULL, ${n})`
}

describe("create_withdraw: source rules (10212)", () => {
  it("the wallet's own address holding at least A on the terminal is pinned, with its derivation index", async () => {
    const who = await party()
    const other = await party()
    const a = (await createAddress(who.sid, terminals.eth)).body.result.address as string
    const b = (await createAddress(who.sid, terminals.eth, true)).body.result.address as string
    const foreign = (await createAddress(other.sid, terminals.eth)).body.result.address as string
    assert.notStrictEqual(a, b)

    // No chain items yet: every source holds 0.
    assertRejected(await withdraw(who.sid, { sourceAddress: a }), 400, 10212, "a holds 0", "sourceAddress")
    assertRejected(await withdraw(who.sid, { requireClientAssetSource: true }), 400, 10212, "newest holds 0")
    assertRejected(await withdraw(who.sid, { sourceAddress: foreign }), 400, 10212, "another wallet's")

    const planted = await onServiceDatabase(running!, xpubEnv, (sql: SqlClient.SqlClient) =>
      Effect.gen(function* () {
        for (const row of [
          item(terminals.usdt, 1, 0, a, 15_000_000n),
          item(terminals.usdt, 2, 0, b, 20_000_000n),
          item(terminals.usdt, 3, 1, b, 12_000_000n),
          item(terminals.usdt, 4, 0, b, 50_000_000n, true),
          item(terminals.usdt, 5, 0, foreign, 90_000_000n)
        ])
          yield* sql.unsafe(row)
      })
    )
    running = planted.running

    // a holds 15 on the USDT terminal, named in lower case (EVM keys compare case-insensitively).
    const pinned = await queue(who, { sourceAddress: a.toLowerCase(), amount: 10 })
    // The newest (b) holds 20 − 12 = 8 (the orphaned 50 does not count): 10 is refused, 8 is taken.
    assertRejected(await withdraw(who.sid, { requireClientAssetSource: true, amount: 10 }), 400, 10212, "b holds 8")
    const newest = await queue(who, { requireClientAssetSource: true, amount: 8 })
    // Per terminal: on the ETH terminal a holds nothing.
    assertRejected(
      await withdraw(who.sid, { tokenNetwork: terminals.eth, sourceAddress: a, amount: "0.1" }),
      400,
      10212,
      "ETH terminal"
    )
    // Another wallet's address is never a source, whatever it holds.
    assertRejected(await withdraw(who.sid, { sourceAddress: foreign, amount: 1 }), 400, 10212, "foreign")

    const index = new Map((await watchAll(terminals.eth)).map((w) => [w.address, w.derivationIndex]))
    const items = (await list({ tokenNetwork: terminals.usdt, limit: 1000 })).body.result as Array<any>
    const ofPinned = items.find((i) => i.txId === pinned.txId)
    const ofNewest = items.find((i) => i.txId === newest.txId)
    assert.deepStrictEqual([ofPinned.sourceAddress, ofPinned.sourceDerivationIndex], [a, index.get(a)])
    assert.deepStrictEqual([ofNewest.sourceAddress, ofNewest.sourceDerivationIndex], [b, index.get(b)])
    assert.isNumber(index.get(a))

    for (const id of [pinned.txId, newest.txId])
      assert.strictEqual((await report({ txId: id, result: "failed" })).status, 200)
    await assertBuckets(who, 100, 0)
  }, 120_000)
})
