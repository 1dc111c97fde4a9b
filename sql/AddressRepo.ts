/**
 * Deposit address records, memos and the chain view's per-address sums (CONTRACT C15 "Addresses").
 * A derived address takes its index from `address_counters` in the same transaction that stores it,
 * so indices per network are never reused and never skipped: an allocation that is abandoned (the
 * wallet's newest address already exists, or its limit is reached) rolls the counter back with it.
 */
import { Data, Effect } from "effect"
import { SqlClient } from "effect/sql"
import { NetworkType } from "../schema/Reference.ts"
import { textArray } from "./ArrayLiterals.ts"
import { decodeAll, decodeFirst, decodeOne, Int, Int8, MinorUnits, Nullable, record, Text } from "./Decoding.ts"

/** A row of crypto_addresses: derived (derivationIndex, no terminal) or a memo record (terminal, memo). */
export const AddressRecord = record({
  id: Int8,
  typeNetwork: Int,
  walletId: Int8,
  terminalId: Nullable(Int8),
  derivationIndex: Nullable(Int),
  address: Text,
  addressKey: Text,
  memo: Nullable(Text),
  purpose: Int,
  tick: Int8
})
export type AddressRecord = typeof AddressRecord.Type

/** purpose: 0 a wallet's own (create_address), 1 reserved for a payment order (C16). */
export const AddressPurpose = { Wallet: 0, PaymentOrder: 1 } as const

const columns = `id, type_network, wallet_id, terminal_id, derivation_index, address, address_key, memo, purpose, tick`

const records = decodeAll(AddressRecord)
const firstRecord = decodeFirst(AddressRecord)
const oneRecord = decodeOne(AddressRecord)

export type Allocation =
  | { readonly _tag: "Allocated"; readonly row: AddressRecord }
  | { readonly _tag: "Existing"; readonly row: AddressRecord }
  | { readonly _tag: "LimitReached"; readonly count: number }

/** Leaves the allocation's transaction (rolling its counter step back) with an answer that is not a new row. */
class Abandon extends Data.TaggedError("AddressAllocationAbandoned")<{ readonly outcome: Allocation }> {}

const nextIndex = decodeOne(record({ idx: Int }))
const counted = decodeOne(record({ n: Int }))

/** The wallet's newest derived address of a network (purpose 0), if any. */
export const newestDerived = (walletId: string | bigint, typeNetwork: number) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(
      sql`SELECT ${sql.literal(columns)} FROM crypto_addresses
      WHERE wallet_id = ${walletId} AND type_network = ${typeNetwork} AND derivation_index IS NOT NULL AND purpose = 0
      ORDER BY id DESC LIMIT 1`,
      firstRecord
    )
  )

/**
 * A derived address in one transaction: the network's next index (UPDATE/INSERT address_counters …
 * RETURNING, whose row lock orders concurrent allocations of the network), then, for a wallet's own
 * address, its newest one when `reuseNewest` (another call may have stored it meanwhile) or the limit
 * check (`maxCount` derived addresses of purpose 0 on the network), then the INSERT.
 */
export const allocateDerived = (input: {
  readonly walletId: string | bigint
  readonly typeNetwork: number
  readonly purpose: number
  /** The wallet's max_addr_count (purpose 0 only; undefined: no limit). */
  readonly maxCount: number | undefined
  readonly reuseNewest: boolean
  readonly tick: bigint
  readonly addressAt: (index: number) => { readonly address: string; readonly addressKey: string }
}) =>
  SqlClient.SqlClient.use((sql) =>
    sql
      .withTransaction(
        Effect.gen(function* () {
          const { idx } = nextIndex(
            yield* sql`INSERT INTO address_counters (type_network, next_index) VALUES (${input.typeNetwork}, 1)
            ON CONFLICT (type_network) DO UPDATE SET next_index = address_counters.next_index + 1
            RETURNING next_index - 1 AS idx`
          )
          if (input.purpose === AddressPurpose.Wallet) {
            if (input.reuseNewest) {
              const existing = firstRecord(
                yield* sql`SELECT ${sql.literal(columns)} FROM crypto_addresses
                WHERE wallet_id = ${input.walletId} AND type_network = ${input.typeNetwork}
                  AND derivation_index IS NOT NULL AND purpose = 0
                ORDER BY id DESC LIMIT 1`
              )
              if (existing !== undefined) return yield* new Abandon({ outcome: { _tag: "Existing", row: existing } })
            }
            if (input.maxCount !== undefined) {
              const { n } = counted(
                yield* sql`SELECT count(*)::integer AS n FROM crypto_addresses
                WHERE wallet_id = ${input.walletId} AND type_network = ${input.typeNetwork}
                  AND derivation_index IS NOT NULL AND purpose = 0`
              )
              if (n >= input.maxCount) return yield* new Abandon({ outcome: { _tag: "LimitReached", count: n } })
            }
          }
          const { address, addressKey } = input.addressAt(idx)
          const row = oneRecord(
            yield* sql`INSERT INTO crypto_addresses (type_network, wallet_id, derivation_index, address, address_key, purpose, tick)
            VALUES (${input.typeNetwork}, ${input.walletId}, ${idx}, ${address}, ${addressKey}, ${input.purpose}, ${input.tick})
            RETURNING ${sql.literal(columns)}`
          )
          return { _tag: "Allocated", row } as Allocation
        })
      )
      .pipe(Effect.catchTag("AddressAllocationAbandoned", (abandon) => Effect.succeed(abandon.outcome)))
  )

const firstMemo = decodeFirst(record({ memo: Text }))

/** The wallet's memo (purpose 0), if allocated. */
export const walletMemo = (walletId: string | bigint) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(
      sql`SELECT memo FROM memos WHERE wallet_id = ${walletId} AND purpose = 0`,
      (rows) => firstMemo(rows)?.memo
    )
  )

/**
 * Stores `memo` as the wallet's memo unless the memo is taken or the wallet already has one (both
 * unique): the memo when stored, else undefined (the caller re-reads the wallet's, or retries).
 */
export const insertWalletMemo = (walletId: string | bigint, memo: string) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(
      sql`INSERT INTO memos (memo, wallet_id, purpose) VALUES (${memo}, ${walletId}, 0) ON CONFLICT DO NOTHING RETURNING memo`,
      (rows) => firstMemo(rows)?.memo
    )
  )

/** The wallet's memo record on a terminal (purpose 0), if any. */
export const memoRecordOf = (walletId: string | bigint, terminalId: string | bigint) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(
      sql`SELECT ${sql.literal(columns)} FROM crypto_addresses
      WHERE wallet_id = ${walletId} AND terminal_id = ${terminalId} AND memo IS NOT NULL AND purpose = 0
      ORDER BY id LIMIT 1`,
      firstRecord
    )
  )

/** Stores a memo record; undefined when (terminal, memo) is already stored (a concurrent call). */
export const insertMemoRecord = (input: {
  readonly walletId: string | bigint
  readonly terminalId: string | bigint
  readonly typeNetwork: number
  readonly address: string
  readonly addressKey: string
  readonly memo: string
  readonly purpose: number
  readonly tick: bigint
}) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(
      sql`INSERT INTO crypto_addresses (type_network, wallet_id, terminal_id, address, address_key, memo, purpose, tick)
      VALUES (${input.typeNetwork}, ${input.walletId}, ${input.terminalId}, ${input.address}, ${input.addressKey},
        ${input.memo}, ${input.purpose}, ${input.tick})
      ON CONFLICT (terminal_id, memo) WHERE memo IS NOT NULL DO NOTHING
      RETURNING ${sql.literal(columns)}`,
      firstRecord
    )
  )

/** All the wallet's own records (purpose 0), oldest first. */
export const walletAddresses = (walletId: string | bigint) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(
      sql`SELECT ${sql.literal(columns)} FROM crypto_addresses WHERE wallet_id = ${walletId} AND purpose = 0 ORDER BY id`,
      records
    )
  )

/** The wallet's own records usable on a terminal: derived ones of its network, or its memo records. */
export const addressesUsableOn = (
  walletId: string | bigint,
  terminal: { readonly id: bigint; readonly typeNetwork: number; readonly memoNetwork: boolean }
) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(
      sql`SELECT ${sql.literal(columns)} FROM crypto_addresses
      WHERE wallet_id = ${walletId} AND purpose = 0
        AND ${
          terminal.memoNetwork
            ? sql`terminal_id = ${terminal.id}`
            : sql`type_network = ${terminal.typeNetwork} AND derivation_index IS NOT NULL`
        }
      ORDER BY id`,
      records
    )
  )

/** Σ in − Σ out (minor units) and the last tick of one address's items on a terminal, orphaned excluded. */
export const TechnicalSum = record({ addressKey: Text, amount: MinorUnits, tick: Int8 })
export type TechnicalSum = typeof TechnicalSum.Type
const sums = decodeAll(TechnicalSum)

/** The technical sums of these address keys on a terminal; a key without items has no row. */
export const technicalSums = (terminalId: string | bigint, addressKeys: ReadonlyArray<string>) =>
  SqlClient.SqlClient.use((sql) =>
    addressKeys.length === 0
      ? Effect.succeed([] as ReadonlyArray<TechnicalSum>)
      : Effect.map(
          sql`SELECT address_key, sum(delta)::text AS amount, max(tick) AS tick FROM (
            SELECT to_key AS address_key, amount AS delta, tick FROM chain_items
              WHERE terminal_id = ${terminalId} AND direction = 0 AND NOT orphaned
                AND to_key = ANY (${textArray(addressKeys)}::text[])
            UNION ALL
            SELECT from_key, -amount, tick FROM chain_items
              WHERE terminal_id = ${terminalId} AND direction = 1 AND NOT orphaned
                AND from_key = ANY (${textArray(addressKeys)}::text[])
          ) AS items GROUP BY address_key`,
          sums
        )
  )

/** The technical amount (minor units) of one address key on a terminal: the withdrawal source check. */
export const technicalAmountOf = (terminalId: string | bigint, addressKey: string) =>
  Effect.map(technicalSums(terminalId, [addressKey]), (rows) => rows[0]?.amount ?? 0n)

/**
 * A scanner's watch list of a terminal, by id after `cursor`: the derived addresses of its network
 * (every purpose) or, on a memo network, its memo records.
 */
export const watchList = (
  terminal: { readonly id: bigint; readonly typeNetwork: number; readonly memoNetwork: boolean },
  cursor: string,
  limit: number
) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(
      sql`SELECT ${sql.literal(columns)} FROM crypto_addresses
      WHERE ${
        terminal.memoNetwork
          ? sql`terminal_id = ${terminal.id}`
          : sql`type_network = ${terminal.typeNetwork} AND derivation_index IS NOT NULL`
      } AND id > ${cursor}
      ORDER BY id LIMIT ${limit}`,
      records
    )
  )

/** A deposit record as the chain actor attributes with it. */
export const DepositAddress = record({
  addressKey: Text,
  memo: Nullable(Text),
  terminalId: Nullable(Int8),
  walletId: Int8,
  purpose: Int
})
export type DepositAddress = typeof DepositAddress.Type

/** The deposit records of a network whose address key is one of `keys`, derived and memo ones: one read per block. */
export const depositAddresses = (typeNetwork: number, keys: ReadonlyArray<string>) =>
  SqlClient.SqlClient.use((sql) =>
    keys.length === 0
      ? Effect.succeed([] as ReadonlyArray<DepositAddress>)
      : Effect.map(
          sql`SELECT address_key, memo, terminal_id, wallet_id, purpose FROM crypto_addresses
            WHERE type_network = ${typeNetwork} AND address_key = ANY(${textArray(keys)}::text[])`,
          decodeAll(DepositAddress)
        )
  )

/**
 * Who an in item of a terminal pays, among the records `depositAddresses` read: on a derived network
 * the owner of the derived address whose key is `toKey`; on a memo network the owner of the
 * terminal's memo record with that address key and the item's memo. Undefined: unattributed.
 */
export const depositOwnerAmong = (
  records: ReadonlyArray<DepositAddress>,
  typeNetwork: number,
  terminalId: bigint,
  toKey: string,
  memo: string | null
): DepositAddress | undefined => {
  const memoNetwork = typeNetwork === NetworkType.Solana || typeNetwork === NetworkType.Ton
  if (memoNetwork && (memo === null || memo === "")) return undefined
  return records.find((r) =>
    memoNetwork
      ? r.terminalId === terminalId && r.addressKey === toKey && r.memo === memo
      : r.terminalId === null && r.addressKey === toKey
  )
}
