/**
 * One payment, one trace (src/platform/Tracing.ts): the order's Create opens `payment.create` and keeps its
 * traceparent in the same commit (row kind `payment_trace`); every later message of the order opens
 * `payment.<step>` under it, linked to the request or job span that sent the message. The actor reads the stored
 * trace once per activation. With tracing off, nothing is read, written or opened.
 */
import { Effect } from "effect"
import { type KindRows, rowsOf } from "../../sql/Ledger.ts"
import { paymentTraceOf } from "../../sql/PaymentTraceRepo.ts"
import { PaymentTraces } from "../../sql/rows/PaymentTraceRows.ts"
import type { Db } from "../../src/platform/db/Sql.ts"
import { exportedSpan, inStoredTrace, traceparentOf, tracingOn } from "../../src/platform/Tracing.ts"

export const makeOrderTrace = (txId: bigint, db: Db) => {
  const attributes = { "payment.order_tx_id": String(txId) }
  /** The order's traceparent; null once read and absent (an order created while tracing was off): read once. */
  let stored: string | null | undefined

  /** The creation commit's body, given the rows that keep its trace (none when tracing is off). */
  const create = <A, E, R>(body: (rows: ReadonlyArray<KindRows>) => Effect.Effect<A, E, R>) =>
    Effect.flatMap(tracingOn, (on) =>
      !on
        ? body([])
        : Effect.withSpan(
            Effect.flatMap(exportedSpan, (span) => {
              if (span === undefined) return body([])
              stored = traceparentOf(span)
              return body([rowsOf(PaymentTraces, [{ orderTxId: txId, traceParent: stored }])])
            }),
            "payment.create",
            { attributes }
          )
    )

  /** A later message of the order, in the order's trace. */
  const step =
    (name: string) =>
    <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
      Effect.flatMap(tracingOn, (on) => {
        if (!on) return effect
        const known = stored !== undefined ? Effect.succeed(stored) : db(paymentTraceOf(txId))
        return Effect.flatMap(known, (traceParent) => {
          stored = traceParent ?? null
          return inStoredTrace(`payment.${name}`, stored ?? undefined, attributes)(effect)
        })
      })

  return { create, step }
}
