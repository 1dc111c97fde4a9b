/**
 * Federation's SQL (CONTRACT C18, migrations 0028 and 0031): partner records and the links of our
 * federation transactions to the partner's orders. The transaction's state (table transactions) is the
 * truth of an outcome; these rows only say where to look. A partner order's and a federation_credit's
 * link is written by its FederationCredit's own ledger commit (sql/rows/FederationRows.ts); a partner
 * transfer's by `insertLink`, before the wallet actor's reservation.
 */
import { Effect } from "effect"
import { SystemWallet } from "./Ledger.ts"
import { SqlClient } from "effect/sql"
import { textArray } from "./ArrayLiterals.ts"
import {
  ArrayOf,
  Bool,
  decodeAll,
  decodeFirst,
  Int,
  Int8,
  MinorUnits,
  Nullable,
  record,
  Text,
  Timestamp
} from "./Decoding.ts"

export const PartnerRow = record({
  partnerId: Text,
  name: Text,
  baseUrl: Text,
  outboundAppId: Int8,
  outboundPkey: Text,
  webhookSecret: Text,
  capabilities: ArrayOf(Text),
  currencies: Nullable(ArrayOf(Text)),
  enabled: Bool,
  createdAt: Timestamp,
  updatedAt: Timestamp
})
export type PartnerRow = typeof PartnerRow.Type

const partnerColumns = `partner_id, name, base_url, outbound_app_id, outbound_pkey, webhook_secret, capabilities, currencies,
  enabled, created_at, updated_at`
const firstPartner = decodeFirst(PartnerRow)
const allPartners = decodeAll(PartnerRow)

export interface PartnerInsert {
  readonly partnerId: string
  readonly name: string
  readonly baseUrl: string
  readonly outboundAppId: bigint
  readonly outboundPkey: string
  readonly webhookSecret: string
  readonly capabilities: ReadonlyArray<string>
  readonly currencies: ReadonlyArray<string> | null
  readonly enabled: boolean
}

/** Creates or wholly replaces a partner (createdAt kept); `replaced` says which. */
export const upsertPartner = (p: PartnerInsert) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(
      sql`INSERT INTO federation_partners (partner_id, name, base_url, outbound_app_id, outbound_pkey, webhook_secret,
          capabilities, currencies, enabled)
        VALUES (${p.partnerId}, ${p.name}, ${p.baseUrl}, ${String(p.outboundAppId)}, ${p.outboundPkey}, ${p.webhookSecret},
          ${textArray(p.capabilities)}::text[], ${p.currencies === null ? null : textArray(p.currencies)}::text[], ${p.enabled})
        ON CONFLICT (partner_id) DO UPDATE SET name = EXCLUDED.name, base_url = EXCLUDED.base_url,
          outbound_app_id = EXCLUDED.outbound_app_id, outbound_pkey = EXCLUDED.outbound_pkey,
          webhook_secret = EXCLUDED.webhook_secret, capabilities = EXCLUDED.capabilities,
          currencies = EXCLUDED.currencies, enabled = EXCLUDED.enabled, updated_at = now()
        RETURNING ${sql.literal(partnerColumns)}, (xmax <> 0) AS replaced`,
      (rows) => ({ row: firstPartner(rows)!, replaced: (rows[0] as any).replaced === true })
    )
  )

export const partnerById = (partnerId: string) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(
      sql`SELECT ${sql.literal(partnerColumns)} FROM federation_partners WHERE partner_id = ${partnerId}`,
      firstPartner
    )
  )

/** Enabled partners with the Federation capability, by partnerId in byte order. */
export const listedPartners = SqlClient.SqlClient.use((sql) =>
  Effect.map(
    sql`SELECT ${sql.literal(partnerColumns)} FROM federation_partners
      WHERE enabled AND 'Federation' = ANY (capabilities) ORDER BY partner_id COLLATE "C"`,
    allPartners
  )
)

export const LinkRow = record({
  txId: Int8,
  partnerId: Text,
  kind: Int,
  remoteId: Nullable(Text),
  remoteCode: Nullable(Text),
  payUrl: Nullable(Text),
  expiresAt: Nullable(Timestamp),
  walletId: Int8,
  currency: Text,
  amount: MinorUnits,
  fee: MinorUnits,
  profitWallet: Nullable(Int8),
  tag: Nullable(Text),
  recipient: Nullable(Text),
  createdAt: Timestamp,
  /** The transaction's state (null: its commit never happened). */
  txState: Nullable(Int)
})
export type LinkRow = typeof LinkRow.Type

const linkSelect = `SELECT l.tx_id, l.partner_id, l.kind::int AS kind, l.remote_id, l.remote_code, l.pay_url, l.expires_at,
  l.wallet_id, l.currency, l.amount::text AS amount, l.fee::text AS fee, l.profit_wallet, l.tag, l.recipient, l.created_at, t.tx_state::int AS tx_state
  FROM federation_links l LEFT JOIN transactions t ON t.id = l.tx_id`
const firstLink = decodeFirst(LinkRow)
const allLinks = decodeAll(LinkRow)

export interface LinkInsert {
  readonly txId: bigint
  readonly partnerId: string
  readonly kind: 1 | 2 | 3
  readonly remoteId: string | null
  readonly remoteCode: string | null
  readonly payUrl: string | null
  readonly expiresAt: Date | null
  readonly walletId: bigint
  readonly currency: string
  readonly amount: bigint
  readonly fee: bigint
  readonly profitWallet: bigint | null
  readonly tag: string | null
  readonly recipient: string | null
}

/** Inserts a partner transfer's link (it has no remote id yet); false when (partnerId, remoteId) is taken already. */
export const insertLink = (l: LinkInsert) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(
      sql`INSERT INTO federation_links (tx_id, partner_id, kind, remote_id, remote_code, pay_url, expires_at, wallet_id,
          currency, amount, fee, profit_wallet, tag, recipient)
        VALUES (${String(l.txId)}, ${l.partnerId}, ${l.kind}, ${l.remoteId}, ${l.remoteCode}, ${l.payUrl}, ${l.expiresAt},
          ${String(l.walletId)}, ${l.currency}, ${String(l.amount)}, ${String(l.fee)}, ${l.profitWallet === null ? null : String(l.profitWallet)}, ${l.tag}, ${l.recipient})
        ON CONFLICT DO NOTHING RETURNING tx_id`,
      (rows) => rows.length === 1
    )
  )

/** A partner transfer's link learns the partner's order once put_transfer_order answered. */
export const setLinkRemote = (txId: bigint, remoteId: string) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.asVoid(sql`UPDATE federation_links SET remote_id = ${remoteId} WHERE tx_id = ${String(txId)}`)
  )

export const linkByTx = (txId: bigint) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(sql`${sql.literal(linkSelect)} WHERE l.tx_id = ${String(txId)}`, firstLink)
  )

export const linkByRemote = (partnerId: string, remoteId: string) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(
      sql`${sql.literal(linkSelect)} WHERE l.partner_id = ${partnerId} AND l.remote_id = ${remoteId}`,
      firstLink
    )
  )

const waitingOf = (kind: 1 | 3) => (kind === 1 ? 1 : 3)

/** The partners that have partner orders still Created (kind 1) or partner transfers in 3 (kind 3). */
export const partnersWithUnsettled = (kind: 1 | 3) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(
      sql`SELECT DISTINCT l.partner_id FROM federation_links l JOIN transactions t ON t.id = l.tx_id
        WHERE l.kind = ${kind} AND t.tx_state = ${waitingOf(kind)} ORDER BY l.partner_id`,
      (rows) => rows.map((row) => String((row as any).partner_id))
    )
  )

/** One page of a partner's unsettled links of a kind, after `afterTxId` by tx_id: what reconciliation reads back. */
export const unsettledLinksOf = (kind: 1 | 3, partnerId: string, afterTxId: bigint, limit: number) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(
      sql`${sql.literal(linkSelect)} WHERE l.kind = ${kind} AND l.partner_id = ${partnerId}
        AND l.tx_id > ${String(afterTxId)} AND t.tx_state = ${waitingOf(kind)}
        ORDER BY l.tx_id LIMIT ${limit}`,
      allLinks
    )
  )

/**
 * A chat event as one events item, once per (partner, eventId), in one statement; false when seen
 * before. Its id is the next journal tick, taken under journal_clock's row lock as ledger_commit takes
 * its own, so the events feed's watermark covers it like any committed event.
 */
export const recordChat = (partnerId: string, eventId: string, nowMicros: bigint, payload: unknown) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(
      sql`WITH seen AS (
          INSERT INTO federation_chat_seen (partner_id, event_id) VALUES (${partnerId}, ${eventId})
          ON CONFLICT DO NOTHING RETURNING event_id),
        clock AS (
          UPDATE journal_clock SET tick = GREATEST(tick + 1, ${String(nowMicros)}::bigint)
          WHERE EXISTS (SELECT 1 FROM seen) RETURNING tick)
        INSERT INTO events (id, kind, wallet_id, payload)
        SELECT tick, 'FederationChat', ${String(SystemWallet.Federation)}::bigint, ${JSON.stringify(payload)}::jsonb FROM clock RETURNING id`,
      (rows) => rows.length === 1
    )
  )
