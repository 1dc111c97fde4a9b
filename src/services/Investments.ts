/** Reads of investments for the session routes (get_investments, get_investment_info). */
import { Context, Effect, Layer } from "effect"
import type { InvestmentOut } from "../../schema/api/InvestApi.ts"
import { NotFound } from "../../schema/Errors.ts"
import { fromMinorUnits } from "../../schema/Money.ts"
import { findInvestment, type Investment, investmentsOf } from "../../sql/LedgerRepo.ts"
import { Currencies } from "../platform/Currencies.ts"
import { makeDb } from "../platform/db/Sql.ts"

export class Investments extends Context.Service<
  Investments,
  {
    readonly ofWallet: (
      walletId: string,
      start: Date,
      end: Date,
      types: ReadonlyArray<number> | undefined
    ) => Effect.Effect<ReadonlyArray<InvestmentOut>>
    /** An investment of this wallet; another wallet's is reported as missing (existence must not leak). */
    readonly ofWalletById: (walletId: string, investmentId: string) => Effect.Effect<InvestmentOut, NotFound>
  }
>()("core/Investments") {
  static readonly layer = Layer.effect(
    Investments,
    Effect.gen(function* () {
      const db = yield* makeDb
      const currencies = yield* Currencies
      const toOut = (row: Investment): InvestmentOut => {
        const decimals = currencies.find(row.currency)?.decimals ?? 0
        return {
          timetick: String(row.timetick),
          walletId: String(row.walletId) as InvestmentOut["walletId"],
          currencyId: row.currency,
          investmentType: row.investmentType,
          state: row.state,
          flags: row.flags,
          amount: Number(fromMinorUnits(row.amount, decimals)),
          profit: Number(fromMinorUnits(row.profit, decimals)),
          ratePct: row.ratePct,
          dateEnd: row.dateEnd.toISOString(),
          tag: row.tag
        }
      }
      return Investments.of({
        ofWallet: (walletId, start, end, types) =>
          Effect.map(db(investmentsOf(walletId, start, end, types)), (rows) => rows.map(toOut)),
        ofWalletById: (walletId, investmentId) =>
          Effect.flatMap(db(findInvestment(investmentId)), (row) =>
            row === undefined || String(row.walletId) !== walletId
              ? Effect.fail(new NotFound({ message: `investment_id: no investment ${investmentId}` }))
              : Effect.succeed(toOut(row))
          )
      })
    })
  )
}
