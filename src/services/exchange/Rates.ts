/**
 * Rates (SPEC market rule 7, CONTRACT C14): a set rate of A/B or its inverse; else A/USDT × USDT/B;
 * else A/BTC × BTC/B, each leg itself direct or via USDT. Reference rates come from the operator's
 * `set_rates`; a pair without one takes its public book's last trade price, else the book's mid.
 */
import { BigNumber } from "bignumber.js"
import { Context, Effect, Layer } from "effect"
import { lastTrades, publicMidPrices } from "../../../sql/OrderRepo.ts"
import { allRates, upsertRates } from "../../../sql/ReferenceRepo.ts"
import { makeDb } from "../../platform/db/Sql.ts"

export type Via = "direct" | "USDT" | "BTC"
export interface Rate {
  readonly from: string
  readonly to: string
  readonly rate: BigNumber
  readonly via: Via
}

const RATE_DECIMALS = 18
export const rateCacheMs = 1_000
/**
 * Inverses are taken to 40 places before the one rounding to RATE_DECIMALS: BigNumber's default
 * of 20 places let a leg's error reach the 17th place of a product (3210 × 1/60000 came out as
 * 0.053500000000000011, not 0.0535).
 */
const Precise = BigNumber.clone({ DECIMAL_PLACES: 40 })

export const crossRate = (table: ReadonlyMap<string, BigNumber>, from: string, to: string): Rate | undefined => {
  const direct = (a: string, b: string): BigNumber | undefined => {
    if (a === b) return new BigNumber(1)
    const forward = table.get(`${a}/${b}`)
    if (forward !== undefined) return forward
    const backward = table.get(`${b}/${a}`)
    return backward !== undefined ? new Precise(1).div(backward) : undefined
  }
  const viaUsdt = (a: string, b: string): BigNumber | undefined => {
    const first = direct(a, "USDT")
    const second = direct("USDT", b)
    return first !== undefined && second !== undefined ? first.times(second) : undefined
  }
  const leg = (a: string, b: string) => direct(a, b) ?? viaUsdt(a, b)
  const round = (value: BigNumber) => value.decimalPlaces(RATE_DECIMALS, BigNumber.ROUND_HALF_EVEN)
  const d = direct(from, to)
  if (d !== undefined) return { from, to, rate: round(d), via: "direct" }
  const u = viaUsdt(from, to)
  if (u !== undefined) return { from, to, rate: round(u), via: "USDT" }
  const first = leg(from, "BTC")
  const second = leg("BTC", to)
  if (first !== undefined && second !== undefined) return { from, to, rate: round(first.times(second)), via: "BTC" }
  return undefined
}

export class Rates extends Context.Service<
  Rates,
  {
    readonly table: () => Effect.Effect<ReadonlyMap<string, BigNumber>>
    readonly rate: (from: string, to: string) => Effect.Effect<Rate | undefined>
    readonly setRates: (
      rates: ReadonlyArray<{ readonly from: string; readonly to: string; readonly rate: string }>
    ) => Effect.Effect<number>
    readonly listSet: () => Effect.Effect<ReadonlyArray<Rate>>
  }
>()("core/Rates") {
  static readonly layer = Layer.effect(
    Rates,
    Effect.gen(function* () {
      const db = yield* makeDb
      // The rate table is small and read on every balance: it is cached for `rateCacheMs`. This
      // process's set_rates drops the cache at once; another process's change shows within that time.
      let cached: { readonly at: number; readonly table: ReadonlyMap<string, BigNumber> } | undefined
      const load = Effect.map(
        Effect.all([db(allRates), db(lastTrades), db(publicMidPrices)]),
        ([rows, trades, mids]) => {
          const table = new Map(rows.map((r) => [`${r.fromCurrency}/${r.toCurrency}`, new BigNumber(r.rate)]))
          // The books fill in pairs without a reference rate: last trade of the public room, else its mid.
          for (const book of [...trades, ...mids]) {
            if (table.has(`${book.base}/${book.quote}`) || table.has(`${book.quote}/${book.base}`)) continue
            table.set(`${book.base}/${book.quote}`, new BigNumber(book.price))
          }
          cached = { at: Date.now(), table }
          return table as ReadonlyMap<string, BigNumber>
        }
      )
      const table = () =>
        Effect.suspend(() =>
          cached !== undefined && Date.now() - cached.at < rateCacheMs ? Effect.succeed(cached.table) : load
        )
      return Rates.of({
        table,
        rate: (from, to) => Effect.map(table(), (t) => crossRate(t, from, to)),
        setRates: (rates) =>
          Effect.as(
            Effect.tap(db(upsertRates(rates)), () => Effect.sync(() => (cached = undefined))),
            rates.length
          ),
        listSet: () =>
          Effect.map(db(allRates), (rows) =>
            rows.map((r) => ({
              from: r.fromCurrency,
              to: r.toCurrency,
              rate: new BigNumber(r.rate),
              via: "direct" as const
            }))
          )
      })
    })
  )
}
