/**
 * The sandbox acquirer's own table (sandbox_acquirer_payments), as if it were the provider's database:
 * only src/services/payments/acquiring/SandboxAcquirer.ts reads or writes it.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { decodeFirst, Nullable, OneOf, record, Text, Timestamp } from "./Decoding.ts"

export const SandboxPaymentRow = record({
  acquiringId: Text,
  amount: Text,
  currency: Text,
  description: Nullable(Text),
  successUrl: Text,
  failUrl: Text,
  expiresAt: Timestamp,
  status: OneOf(["Pending", "Approved", "Declined", "Expired"]),
  eventId: Nullable(Text)
})
export type SandboxPaymentRow = typeof SandboxPaymentRow.Type

const first = decodeFirst(SandboxPaymentRow)
const columns = `acquiring_id, amount, currency, description, success_url, fail_url, expires_at, status, event_id`

/** Opens a payment (a repeat of the same id keeps the first). */
export const insertSandboxPayment = (p: {
  readonly acquiringId: string
  readonly amount: string
  readonly currency: string
  readonly description: string | null
  readonly successUrl: string
  readonly failUrl: string
  readonly expiresAt: Date
}) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.asVoid(
      sql`INSERT INTO sandbox_acquirer_payments (acquiring_id, amount, currency, description, success_url, fail_url, expires_at)
        VALUES (${p.acquiringId}, ${p.amount}, ${p.currency}, ${p.description}, ${p.successUrl}, ${p.failUrl}, ${p.expiresAt})
        ON CONFLICT (acquiring_id) DO NOTHING`
    )
  )

export const sandboxPaymentById = (acquiringId: string) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(
      sql`SELECT ${sql.literal(columns)} FROM sandbox_acquirer_payments WHERE acquiring_id = ${acquiringId}`,
      first
    )
  )

/** Decides a Pending, unexpired payment once; undefined when it was not (decided meanwhile, or expired). */
export const decideSandboxPayment = (
  acquiringId: string,
  status: "Approved" | "Declined",
  last4: string,
  eventId: string
) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(
      sql`UPDATE sandbox_acquirer_payments SET status = ${status}, card_last4 = ${last4}, event_id = ${eventId},
          decided_at = now()
        WHERE acquiring_id = ${acquiringId} AND status = 'Pending' AND expires_at > now()
        RETURNING ${sql.literal(columns)}`,
      first
    )
  )

/**
 * Closes a payment for good: a Pending one becomes Expired (no card is taken after this), a decided one
 * keeps its outcome. Answers the final status, undefined for an unknown id. Two statements, so the read
 * after a lost update sees the decision that won (a decide racing this either commits first — and is
 * answered — or finds the row Expired and refuses the card).
 */
export const closeSandboxPayment = (acquiringId: string) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.gen(function* () {
      const closed = yield* sql`UPDATE sandbox_acquirer_payments SET status = 'Expired', decided_at = now()
        WHERE acquiring_id = ${acquiringId} AND status = 'Pending'
        RETURNING ${sql.literal(columns)}`
      if (closed.length > 0) return first(closed)?.status
      return first(
        yield* sql`SELECT ${sql.literal(columns)} FROM sandbox_acquirer_payments WHERE acquiring_id = ${acquiringId}`
      )?.status
    })
  )
