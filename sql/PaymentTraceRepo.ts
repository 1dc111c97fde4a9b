/** A payment order's stored trace (sql/migrations/0037_payment_traces.sql): read only when traces are exported. */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { decodeFirst, record, Text } from "./Decoding.ts"

const first = decodeFirst(record({ traceParent: Text }))

/** The order's traceparent (undefined: created while tracing was off, or no such order). */
export const paymentTraceOf = (orderTxId: string | bigint) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(
      sql`SELECT trace_parent FROM payment_traces WHERE order_tx_id = ${orderTxId}`,
      (rows) => first(rows)?.traceParent
    )
  )
