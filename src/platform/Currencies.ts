/** The currency catalogue (CONTRACT C7): seeded from sql/seed/currencies.json, cached in memory. */
import { Context, Effect, Layer } from "effect"
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { allCurrencies, type CurrencyRecord } from "../../sql/ReferenceRepo.ts"
import { seedCurrencies, seedInternalTerminal, type CurrencySeed } from "../../sql/SystemRepo.ts"
import { toMinorUnits } from "../../schema/Money.ts"
import { CurrencyNotEnabled, TooManyDecimals, UnknownCurrency } from "../../schema/Errors.ts"

const catalogueFile = fileURLToPath(new URL("../../sql/seed/currencies.json", import.meta.url))

export interface Currency {
  readonly code: string
  readonly name: string
  readonly decimals: number
  readonly exchangeEnabled: boolean
  readonly isBase: boolean
}

const fromRow = (row: CurrencyRecord): Currency => ({
  code: row.code,
  name: row.name,
  decimals: row.decimals,
  exchangeEnabled: row.exchangeEnabled,
  isBase: row.isBase
})

export class Currencies extends Context.Service<
  Currencies,
  {
    readonly all: () => ReadonlyArray<Currency>
    readonly base: () => Currency
    readonly find: (code: string) => Currency | undefined
    readonly require: (code: string, field: string) => Effect.Effect<Currency, UnknownCurrency>
    /** A known currency that is enabled for exchange (SPEC market rule 9). */
    readonly requireExchange: (
      code: string,
      field: string
    ) => Effect.Effect<Currency, UnknownCurrency | CurrencyNotEnabled>
    /** Parses a validated decimal amount into minor units of the currency; names the field on failure. */
    readonly toMinor: (amount: string, currency: Currency, field: string) => Effect.Effect<bigint, TooManyDecimals>
  }
>()("core/Currencies") {
  static readonly layer = Layer.effect(
    Currencies,
    Effect.gen(function* () {
      const file = JSON.parse(readFileSync(catalogueFile, "utf8")) as { base: string; currencies: Array<CurrencySeed> }
      yield* seedCurrencies(file.currencies, file.base).pipe(Effect.orDie)
      yield* seedInternalTerminal.pipe(Effect.orDie)
      const rows = (yield* Effect.orDie(allCurrencies)).map(fromRow)
      const byCode = new Map(rows.map((c) => [c.code, c]))
      const base = rows.find((c) => c.isBase) ?? rows[0]
      return Currencies.of({
        all: () => rows,
        base: () => base,
        find: (code) => byCode.get(code),
        require: (code, field) => {
          const currency = byCode.get(code)
          return currency !== undefined
            ? Effect.succeed(currency)
            : Effect.fail(new UnknownCurrency({ message: `${field}: unknown currency "${code}"` }))
        },
        requireExchange: (code, field) => {
          const currency = byCode.get(code)
          return currency === undefined
            ? Effect.fail(new UnknownCurrency({ message: `${field}: unknown currency "${code}"` }))
            : !currency.exchangeEnabled
              ? Effect.fail(new CurrencyNotEnabled({ message: `${field}: ${code} is not enabled for exchange` }))
              : Effect.succeed(currency)
        },
        toMinor: (amount, currency, field) => {
          const minor = toMinorUnits(amount, currency.decimals)
          return minor !== undefined
            ? Effect.succeed(minor)
            : Effect.fail(
                new TooManyDecimals({ message: `${field}: ${currency.code} has ${currency.decimals} decimals` })
              )
        }
      })
    })
  )
}
