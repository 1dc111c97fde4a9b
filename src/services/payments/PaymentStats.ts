/**
 * Daily payment statistics (CONTRACT C16 "Daily statistics"; SPEC my_payment_stats, payment_stat_get):
 * the range rules (YYYY-MM-DD UTC calendar dates, inclusive, else 10001; default to = today, from =
 * to − 6 days; from > to or over 366 days 10330), the session's ownership of the app (403 10403), and
 * the rows of sql/PaymentStatsRepo.ts with amounts as canonical decimal strings of their currency.
 */
import { Context, Effect, Layer } from "effect"
import { type PaymentStatRow, statsDefaultDays, statsRangeDaysMax } from "../../../schema/api/PaymentStatsApi.ts"
import { Forbidden, InvalidRequest } from "../../../schema/Errors.ts"
import { appId as toAppId } from "../../../schema/Ids.ts"
import { fromMinorUnits } from "../../../schema/Money.ts"
import { StatsRangeInvalid } from "../../../schema/PaymentErrors.ts"
import { findAppById } from "../../../sql/CredentialRepo.ts"
import { paymentStats } from "../../../sql/PaymentStatsRepo.ts"
import { Currencies } from "../../platform/Currencies.ts"
import { makeDb } from "../../platform/db/Sql.ts"

const DAY_MS = 86_400_000

export interface StatsRange {
  readonly from?: string | undefined
  readonly to?: string | undefined
}

type RangeError = InvalidRequest | StatsRangeInvalid

/** A UTC calendar date as days since 1970-01-01; anything but a real YYYY-MM-DD date is 10001. */
const dayNumberOf = (field: string, text: string): Effect.Effect<number, InvalidRequest> => {
  const match = /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/.exec(text)
  const ms = match === null ? NaN : Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]))
  return Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== text
    ? Effect.fail(new InvalidRequest({ message: `${field}: must be a UTC calendar date YYYY-MM-DD` }))
    : Effect.succeed(ms / DAY_MS)
}

/** The inclusive day range asked for, as [first, last] day numbers. */
export const statsRange = (range: StatsRange, today: number): Effect.Effect<readonly [number, number], RangeError> =>
  Effect.gen(function* () {
    const last = range.to === undefined ? today : yield* dayNumberOf("to", range.to)
    const first = range.from === undefined ? last - (statsDefaultDays - 1) : yield* dayNumberOf("from", range.from)
    if (first > last) return yield* new StatsRangeInvalid({ message: "from: must not be after to" })
    if (last - first + 1 > statsRangeDaysMax)
      return yield* new StatsRangeInvalid({ message: `from: the range is at most ${statsRangeDaysMax} days` })
    return [first, last] as const
  })

export class PaymentStats extends Context.Service<
  PaymentStats,
  {
    /** One app of the session's wallet (else 403 10403). */
    readonly ofOwnApp: (
      walletId: string,
      appId: string,
      range: StatsRange
    ) => Effect.Effect<ReadonlyArray<PaymentStatRow>, RangeError | Forbidden>
    /** One app, or every app (appId undefined). */
    readonly ofApps: (
      appId: string | undefined,
      range: StatsRange
    ) => Effect.Effect<ReadonlyArray<PaymentStatRow>, RangeError>
  }
>()("core/PaymentStats") {
  static readonly layer = Layer.effect(
    PaymentStats,
    Effect.gen(function* () {
      const db = yield* makeDb
      const currencies = yield* Currencies

      const rows = (appId: string | null, range: StatsRange) =>
        Effect.gen(function* () {
          const [first, last] = yield* statsRange(range, Math.floor(Date.now() / DAY_MS))
          const found = yield* db(paymentStats(appId, new Date(first * DAY_MS), new Date((last + 1) * DAY_MS)))
          return found.map((row): PaymentStatRow => ({
            appId: toAppId(row.appId),
            dayNumber: Number(row.dayNumber),
            day: row.day,
            currency: row.currency,
            txType: row.txType,
            total: Number(row.total),
            finished: Number(row.finished),
            amountFinished: fromMinorUnits(row.amountFinished, currencies.find(row.currency)?.decimals ?? 0)
          }))
        })

      return PaymentStats.of({
        ofOwnApp: (walletId, appId, range) =>
          Effect.gen(function* () {
            const app = yield* db(findAppById(appId))
            if (app === undefined || String(app.walletId) !== walletId)
              return yield* new Forbidden({ message: "appId: not an app of this wallet" })
            return yield* rows(appId, range)
          }),
        ofApps: (appId, range) => rows(appId ?? null, range)
      })
    })
  )
}
