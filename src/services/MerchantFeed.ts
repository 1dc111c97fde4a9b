/**
 * The merchant's feed of its app's payment orders (CONTRACT C16 get_app_payments, wait_app_payment; C8):
 * PaymentOrderOut rows in update-tick order, each order once at its latest state, at most 100 a page.
 * The cursor is the last row's idUpdate, or with no rows the committed watermark of the same snapshot
 * (never below the request's): resuming from it skips no committed change and repeats none. The
 * long-poll waits on the journal watermark (Feeds: in-process commits and other processes' NOTIFY) and
 * re-reads SQL, the authority, whenever it moves.
 */
import { Context, Effect, Layer } from "effect"
import { appPaymentsPageMax } from "../../schema/api/PayordersApi.ts"
import type { RateLimited } from "../../schema/Errors.ts"
import type { PaymentOrderOut } from "../../schema/Payments.ts"
import { paymentOrdersOfAppAfter } from "../../sql/PaymentOrderRepo.ts"
import { makeDb } from "../platform/db/Sql.ts"
import { Feeds, longPollMaxSeconds } from "./Feeds.ts"
import { PaymentOrders } from "./PaymentOrders.ts"

export interface FeedPage {
  readonly rows: ReadonlyArray<PaymentOrderOut>
  readonly cursor: string
}

export class MerchantFeed extends Context.Service<
  MerchantFeed,
  {
    readonly page: (appId: string, cursor: string | undefined) => Effect.Effect<FeedPage>
    /** The next page as soon as it has rows (`moved`), else an empty one after `timeoutSeconds` (capped at 45). */
    readonly wait: (
      appId: string,
      cursor: string | undefined,
      timeoutSeconds: number
    ) => Effect.Effect<FeedPage & { readonly moved: boolean }, RateLimited>
  }
>()("core/MerchantFeed") {
  static readonly layer = Layer.effect(
    MerchantFeed,
    Effect.gen(function* () {
      const db = yield* makeDb
      const orders = yield* PaymentOrders
      const feeds = yield* Feeds

      /** One snapshot: the rows after `from` and the watermark they were read at. */
      const read = (appId: string, from: bigint) =>
        Effect.map(db(paymentOrdersOfAppAfter(appId, String(from), appPaymentsPageMax)), ({ rows, watermark }) => ({
          watermark,
          page: {
            rows: rows.map(orders.toOut),
            cursor:
              rows.length > 0 ? String(rows[rows.length - 1].idUpdate) : String(watermark > from ? watermark : from)
          }
        }))

      const page = (appId: string, cursor: string | undefined) =>
        Effect.map(read(appId, BigInt(cursor ?? "0")), (snapshot) => snapshot.page)

      const wait = Effect.fnUntraced(function* (appId: string, cursor: string | undefined, timeoutSeconds: number) {
        const from = BigInt(cursor ?? "0")
        const waitMs = Math.min(Math.max(0, timeoutSeconds), longPollMaxSeconds) * 1000
        const deadline = Date.now() + waitMs
        for (;;) {
          const { page, watermark } = yield* read(appId, from)
          if (page.rows.length > 0) return { ...page, moved: true }
          const left = deadline - Date.now()
          if (left <= 0) return { ...page, moved: false }
          // Past the snapshot's watermark: a commit after the empty read ends the wait at once.
          yield* feeds.waitBeyond("merchant", watermark, left)
        }
      })

      return MerchantFeed.of({ page, wait })
    })
  )
}
