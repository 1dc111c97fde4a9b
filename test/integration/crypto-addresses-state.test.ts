/**
 * list_addresses with a terminal and technicalState (CONTRACT C15 "Addresses"; SPEC "Address
 * record"), over HTTP against the real service: chain_items rows are planted with SQL (the chain
 * actor that writes them is another feature), then each derived record's 13 fields are checked:
 * Σ in − Σ out of the address on the terminal and on its native (Base) terminal, orphaned items
 * excluded, the last tick, enum names, native fields null without a Base terminal, memo records
 * and non-crypto terminals. Also sql/AddressRepo.ts's depositAddresses/depositOwnerAmong and technicalAmountOf.
 */
import { afterAll, afterEach, assert, beforeAll, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import type { SqlClient } from "effect/sql"
import { depositAddresses, depositOwnerAmong, technicalAmountOf } from "../../sql/AddressRepo.ts"
import { cryptoHelpers, onServiceDatabase, SOLANA_HOT, xpubEnv } from "../support/CryptoAddresses.ts"
import { makeClient } from "../support/Client.ts"
import { type RunningService, startService } from "../support/Service.ts"

let running: RunningService | undefined
const client = makeClient(() => running!)
const { addNetwork, createAddress, listAddresses } = cryptoHelpers(client)
beforeAll(async () => {
  running = await startService({ env: xpubEnv })
}, 120_000)
afterEach(() => client.assertLedgerSound())
afterAll(async () => {
  await running?.stop()
})

const ETH = 10n ** 18n
const item = (
  terminal: string,
  n: number,
  direction: 0 | 1,
  address: string,
  amount: bigint,
  tick: number,
  options: { orphaned?: boolean; memo?: string; key?: string } = {}
) => {
  const key = options.key ?? address
  const [from, fromKey, to, toKey] =
    direction === 0
      ? [null, null, address, key]
      : [address, key, "0x000000000000000000000000000000000000dEaD", "0x000000000000000000000000000000000000dead"]
  const text = (v: string | null) => (v === null ? "NULL" : `'${v}'`)
  return `INSERT INTO chain_items (terminal_id, tx_hash, idx, direction, from_address, from_key, to_address, to_key, memo, amount,
    block_height, block_hash, orphaned, tx_id, tick)
    VALUES (${terminal}, 'h${n}', 0, ${direction}, ${text(from)}, ${text(fromKey)}, ${text(to)}, ${text(toKey)},
      ${text(options.memo ?? null)}, ${amount}, ${100 + n}, 'b${n}', ${options.orphaned === true}, NULL, ${tick})`
}

const stateKeys = [
  "currency",
  "hotApproved",
  "nativeCurrency",
  "nativeTechnicalAmount",
  "nativeTimetickUpdate",
  "nativeTokenNetwork",
  "nativeTypeContract",
  "sourceTransferSupported",
  "technicalAmount",
  "timetickUpdate",
  "tokenNetwork",
  "typeContract",
  "typeNetwork"
]

describe("technicalState (C15, SPEC Address record)", () => {
  it("Σ in − Σ out per terminal and its native terminal, orphaned excluded; 13 fields; repo lookups", async () => {
    const t = {
      eth: await addNetwork({ typeNetwork: 2, typeContract: 0, currencyId: "ETH", decimals: 18 }),
      usdt: await addNetwork({ typeNetwork: 2, typeContract: 1, currencyId: "USDT", decimals: 6 }),
      btc: await addNetwork({ typeNetwork: 1, typeContract: 0, currencyId: "BTC", decimals: 8 }),
      tron: await addNetwork({ typeNetwork: 3, typeContract: 2, currencyId: "USDT", decimals: 6 }),
      sol: await addNetwork({
        typeNetwork: 5,
        typeContract: 0,
        currencyId: "USDC",
        decimals: 6,
        defaultHotAddress: SOLANA_HOT
      }),
      card: await addNetwork({ typeNetwork: 100, typeContract: 0, currencyId: "EUR", decimals: 2 })
    }
    const w = await client.party()
    const get = async (terminal: string, fresh?: boolean) => (await createAddress(w.sid, terminal, fresh)).body.result
    const a = await get(t.eth)
    const b = await get(t.eth, true)
    const c = await get(t.btc)
    const d = await get(t.tron)
    const e = await get(t.sol)
    const aKey = a.address.toLowerCase()
    assert.notStrictEqual(a.address, aKey, "a checksummed address whose key is its lower case")

    const planted = await onServiceDatabase(running!, xpubEnv, (sql: SqlClient.SqlClient) =>
      Effect.gen(function* () {
        const rows = [
          item(t.eth, 1, 0, a.address, (3n * ETH) / 2n, 100, { key: aKey }),
          item(t.eth, 2, 1, a.address, ETH / 2n, 200, { key: aKey }),
          item(t.eth, 3, 0, a.address, ETH / 4n, 300, { key: aKey }),
          item(t.eth, 4, 0, a.address, 7n * ETH, 900, { key: aKey, orphaned: true }),
          item(t.eth, 5, 1, a.address, 2n * ETH, 950, { key: aKey, orphaned: true }),
          item(t.eth, 6, 0, "0x1111111111111111111111111111111111111111", ETH, 990),
          item(t.usdt, 7, 0, a.address, 12_500_000n, 400, { key: aKey }),
          item(t.usdt, 8, 1, a.address, 2_250_000n, 500, { key: aKey }),
          item(t.btc, 9, 0, c.address, 100_000n, 600),
          item(t.btc, 10, 0, a.address, 5n, 700, { key: aKey }),
          item(t.tron, 11, 0, d.address, 3_000_000n, 800),
          item(t.sol, 12, 0, SOLANA_HOT, 4_000_000n, 850, { memo: e.memo })
        ]
        for (const row of rows) yield* sql.unsafe(row)
        const owner = (typeNetwork: number, terminal: string, key: string, memo: string | null) =>
          Effect.map(depositAddresses(typeNetwork, [key]), (records) => {
            const found = depositOwnerAmong(records, typeNetwork, BigInt(terminal), key, memo)
            return found === undefined ? undefined : { walletId: found.walletId, purpose: found.purpose }
          })
        return {
          ownerA: yield* owner(2, t.eth, aKey, null),
          ownerAOnUsdt: yield* owner(2, t.usdt, aKey, null),
          ownerUnknown: yield* owner(2, t.eth, "0x1111111111111111111111111111111111111111", null),
          ownerC: yield* owner(1, t.btc, c.address, null),
          ownerMemo: yield* owner(5, t.sol, SOLANA_HOT, e.memo),
          ownerWrongMemo: yield* owner(5, t.sol, SOLANA_HOT, "999999999"),
          ownerNoMemo: yield* owner(5, t.sol, SOLANA_HOT, null),
          amountEth: yield* technicalAmountOf(t.eth, aKey),
          amountUsdt: yield* technicalAmountOf(t.usdt, aKey),
          amountNone: yield* technicalAmountOf(t.eth, b.address.toLowerCase())
        }
      })
    )
    running = planted.running
    const lookups = planted.value
    assert.deepStrictEqual(lookups.ownerA, { walletId: BigInt(w.id), purpose: 0 })
    assert.deepStrictEqual(lookups.ownerAOnUsdt, { walletId: BigInt(w.id), purpose: 0 }, "any terminal of the network")
    assert.isUndefined(lookups.ownerUnknown)
    assert.deepStrictEqual(lookups.ownerC, { walletId: BigInt(w.id), purpose: 0 })
    assert.deepStrictEqual(lookups.ownerMemo, { walletId: BigInt(w.id), purpose: 0 })
    assert.isUndefined(lookups.ownerWrongMemo)
    assert.isUndefined(lookups.ownerNoMemo)
    assert.strictEqual(lookups.amountEth, (5n * ETH) / 4n)
    assert.strictEqual(lookups.amountUsdt, 10_250_000n)
    assert.strictEqual(lookups.amountNone, 0n)

    const ethNative = { nativeTokenNetwork: t.eth, nativeTypeContract: "Base", nativeCurrency: "ETH" }
    const list = async (terminal: string) => {
      const reply = await listAddresses(w.sid, terminal, true)
      assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
      return reply.body.result as Array<any>
    }
    const onEth = await list(t.eth)
    assert.deepStrictEqual(
      onEth.map((r) => r.id),
      [a.id, b.id]
    )
    for (const r of onEth) assert.deepStrictEqual(Object.keys(r.technicalState).sort(), stateKeys)
    const common = { hotApproved: false, sourceTransferSupported: true, typeNetwork: "Ethereum" }
    assert.deepStrictEqual(onEth[0].technicalState, {
      ...common,
      ...ethNative,
      tokenNetwork: t.eth,
      typeContract: "Base",
      currency: "ETH",
      technicalAmount: 1.25,
      nativeTechnicalAmount: 1.25,
      timetickUpdate: "300",
      nativeTimetickUpdate: "300"
    })
    assert.deepStrictEqual(onEth[1].technicalState, {
      ...common,
      ...ethNative,
      tokenNetwork: t.eth,
      typeContract: "Base",
      currency: "ETH",
      technicalAmount: 0,
      nativeTechnicalAmount: 0,
      timetickUpdate: "0",
      nativeTimetickUpdate: "0"
    })
    const onUsdt = await list(t.usdt)
    assert.deepStrictEqual(onUsdt[0].technicalState, {
      ...common,
      ...ethNative,
      tokenNetwork: t.usdt,
      typeContract: "ERC20",
      currency: "USDT",
      technicalAmount: 10.25,
      nativeTechnicalAmount: 1.25,
      timetickUpdate: "500",
      nativeTimetickUpdate: "300"
    })
    const onBtc = await list(t.btc)
    assert.deepStrictEqual(
      onBtc.map((r) => r.id),
      [c.id]
    )
    assert.deepStrictEqual(onBtc[0].technicalState, {
      tokenNetwork: t.btc,
      typeNetwork: "Bitcoin",
      typeContract: "Base",
      currency: "BTC",
      technicalAmount: 0.001,
      nativeTokenNetwork: t.btc,
      nativeTypeContract: "Base",
      nativeCurrency: "BTC",
      nativeTechnicalAmount: 0.001,
      hotApproved: false,
      sourceTransferSupported: false,
      timetickUpdate: "600",
      nativeTimetickUpdate: "600"
    })
    // Tron has no Base terminal here: the native fields are null.
    assert.deepStrictEqual((await list(t.tron))[0].technicalState, {
      tokenNetwork: t.tron,
      typeNetwork: "Tron",
      typeContract: "TRC20",
      currency: "USDT",
      technicalAmount: 3,
      nativeTokenNetwork: null,
      nativeTypeContract: null,
      nativeCurrency: null,
      nativeTechnicalAmount: null,
      hotApproved: false,
      sourceTransferSupported: false,
      timetickUpdate: "800",
      nativeTimetickUpdate: null
    })
    // Memo records and non-crypto terminals: null / none; without includeTechnicalState: null.
    assert.deepStrictEqual(await list(t.sol), [e])
    assert.deepStrictEqual(await list(t.card), [])
    const plain = await listAddresses(w.sid, t.usdt)
    assert.deepStrictEqual(plain.body.result, [a, b])
    assert.deepStrictEqual((await listAddresses(w.sid, t.usdt, false)).body.result, [a, b])
    assert.deepStrictEqual((await listAddresses(w.sid, undefined, true)).body.result, [a, b, c, d, e])
  }, 120_000)
})
