/**
 * Daily payment statistics (CONTRACT C16 "Daily statistics"): `/core/v1/my_payment_stats` for the
 * session wallet's own app and `/private/v1/payment_stat_get` for one app or all. Dates are UTC calendar
 * days (YYYY-MM-DD), inclusive; the range rules are checked by the service (10001, 10330).
 */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { Envelope } from "../Envelope.ts"
import { Forbidden, InvalidRequest } from "../Errors.ts"
import { AppIdOut, Int64 } from "../Ids.ts"
import { StatsRangeInvalid } from "../PaymentErrors.ts"
import { ServiceAuth, SessionAuth } from "../Security.ts"

export const statsRangeDaysMax = 366
export const statsDefaultDays = 7

export const PaymentStatRow = Schema.Struct({
  appId: AppIdOut,
  dayNumber: Schema.Int.annotate({ description: "Days since 1970-01-01 (UTC)" }),
  day: Schema.String.annotate({ description: "YYYY-MM-DD (UTC)" }),
  currency: Schema.String,
  txType: Schema.Int.annotate({ description: "20 PaymentOrder, 21 TransferOrder, 19 Refund" }),
  total: Schema.Int.annotate({ description: "Created that day" }),
  finished: Schema.Int.annotate({ description: "Of those, now Paid/PartiallyRefunded/Refunded (refunds: Finished)" }),
  amountFinished: Schema.String.annotate({
    description: "Σ orderAmount of the finished (refunds: amount), canonical decimal string"
  })
}).annotate({ identifier: "PaymentStatRow" })
export type PaymentStatRow = typeof PaymentStatRow.Type

const day = (what: string) =>
  Schema.optional(Schema.String.check(Schema.isMaxLength(10))).annotate({
    description: `YYYY-MM-DD, UTC, inclusive; ${what}`
  })
const range = { from: day("default: `to` − 6 days"), to: day("default: today") }
const description =
  "Rows { appId, dayNumber, day, currency, txType, total, finished, amountFinished } over the orders (20, 21) and refunds (19) created each UTC day, total > 0 only, sorted by dayNumber, appId, currency, txType. from > to or over 366 days: 10330."

export class PaymentStatsApi extends HttpApiGroup.make("paymentStats")
  .add(
    HttpApiEndpoint.get("my_payment_stats", "/my_payment_stats", {
      query: { appId: Int64, ...range },
      success: Envelope(Schema.Array(PaymentStatRow)),
      error: [InvalidRequest, StatsRangeInvalid, Forbidden]
    }).annotateMerge(
      OpenApi.annotations({ description: `One app of the session wallet (else 403 10403). ${description}` })
    )
  )
  .middleware(SessionAuth)
  .prefix("/core/v1") {}

export class PrivatePaymentStatsApi extends HttpApiGroup.make("privatePaymentStats")
  .add(
    HttpApiEndpoint.get("payment_stat_get", "/payment_stat_get", {
      query: { appId: Schema.optional(Int64), ...range },
      success: Envelope(Schema.Array(PaymentStatRow)),
      error: [InvalidRequest, StatsRangeInvalid]
    }).annotateMerge(OpenApi.annotations({ description: `One app, or all apps without appId. ${description}` }))
  )
  .middleware(ServiceAuth)
  .prefix("/private/v1") {}
