/** Reference data: currencies, terminals, rates, tariffs. */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import {
  ArrayOf,
  Bool,
  DecimalText,
  decodeAll,
  decodeFirst,
  decodeOne,
  Int,
  Int8,
  Nullable,
  record,
  Text
} from "./Decoding.ts"

export const CurrencyRecord = record({
  code: Text,
  name: Text,
  decimals: Int,
  exchangeEnabled: Bool,
  isBase: Bool
})
export type CurrencyRecord = typeof CurrencyRecord.Type

const currencyRecords = decodeAll(CurrencyRecord)

export const allCurrencies = SqlClient.SqlClient.use((sql) =>
  Effect.map(
    sql`SELECT code, name, decimals, exchange_enabled, is_base FROM currencies ORDER BY sort_order, code`,
    currencyRecords
  )
)

/** A deposit/withdrawal terminal; currency null only for the built-in internal one (any currency). */
export const Terminal = record({
  id: Int8,
  typeNetwork: Int,
  typeContract: Int,
  currency: Nullable(Text),
  decimals: Int,
  addressContract: Nullable(Text),
  name: Nullable(Text),
  tag: Nullable(Text),
  priority: Nullable(Int),
  networkFee: Nullable(DecimalText),
  displayName: Nullable(Text),
  iconCode: Nullable(Text),
  flags: Int,
  defaultHotAddress: Nullable(Text),
  defaultSystemWalletId: Nullable(Int8),
  walletGroups: ArrayOf(Int),
  lastBlock: Nullable(Int8),
  builtIn: Bool,
  confirmations: Int
})
export type Terminal = typeof Terminal.Type

const terminals = decodeAll(Terminal)
const firstTerminal = decodeFirst(Terminal)
const oneTerminal = decodeOne(Terminal)

const terminalColumns = `id, type_network, type_contract, currency, decimals, address_contract, name, tag, priority,
  network_fee::text AS network_fee, display_name, icon_code, flags, default_hot_address, default_system_wallet_id,
  wallet_groups, last_block, built_in, confirmations`

export const allTerminals = SqlClient.SqlClient.use((sql) =>
  Effect.map(
    sql`SELECT ${sql.literal(terminalColumns)} FROM terminals ORDER BY COALESCE(priority, 0) DESC, id`,
    terminals
  )
)

export const findTerminal = (id: string) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(sql`SELECT ${sql.literal(terminalColumns)} FROM terminals WHERE id = ${id}`, firstTerminal)
  )

export const baseTerminalOf = (typeNetwork: number) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(
      sql`SELECT id FROM terminals WHERE type_network = ${typeNetwork} AND type_contract = 0 AND NOT built_in`,
      firstTerminalId
    )
  )

const firstTerminalId = decodeFirst(record({ id: Int8 }))

export interface TerminalValues {
  readonly typeNetwork: number
  readonly typeContract: number
  readonly currency: string
  readonly decimals: number
  readonly addressContract: string | null
  readonly name: string | null
  readonly tag: string | null
  readonly priority: number | null
  readonly networkFee: string | null
  readonly displayName: string | null
  readonly iconCode: string | null
  readonly flags: number
  readonly defaultHotAddress: string | null
  readonly defaultSystemWalletId: string | null
  readonly walletGroups: ReadonlyArray<number>
  readonly confirmations: number
}

export const insertTerminal = (t: TerminalValues) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(
      sql`INSERT INTO terminals (type_network, type_contract, currency, decimals, address_contract, name, tag,
        priority, network_fee, display_name, icon_code, flags, default_hot_address, default_system_wallet_id, wallet_groups,
        confirmations)
      VALUES (${t.typeNetwork}, ${t.typeContract}, ${t.currency}, ${t.decimals}, ${t.addressContract}, ${t.name}, ${t.tag},
        ${t.priority}, ${t.networkFee}::numeric, ${t.displayName}, ${t.iconCode}, ${t.flags}, ${t.defaultHotAddress},
        ${t.defaultSystemWalletId}::bigint, ${"{" + t.walletGroups.join(",") + "}"}::integer[],
        ${t.confirmations})
      RETURNING ${sql.literal(terminalColumns)}`,
      oneTerminal
    )
  )

/**
 * The update_network write: nullable attributes arrive as "keep" (undefined/null), "clear" ("" or 0
 * mapped to SQL NULL by the service via `clear`), or a value; the always-written fields are set
 * unconditionally; identity and scanner fields are not in the statement at all.
 */
export interface TerminalPatch {
  readonly name: { readonly keep: true } | { readonly keep: false; readonly value: string | null }
  readonly tag: { readonly keep: true } | { readonly keep: false; readonly value: string | null }
  readonly priority: { readonly keep: true } | { readonly keep: false; readonly value: number | null }
  readonly networkFee: { readonly keep: true } | { readonly keep: false; readonly value: string | null }
  readonly displayName: { readonly keep: true } | { readonly keep: false; readonly value: string | null }
  readonly iconCode: { readonly keep: true } | { readonly keep: false; readonly value: string | null }
  readonly flags: number
  readonly defaultHotAddress: string | null
  readonly defaultSystemWalletId: string | null
  readonly walletGroups: ReadonlyArray<number>
  /** null keeps. */
  readonly confirmations: number | null
}

export const updateTerminal = (id: string, p: TerminalPatch) =>
  SqlClient.SqlClient.use((sql) => {
    const set = <A>(
      column: string,
      field: { readonly keep: true } | { readonly keep: false; readonly value: A },
      cast: string
    ) => (field.keep ? sql`` : sql`, ${sql.literal(column)} = ${field.value as any}::${sql.literal(cast)}`)
    return Effect.map(
      sql`UPDATE terminals SET
        flags = ${p.flags},
        default_hot_address = ${p.defaultHotAddress},
        default_system_wallet_id = ${p.defaultSystemWalletId}::bigint,
        wallet_groups = ${"{" + p.walletGroups.join(",") + "}"}::integer[],
        confirmations = COALESCE(${p.confirmations}::integer, confirmations)
        ${set("name", p.name, "text")}
        ${set("tag", p.tag, "text")}
        ${set("priority", p.priority, "integer")}
        ${set("network_fee", p.networkFee, "numeric")}
        ${set("display_name", p.displayName, "text")}
        ${set("icon_code", p.iconCode, "text")}
      WHERE id = ${id}
      RETURNING ${sql.literal(terminalColumns)}`,
      firstTerminal
    )
  })

/** A reference rate: one unit of fromCurrency in toCurrency, as exact decimal text. */
export const Rate = record({ fromCurrency: Text, toCurrency: Text, rate: DecimalText })
export type Rate = typeof Rate.Type

const rates = decodeAll(Rate)

export const allRates = SqlClient.SqlClient.use((sql) =>
  Effect.map(
    sql`SELECT from_currency, to_currency, rate::text AS rate FROM rates ORDER BY from_currency, to_currency`,
    rates
  )
)

export const upsertRates = (
  rates: ReadonlyArray<{ readonly from: string; readonly to: string; readonly rate: string }>
) =>
  SqlClient.SqlClient.use((sql) =>
    sql.withTransaction(
      Effect.forEach(
        rates,
        (r) =>
          sql`INSERT INTO rates (from_currency, to_currency, rate, updated_at) VALUES (${r.from}, ${r.to}, ${r.rate}::numeric, now())
        ON CONFLICT (from_currency, to_currency) DO UPDATE SET rate = EXCLUDED.rate, updated_at = now()`,
        { discard: true }
      )
    )
  )

/**
 * A tariff rule (CONTRACT C7): the fee figures and the amount range are NUMERICs in currency units,
 * kept as exact decimal text for bignumber.js; null wallet group, typeTx or bound match anything.
 */
export const Tariff = record({
  txClass: Text,
  currency: Text,
  walletGroup: Nullable(Int),
  typeTx: Nullable(Int),
  feeFixed: DecimalText,
  feePercent: DecimalText,
  minAmount: Nullable(DecimalText),
  maxAmount: Nullable(DecimalText),
  profitWalletId: Nullable(Int8)
})
export type Tariff = typeof Tariff.Type

const tariffs = decodeAll(Tariff)

export const allTariffs = SqlClient.SqlClient.use((sql) =>
  Effect.map(
    sql`SELECT tx_class, currency, wallet_group, type_tx, fee_fixed::text AS fee_fixed, fee_percent::text AS fee_percent,
      min_amount::text AS min_amount, max_amount::text AS max_amount, profit_wallet_id
    FROM tariffs ORDER BY id`,
    tariffs
  )
)

/** set_tariffs replaces the whole rule set atomically. */
export const replaceTariffs = (rules: ReadonlyArray<Tariff>) =>
  SqlClient.SqlClient.use((sql) =>
    sql.withTransaction(
      Effect.gen(function* () {
        yield* sql`DELETE FROM tariffs`
        for (const r of rules) {
          yield* sql`INSERT INTO tariffs (tx_class, currency, wallet_group, type_tx, fee_fixed, fee_percent, min_amount, max_amount, profit_wallet_id)
          VALUES (${r.txClass}, ${r.currency}, ${r.walletGroup}, ${r.typeTx}, ${r.feeFixed}::numeric, ${r.feePercent}::numeric,
            ${r.minAmount}::numeric, ${r.maxAmount}::numeric, ${r.profitWalletId}::bigint)`
        }
      })
    )
  )
