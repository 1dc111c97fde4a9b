/** The wallet user's investments (CONTRACT C17): list, one, an early return, a transaction's investment. */
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../../../schema/Api.ts"
import { ok } from "../../../schema/Envelope.ts"
import { FieldRuleViolated } from "../../../schema/Errors.ts"
import { CurrentSession } from "../../../schema/Security.ts"
import { Investments } from "../../services/invest/Investments.ts"

const DAY_MS = 86_400_000
const investmentTypes: Record<string, number> = { None: 0, interest_on_balance: 1 }

export const InvestHandlers = HttpApiBuilder.group(
  Api,
  "invest",
  Effect.fn(function* (handlers) {
    const investments = yield* Investments
    return handlers
      .handle("get_investments", ({ query }) =>
        Effect.gen(function* () {
          const session = yield* CurrentSession
          // C17: UTC dates, both inclusive; by default the 366 UTC days up to today (end exclusive: the
          // start of the day after).
          const endOfToday = Math.floor(Date.now() / DAY_MS) * DAY_MS + DAY_MS
          const end = query.end !== undefined ? new Date(`${query.end}T00:00:00Z`).getTime() + DAY_MS : endOfToday
          const start = query.start !== undefined ? new Date(`${query.start}T00:00:00Z`).getTime() : end - 366 * DAY_MS
          if (!(start < end) || end - start > 3660 * DAY_MS) {
            return yield* new FieldRuleViolated({
              message: "start/end: start must be before end, at most ten years apart"
            })
          }
          const types = query.investment_types?.map((name) => investmentTypes[name])
          return yield* ok(yield* investments.ofWallet(session.walletId, new Date(start), new Date(end), types))
        })
      )
      .handle("get_investment_info", ({ query }) =>
        CurrentSession.use((session) =>
          Effect.flatMap(investments.ofWalletById(session.walletId, query.investment_id), ok)
        )
      )
      .handle("return_investment", ({ query }) =>
        CurrentSession.use((session) =>
          Effect.flatMap(investments.returnEarly(session.walletId, String(query.investment)), ok)
        )
      )
      .handle("invest_tx_info", ({ payload }) =>
        CurrentSession.use((session) => Effect.flatMap(investments.txInfo(session.walletId, payload), ok))
      )
  })
)
