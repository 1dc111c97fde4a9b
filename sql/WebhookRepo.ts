/**
 * Merchant webhook events and their delivery attempts (CONTRACT C16 "Merchant webhooks (outbound)";
 * migration 0026, docs/WEBHOOKS.md). Events are born by the triggers of migration 0026 in the commit of
 * the transition; here they are read, rendered once from their snapshot, claimed attempt by attempt and
 * settled.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { decodeAll, decodeFirst, Int, Int8, Nullable, OneOf, record, Text, Timestamp } from "./Decoding.ts"
import { columns as orderColumns, PaymentOrderRow } from "./PaymentOrderRepo.ts"
import { columns as refundColumns, PaymentRefundRow } from "./PaymentRefundRepo.ts"

export const WebhookEventRow = record({
  eventId: Text,
  appId: Int8,
  orderTxId: Int8,
  objectType: OneOf(["PaymentOrder", "TransferOrder", "Refund"]),
  stateCode: Int,
  url: Text,
  body: Nullable(Text),
  state: OneOf(["Pending", "Delivered", "Failed"]),
  attempts: Int,
  budgetBase: Int,
  nextAttemptAt: Nullable(Timestamp),
  createdAt: Timestamp
})
export type WebhookEventRow = typeof WebhookEventRow.Type

export const WebhookAttemptRow = record({
  eventId: Text,
  attempt: Int,
  at: Timestamp,
  httpStatus: Nullable(Int),
  error: Nullable(Text),
  durationMs: Int
})
export type WebhookAttemptRow = typeof WebhookAttemptRow.Type

const eventColumns = `event_id, app_id, order_tx_id, object_type, state_code::int AS state_code, url, body, state, attempts, budget_base,
  next_attempt_at, created_at`

const firstEvent = decodeFirst(WebhookEventRow)
const allEvents = decodeAll(WebhookEventRow)
const allAttempts = decodeAll(WebhookAttemptRow)
const ids = decodeAll(record({ eventId: Text }))

/** Pending events due now, the most overdue first (the partial index webhook_events_due). */
export const dueEventIds = (limit: number) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(
      sql`SELECT event_id FROM webhook_events WHERE state = 'Pending' AND next_attempt_at <= now()
        ORDER BY next_attempt_at LIMIT ${limit}`,
      (rows) => ids(rows).map((row) => row.eventId)
    )
  )

export const eventById = (eventId: string) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(sql`SELECT ${sql.literal(eventColumns)} FROM webhook_events WHERE event_id = ${eventId}`, firstEvent)
  )

/**
 * Claims attempt `attempt` of a due Pending event: only from attempts = attempt − 1, so of two
 * processes one sends it. It is due again `leaseSeconds` later (database time) should this process die
 * mid-attempt.
 */
export const claimAttempt = (eventId: string, attempt: number, leaseSeconds: number) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(
      sql`UPDATE webhook_events SET attempts = ${attempt}, next_attempt_at = now() + make_interval(secs => ${leaseSeconds})
        WHERE event_id = ${eventId} AND attempts = ${attempt - 1} AND state = 'Pending' AND next_attempt_at <= now()
        RETURNING event_id`,
      (rows) => rows.length === 1
    )
  )

/**
 * The order as of the event's state, from the event's snapshot (never the live row): the snapshot
 * populates a payment_orders record; the transaction's state (`txState`, the caller's: the engine's for
 * that state) and tick are the event's own.
 */
export const orderOfEvent = (eventId: string, txState: number) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(
      sql`SELECT ${sql.literal(orderColumns)} FROM webhook_events e
        CROSS JOIN LATERAL jsonb_populate_record(NULL::payment_orders, e.snapshot) o
        JOIN LATERAL (SELECT tr.id, tr.type_tx, ${txState}::int AS tx_state, e.id_update FROM transactions tr
          WHERE tr.id = o.tx_id) t ON true
        LEFT JOIN terminals tm ON tm.id = o.terminal_id LEFT JOIN apps a ON a.id = o.app_id
        LEFT JOIN wallets mw ON mw.id = o.merchant_wallet
        WHERE e.event_id = ${eventId}`,
      decodeFirst(PaymentOrderRow)
    )
  )

/** The refund as of the event's state, from the event's snapshot (a refund's txState is its state code). */
export const refundOfEvent = (eventId: string) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(
      sql`SELECT ${sql.literal(refundColumns)} FROM webhook_events e
        CROSS JOIN LATERAL jsonb_populate_record(NULL::payment_refunds, e.snapshot) r
        JOIN LATERAL (SELECT e.state_code::int AS tx_state, e.id_update) t ON true
        JOIN payment_orders o ON o.tx_id = r.order_tx_id
        WHERE e.event_id = ${eventId}`,
      decodeFirst(PaymentRefundRow)
    )
  )

const bodyOf = decodeFirst(record({ body: Nullable(Text) }))

/** Stores the rendered body unless one is stored already, and answers the stored one (rendered once). */
export const storeBody = (eventId: string, body: string) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(
      sql`WITH up AS (UPDATE webhook_events SET body = ${body} WHERE event_id = ${eventId} AND body IS NULL RETURNING body)
        SELECT coalesce((SELECT body FROM up), (SELECT body FROM webhook_events WHERE event_id = ${eventId})) AS body`,
      (rows) => bodyOf(rows)?.body ?? null
    )
  )

/**
 * One attempt's outcome: its history row, and the event's next state (Pending due `retrySeconds` from
 * now, database time; Delivered or Failed with none) if it still holds that attempt in the same budget
 * (a redeliver_webhook meanwhile keeps its fresh budget).
 */
export const settleAttempt = (
  attempt: WebhookAttemptRow,
  budgetBase: number,
  state: "Pending" | "Delivered" | "Failed",
  retrySeconds: number | null
) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.gen(function* () {
      yield* sql`INSERT INTO webhook_attempts (event_id, attempt, at, http_status, error, duration_ms)
        VALUES (${attempt.eventId}, ${attempt.attempt}, ${attempt.at}, ${attempt.httpStatus}, ${attempt.error},
          ${attempt.durationMs})
        ON CONFLICT DO NOTHING`
      yield* sql`UPDATE webhook_events SET state = ${state},
          next_attempt_at = CASE WHEN ${state} = 'Pending' THEN clock_timestamp() + make_interval(secs => ${retrySeconds ?? 0}) END
        WHERE event_id = ${attempt.eventId} AND attempts = ${attempt.attempt} AND budget_base = ${budgetBase}
          AND state = 'Pending'`
    })
  )

const secretOf = decodeFirst(record({ webhookSecret: Nullable(Text) }))

export const appWebhookSecret = (appId: bigint | string) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(
      sql`SELECT webhook_secret FROM apps WHERE id = ${appId}`,
      (rows) => secretOf(rows)?.webhookSecret ?? null
    )
  )

/** Sets an app's URL and, with `secret`, a new secret; false: no such app. */
export const setAppWebhook = (appId: string, url: string | null, secret: string | null) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(
      sql`UPDATE apps SET webhook_url = ${url}, webhook_secret = coalesce(${secret}::text, webhook_secret)
        WHERE id = ${appId} RETURNING id`,
      (rows) => rows.length === 1
    )
  )

/** An order's and its refunds' events, newest first, with every attempt of each. */
export const deliveriesOfOrder = (orderTxId: string | bigint) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.gen(function* () {
      const events = allEvents(
        yield* sql`SELECT ${sql.literal(eventColumns)} FROM webhook_events WHERE order_tx_id = ${orderTxId}
          ORDER BY seq DESC`
      )
      const attempts = allAttempts(
        yield* sql`SELECT a.event_id, a.attempt, a.at, a.http_status, a.error, a.duration_ms FROM webhook_attempts a
          JOIN webhook_events e ON e.event_id = a.event_id WHERE e.order_tx_id = ${orderTxId} ORDER BY a.attempt`
      )
      return { events, attempts }
    })
  )

export const attemptsOfEvent = (eventId: string) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(
      sql`SELECT event_id, attempt, at, http_status, error, duration_ms FROM webhook_attempts
        WHERE event_id = ${eventId} ORDER BY attempt`,
      allAttempts
    )
  )

/** redeliver_webhook: Pending again, due now, with a fresh budget; false: no such event of this app. */
export const redeliverEvent = (eventId: string, appId: string) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(
      sql`UPDATE webhook_events SET state = 'Pending', budget_base = attempts, next_attempt_at = now()
        WHERE event_id = ${eventId} AND app_id = ${appId}::bigint RETURNING event_id`,
      (rows) => rows.length === 1
    )
  )
