/** Payment orders (CONTRACT C16): an order with its transaction's state and update tick, by id, code or (app, externalId). */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { numberArray } from "./ArrayLiterals.ts"
import {
  Bool,
  decodeAll,
  decodeFirst,
  decodeOne,
  Int,
  Int8,
  MinorUnits,
  Nullable,
  OneOf,
  record,
  Text,
  Timestamp
} from "./Decoding.ts"

export const PaymentOrderRow = record({
  txId: Int8,
  appId: Int8,
  externalId: Text,
  requestHash: Text,
  kind: OneOf(["PaymentOrder", "TransferOrder"]),
  code: Nullable(Text),
  merchantWallet: Int8,
  stateCode: Int,
  currency: Text,
  orderAmount: MinorUnits,
  terminalId: Nullable(Int8),
  typeNetwork: Nullable(Int),
  method: Nullable(Text),
  payCurrency: Nullable(Text),
  payAmount: Nullable(MinorUnits),
  fee: MinorUnits,
  profitWallet: Int8,
  rate: Nullable(Text),
  spreadPct: Nullable(Text),
  expiresAt: Timestamp,
  paidAt: Nullable(Timestamp),
  paidAmount: MinorUnits,
  refundedAmount: MinorUnits,
  payerWalletId: Nullable(Int8),
  pendingRefunds: MinorUnits,
  refundCount: Int,
  cardSessionPending: Bool,
  incomeSeen: MinorUnits,
  incomeFinal: MinorUnits,
  recipient: Nullable(Text),
  meta: Nullable(Text),
  version: Int8,
  description: Nullable(Text),
  returnUrlSuccess: Nullable(Text),
  returnUrlFail: Nullable(Text),
  webhookUrl: Nullable(Text),
  createdAt: Timestamp,
  typeTx: Int,
  txState: Int,
  idUpdate: Int8,
  appName: Nullable(Text),
  /** The merchant's preselection (sql/migrations/0018_payment_presets.sql); null: none. */
  presetTerminalId: Nullable(Int8),
  presetPayCurrency: Nullable(Text),
  presetPayAmount: Nullable(MinorUnits),
  /** The merchant wallet's group (its tariffs price the order's offers). */
  merchantGroup: Int,
  /** Its merchant app is enabled (C19 §5: a disabled app's orders are not started or paid, 10411). */
  appEnabled: Bool
})
export type PaymentOrderRow = typeof PaymentOrderRow.Type

const first = decodeFirst(PaymentOrderRow)

/** The select list of a PaymentOrderRow over `o` (payment_orders), `t` (its transaction) and the joins of `from`. */
export const columns = `o.tx_id, o.app_id, o.external_id, o.request_hash, o.kind, o.code, o.merchant_wallet, o.state_code::int AS state_code,
  o.currency, o.order_amount::text AS order_amount, o.terminal_id, tm.type_network, o.method, o.pay_currency,
  o.pay_amount::text AS pay_amount, o.fee::text AS fee, o.profit_wallet, o.rate, o.spread_pct, o.expires_at, o.paid_at,
  o.paid_amount::text AS paid_amount, o.refunded_amount::text AS refunded_amount, o.payer_wallet_id,
  o.pending_refunds::text AS pending_refunds, o.refund_count, o.card_session_pending, o.income_seen::text AS income_seen,
  o.income_final::text AS income_final, o.recipient, o.meta::text AS meta, o.version, o.description,
  o.return_url_success, o.return_url_fail, o.webhook_url, o.created_at, t.type_tx, t.tx_state, t.id_update, a.name AS app_name,
  o.preset_terminal_id, o.preset_pay_currency, o.preset_pay_amount::text AS preset_pay_amount,
  coalesce(mw.wallet_group, 0) AS merchant_group, coalesce(a.enabled, true) AS app_enabled`

const from = `payment_orders o JOIN transactions t ON t.id = o.tx_id LEFT JOIN terminals tm ON tm.id = o.terminal_id
  LEFT JOIN apps a ON a.id = o.app_id LEFT JOIN wallets mw ON mw.id = o.merchant_wallet`

export const paymentOrderByTx = (txId: string | bigint) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(sql`SELECT ${sql.literal(columns)} FROM ${sql.literal(from)} WHERE o.tx_id = ${txId}`, first)
  )

export const paymentOrderByCodeHash = (codeHash: Uint8Array) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(sql`SELECT ${sql.literal(columns)} FROM ${sql.literal(from)} WHERE o.code_hash = ${codeHash}`, first)
  )

export const paymentOrderByExternalId = (appId: string | bigint, externalId: string) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(
      sql`SELECT ${sql.literal(columns)} FROM ${sql.literal(from)} WHERE o.app_id = ${appId} AND o.external_id = ${externalId}`,
      first
    )
  )

const all = decodeAll(PaymentOrderRow)
const watermarkOf = decodeOne(record({ watermark: Int8 }))

/**
 * The merchant feed (get_app_payments, wait_app_payment): an app's orders whose transaction's update
 * tick is after `after`, oldest change first, and the committed watermark read in the same statement,
 * so in one snapshot (ticks are allocated in commit order: every tick at or below it is visible here).
 * An order's transaction takes a new tick with every change of the order, so an order is one row at
 * its latest state. Uses transactions_app (app_id, id_update).
 */
export const paymentOrdersOfAppAfter = (appId: string, after: string, limit: number) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(
      sql`SELECT c.tick AS watermark, j.* FROM journal_clock c
      LEFT JOIN LATERAL (SELECT ${sql.literal(columns)} FROM ${sql.literal(from)}
        WHERE t.app_id = ${appId}::bigint AND t.id_update > ${after}::bigint AND t.type_tx IN (20, 21)
          AND o.app_id = ${appId}::bigint
        ORDER BY t.id_update LIMIT ${limit}) j ON true
      ORDER BY j.id_update`,
      (rows) => ({
        watermark: rows.length > 0 ? watermarkOf(rows).watermark : 0n,
        rows: all(rows.filter((row) => row.tx_id !== null))
      })
    )
  )

const movedApps = decodeAll(record({ appId: Int8 }))

/**
 * Of the apps with a parked merchant long-poll (each with the cursor its waiter is past), the ones whose
 * feed has a row after that cursor (C19 §8: a waiter wakes only when its own app's feed moves). One
 * statement for every parked app; each app is one probe of transactions_app (app_id, id_update) that
 * stops at the first row.
 */
export const appFeedsMoved = (apps: ReadonlyArray<bigint>, afters: ReadonlyArray<bigint>) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(
      sql`SELECT w.app_id FROM unnest(${numberArray(apps)}::bigint[], ${numberArray(afters)}::bigint[]) AS w(app_id, after)
      WHERE EXISTS (SELECT 1 FROM transactions t
        WHERE t.app_id = w.app_id AND t.id_update > w.after AND t.type_tx IN (20, 21))`,
      (rows) => movedApps(rows).map((row) => row.appId)
    )
  )

/**
 * Orders past expiresAt still Created or Started, or Processing underpaid with nothing in flight (the
 * engine's isDue; the actor decides), oldest first: what the expiry sweeper asks to expire. Each half
 * reads its own partial index (migrations 0024, 0030).
 */
const dueIds = decodeAll(record({ txId: Int8 }))

export const dueOrderIds = (now: Date, limit: number) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(
      sql`SELECT tx_id FROM (
          (SELECT tx_id, expires_at FROM payment_orders WHERE state_code IN (1, 2) AND expires_at < ${now}
            ORDER BY expires_at LIMIT ${limit})
          UNION ALL
          (SELECT tx_id, expires_at FROM payment_orders
            WHERE state_code = 3 AND income_seen = 0 AND income_final > 0 AND expires_at < ${now}
            ORDER BY expires_at LIMIT ${limit})
        ) due ORDER BY expires_at LIMIT ${limit}`,
      (rows) => dueIds(rows).map((row) => row.txId)
    )
  )
