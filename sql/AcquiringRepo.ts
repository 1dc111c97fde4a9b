/**
 * Card acquiring sessions (CONTRACT C16 "Built-in card acquiring"; docs/CARDS.md): reads of
 * acquiring_sessions (their writes are ledger rows, sql/rows/AcquiringRows.ts), the checkout URL the
 * acquirer gave a session, reconciliation's `checked_at`, and the acquirer webhook secret kept when
 * ACQUIRER_WEBHOOK_SECRET is unset.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { textArray } from "./ArrayLiterals.ts"
import {
  decodeAll,
  decodeFirst,
  decodeOne,
  Int8,
  MinorUnits,
  Nullable,
  OneOf,
  record,
  Text,
  Timestamp
} from "./Decoding.ts"

export const AcquiringSessionRow = record({
  acquiringId: Text,
  orderTxId: Int8,
  code: Nullable(Text),
  appId: Int8,
  terminalId: Int8,
  amount: MinorUnits,
  currency: Text,
  status: OneOf(["Pending", "Approved", "Declined", "Expired"]),
  checkoutUrl: Nullable(Text),
  createdAt: Timestamp,
  checkedAt: Nullable(Timestamp),
  decidedAt: Nullable(Timestamp),
  eventId: Nullable(Text)
})
export type AcquiringSessionRow = typeof AcquiringSessionRow.Type

const columns = `s.acquiring_id, s.order_tx_id, o.code, s.app_id, s.terminal_id, s.amount::text AS amount, s.currency,
  s.status, s.checkout_url, s.created_at, s.checked_at, s.decided_at, s.event_id`
const from = `acquiring_sessions s JOIN payment_orders o ON o.tx_id = s.order_tx_id`

const first = decodeFirst(AcquiringSessionRow)
const all = decodeAll(AcquiringSessionRow)

export const acquiringSessionById = (acquiringId: string) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(
      sql`SELECT ${sql.literal(columns)} FROM ${sql.literal(from)} WHERE s.acquiring_id = ${acquiringId}`,
      first
    )
  )

/** An order's sessions, oldest first (any status). */
export const acquiringSessionsOfOrder = (orderTxId: bigint) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(
      sql`SELECT ${sql.literal(columns)} FROM ${sql.literal(from)} WHERE s.order_tx_id = ${orderTxId}
        ORDER BY s.created_at, s.acquiring_id`,
      all
    )
  )

/** An order's latest session (OrderInfoOut.acquiring). */
export const latestAcquiringSession = (orderTxId: bigint) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(
      sql`SELECT ${sql.literal(columns)} FROM ${sql.literal(from)} WHERE s.order_tx_id = ${orderTxId}
        ORDER BY s.created_at DESC, s.acquiring_id DESC LIMIT 1`,
      first
    )
  )

/** The order's Pending session, if any. */
export const pendingSessionOfOrder = (orderTxId: bigint) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(
      sql`SELECT ${sql.literal(columns)} FROM ${sql.literal(from)}
        WHERE s.order_tx_id = ${orderTxId} AND s.status = 'Pending'`,
      first
    )
  )

/** Pending sessions created at or before `createdBefore`, oldest first (pending_acquiring_txs, reconciliation). */
export const pendingAcquiringSessions = (createdBefore: Date, limit: number) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(
      sql`SELECT ${sql.literal(columns)} FROM ${sql.literal(from)}
        WHERE s.status = 'Pending' AND s.created_at <= ${createdBefore}
        ORDER BY s.created_at, s.acquiring_id LIMIT ${limit}`,
      all
    )
  )

export const setCheckoutUrl = (acquiringId: string, checkoutUrl: string) =>
  SqlClient.SqlClient.use(
    (sql) => sql`UPDATE acquiring_sessions SET checkout_url = ${checkoutUrl} WHERE acquiring_id = ${acquiringId}`
  )

/** Reconciliation asked the acquirer about these sessions now. */
export const markSessionsChecked = (acquiringIds: ReadonlyArray<string>) =>
  SqlClient.SqlClient.use((sql) =>
    acquiringIds.length === 0
      ? Effect.void
      : Effect.asVoid(
          sql`UPDATE acquiring_sessions SET checked_at = now() WHERE acquiring_id = ANY (${textArray(acquiringIds)}::text[])`
        )
  )

const secretOf = decodeOne(record({ secret: Text }))

/** The stored webhook secret; `candidate` is stored first if there is none (generated once). */
export const storedAcquirerSecret = (candidate: string) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.gen(function* () {
      yield* sql`INSERT INTO acquirer_secrets (id, secret) VALUES (1, ${candidate}) ON CONFLICT (id) DO NOTHING`
      return secretOf(yield* sql`SELECT secret FROM acquirer_secrets WHERE id = 1`).secret
    })
  )
