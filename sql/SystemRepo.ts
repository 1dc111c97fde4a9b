/** Small system queries: runner numbering, health, catalogue seeding. */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { decodeOne, Int8, record } from "./Decoding.ts"

const nextId = decodeOne(record({ id: Int8 }))

export const nextRunnerNumber = SqlClient.SqlClient.use((sql) =>
  Effect.map(sql`SELECT nextval('runner_ids') AS id`, (rows) => nextId(rows).id)
)

export const ping = SqlClient.SqlClient.use((sql) => sql`SELECT 1`)

export interface CurrencySeed {
  readonly code: string
  readonly name: string
  readonly decimals: number
  readonly exchangeEnabled: boolean
}

/** Inserts catalogue currencies that are missing; existing rows (possibly edited by an operator) are kept. */
export const seedCurrencies = (currencies: ReadonlyArray<CurrencySeed>, base: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    let order = 0
    for (const currency of currencies) {
      order++
      yield* sql`INSERT INTO currencies (code, name, decimals, exchange_enabled, is_base, sort_order)
        VALUES (${currency.code}, ${currency.name}, ${currency.decimals}, ${currency.exchangeEnabled}, ${currency.code === base}, ${order})
        ON CONFLICT (code) DO NOTHING`
    }
  })

/** The built-in internal terminal (SPEC: type_network 240, type_contract 234, Own Wallet Transfer). */
export const seedInternalTerminal = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`INSERT INTO terminals (type_network, type_contract, currency, decimals, name, display_name, flags, built_in, priority)
    SELECT 240, 234, NULL, 0, 'Own Wallet Transfer', 'Own Wallet Transfer', 0, true, 0
    WHERE NOT EXISTS (SELECT 1 FROM terminals WHERE built_in)`
})
