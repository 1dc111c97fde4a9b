/**
 * The merchant's feed of its app's payment orders (CONTRACT C16 get_app_payments, wait_app_payment; C8):
 * PaymentOrderOut rows in update-tick order, each order once at its latest state, at most 100 a page.
 * The cursor is the last row's idUpdate, or with no rows the committed watermark of the same snapshot
 * (never below the request's): resuming from it skips no committed change and repeats none.
 *
 * The long-poll parks its waiter under its app (C19 §8: it wakes only when that app's feed moves). A
 * dispatcher fiber, poked by every new committed watermark (Feeds.onAdvance: in-process commits and
 * other processes' NOTIFY) and by every waiter that parks, asks SQL in one statement which parked
 * apps have a row past their waiter's cursor, and wakes only those; a woken waiter re-reads its page.
 * A poke that lands during a round makes another round, so no commit after a waiter's read goes unseen.
 */
import { Context, Deferred, Effect, Layer, Option } from "effect"
import { appPaymentsPageMax } from "../../../schema/api/PayordersApi.ts"
import type { TooManyWaiters } from "../../../schema/EdgeErrors.ts"
import type { RateLimited } from "../../../schema/Errors.ts"
import type { PaymentOrderOut } from "../../../schema/Payments.ts"
import { appFeedsMoved, paymentOrdersOfAppAfter } from "../../../sql/PaymentOrderRepo.ts"
import { makeDb } from "../../platform/db/Sql.ts"
import { Feeds, longPollMaxSeconds, type WaiterSlot } from "../ledger/Feeds.ts"
import { PaymentOrders } from "./PaymentOrders.ts"

export interface FeedPage {
  readonly rows: ReadonlyArray<PaymentOrderOut>
  readonly cursor: string
}

interface Waiter {
  /** The cursor its last read was past. */
  readonly from: bigint
  readonly done: Deferred.Deferred<void>
  readonly slot: WaiterSlot
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
    ) => Effect.Effect<FeedPage & { readonly moved: boolean }, RateLimited | TooManyWaiters>
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

      const parked = new Map<string, Set<Waiter>>()
      let poked = Deferred.makeUnsafe<void>()
      const poke = () => Deferred.doneUnsafe(poked, Effect.void)
      yield* feeds.onAdvance(() => {
        if (parked.size > 0) poke()
      })

      /** One round: the parked apps' cursors checked in one statement, the moved apps' waiters woken. */
      const round = Effect.gen(function* () {
        yield* Deferred.await(poked)
        poked = Deferred.makeUnsafe<void>()
        if (parked.size === 0) return
        const apps: Array<bigint> = []
        const afters: Array<bigint> = []
        for (const [app, waiters] of parked) {
          let after: bigint | undefined
          for (const waiter of waiters) if (after === undefined || waiter.from < after) after = waiter.from
          apps.push(BigInt(app))
          afters.push(after!)
        }
        for (const app of yield* db(appFeedsMoved(apps, afters))) {
          for (const waiter of parked.get(String(app)) ?? []) {
            if (Deferred.doneUnsafe(waiter.done, Effect.void)) waiter.slot.woke()
          }
        }
      }).pipe(
        // SQL that does not answer: waiters still end by their timeout; the next poke tries again.
        Effect.catchCause((cause) =>
          Effect.andThen(
            Effect.logWarning("merchant feed dispatch failed", cause),
            Effect.sync(() => void poke())
          )
        )
      )
      yield* Effect.forkScoped(Effect.forever(round))

      /** Parks until the dispatcher finds a row of `appId` past `from`, or `timeoutMs` passes. */
      const park = (appId: string, from: bigint, timeoutMs: number) =>
        Effect.gen(function* () {
          const slot = yield* feeds.admit("merchant")
          const waiter: Waiter = { from, done: Deferred.makeUnsafe<void>(), slot }
          let waiters = parked.get(appId)
          if (waiters === undefined) parked.set(appId, (waiters = new Set()))
          waiters.add(waiter)
          const own = waiters
          // A commit between the waiter's read and now was announced before it parked: check at once.
          poke()
          yield* Deferred.await(waiter.done).pipe(
            Effect.timeoutOption(timeoutMs),
            Effect.ensuring(
              Effect.sync(() => {
                own.delete(waiter)
                if (own.size === 0 && parked.get(appId) === own) parked.delete(appId)
              })
            ),
            Effect.ensuring(slot.release),
            Effect.asVoid
          )
        })

      const wait = Effect.fnUntraced(function* (appId: string, cursor: string | undefined, timeoutSeconds: number) {
        const from = BigInt(cursor ?? "0")
        const waitMs = Math.min(Math.max(0, timeoutSeconds), longPollMaxSeconds) * 1000
        const deadline = Date.now() + waitMs
        for (;;) {
          const { page } = yield* read(appId, from)
          if (page.rows.length > 0) return { ...page, moved: true }
          const left = deadline - Date.now()
          if (left <= 0) return { ...page, moved: false }
          yield* park(appId, from, left)
        }
      })

      return MerchantFeed.of({ page, wait })
    })
  )
}
