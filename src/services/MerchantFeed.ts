/** The merchant's feed of its app's payment rows (get_app_payments), a page and its cursor. */
import { Context, Effect, Layer } from "effect"
import { appPaymentsPageMax } from "../../schema/api/PayordersApi.ts"
import { fromMinorUnits } from "../../schema/Money.ts"
import { txStateName } from "../../schema/Transfer.ts"
import { committedWatermark } from "../../sql/JournalRepo.ts"
import { appPayments } from "../../sql/LedgerRepo.ts"
import { Currencies } from "../platform/Currencies.ts"
import { makeDb } from "../platform/db/Sql.ts"

export interface AppPaymentRow {
  readonly id: string
  readonly idUpdate: string
  readonly typeTx: number
  readonly txState: number
  readonly state: string
  readonly currency: string
  readonly amount: number
  readonly fee: number
  readonly tag: string | null
  readonly dateTxUTC: string
}

export class MerchantFeed extends Context.Service<
  MerchantFeed,
  {
    readonly page: (
      appId: string,
      cursor: string | undefined
    ) => Effect.Effect<{ readonly rows: ReadonlyArray<AppPaymentRow>; readonly cursor: string }>
  }
>()("core/MerchantFeed") {
  static readonly layer = Layer.effect(
    MerchantFeed,
    Effect.gen(function* () {
      const db = yield* makeDb
      const currencies = yield* Currencies
      const page = Effect.fnUntraced(function* (appId: string, after: string | undefined) {
        const from = BigInt(after ?? "0")
        const watermark = yield* db(committedWatermark)
        const rows = yield* db(appPayments(appId, String(from), appPaymentsPageMax))
        // A full page continues after its last row; a short one is the end, so the cursor is the watermark.
        const cursor =
          rows.length > 0 ? String(rows[rows.length - 1].idUpdate) : String(from > watermark ? from : watermark)
        return {
          cursor,
          rows: rows.map((row) => {
            const decimals = currencies.find(row.currency)?.decimals ?? 0
            return {
              id: String(row.id),
              idUpdate: String(row.idUpdate),
              typeTx: row.typeTx,
              txState: row.txState,
              state: txStateName(row.txState),
              currency: row.currency,
              amount: Number(fromMinorUnits(row.amount, decimals)),
              fee: Number(fromMinorUnits(row.fee, decimals)),
              tag: row.tag,
              dateTxUTC: row.createdAt.toISOString()
            }
          })
        }
      })
      return MerchantFeed.of({ page })
    })
  )
}
