/**
 * The operator's ledger audit (CONTRACT C6): per currency, the sum of every bucket of every wallet,
 * system wallets included, which is zero when money neither appeared nor vanished; and the number
 * of user-wallet buckets below zero, which is zero when no user wallet was overdrawn; and the number
 * of rows naming a missing transaction, wallet or currency (zero when sound). All are read
 * from SQL in one snapshot, so they describe one committed state.
 */
import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { ledgerSums, negativeUserBucketCount, orphanRowCount } from "../../../sql/LedgerRepo.ts"
import { fromMinorUnits } from "../../../schema/Money.ts"
import { makeDb } from "../../platform/db/Sql.ts"
import { Currencies } from "../../platform/Currencies.ts"

export interface LedgerAuditReport {
  /** One entry per catalogue currency; `total` is a decimal string in the currency's units ("0" when sound). */
  readonly sums: ReadonlyArray<{ readonly currency: string; readonly total: string }>
  readonly negativeUserBuckets: number
  readonly orphanRows: number
}

export class LedgerAudit extends Context.Service<
  LedgerAudit,
  {
    readonly audit: () => Effect.Effect<LedgerAuditReport>
  }
>()("core/LedgerAudit") {
  static readonly layer = Layer.effect(
    LedgerAudit,
    Effect.gen(function* () {
      const db = yield* makeDb
      const sql = yield* SqlClient.SqlClient
      const currencies = yield* Currencies
      // REPEATABLE READ: both queries see the same committed state.
      const snapshot = sql.withTransaction(
        Effect.gen(function* () {
          yield* sql`SET TRANSACTION ISOLATION LEVEL REPEATABLE READ`
          const sums = yield* ledgerSums
          const negative = yield* negativeUserBucketCount
          const orphans = yield* orphanRowCount
          return { sums, negative, orphans }
        })
      )
      return LedgerAudit.of({
        audit: () =>
          Effect.map(db(snapshot), ({ sums, negative, orphans }) => ({
            sums: sums.map((row) => ({
              currency: row.currency,
              total: fromMinorUnits(row.total, currencies.find(row.currency)?.decimals ?? 0)
            })),
            negativeUserBuckets: negative,
            orphanRows: orphans
          }))
      })
    })
  )
}
