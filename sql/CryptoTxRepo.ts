/**
 * Reads of crypto transactions (C15): an Income, Outcome or Refund with its on-chain record
 * (`crypto_txs`), its terminal's network, required confirmations and flags, and its terminal's tip
 * (`chain_heads`) for counting confirmations; and the scanner figures of monitoring. Writers are
 * elsewhere (row kinds in sql/rows/CryptoRows.ts).
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { Bool, decodeAll, Int, Int8, MinorUnits, Nullable, record, Text, Timestamp } from "./Decoding.ts"
import { journalColumns, journalFrom, txFields } from "./JournalRepo.ts"

/** The typeTx values that have a crypto record: Income, Outcome, Refund. */
const cryptoTypes = "1, 2, 19"

/** One crypto transaction as address_tx_info shows it; money in minor units of `currency`. */
export const CryptoTxInfo = record({
  txId: Int8,
  typeTx: Int,
  txState: Int,
  currency: Text,
  amount: MinorUnits,
  fee: MinorUnits,
  terminalId: Int8,
  typeNetwork: Int,
  stage: Text,
  networkFee: MinorUnits,
  txHash: Nullable(Text),
  idx: Nullable(Int8),
  fromAddress: Nullable(Text),
  toAddress: Nullable(Text),
  memo: Nullable(Text),
  blockHeight: Nullable(Int8),
  blockHash: Nullable(Text),
  orphaned: Bool,
  partnerInfo: Nullable(Text),
  description: Nullable(Text),
  sourceAddress: Nullable(Text),
  refundTxId: Nullable(Int8),
  incomeTxId: Nullable(Int8),
  requiredConfirmations: Int,
  terminalFlags: Int,
  tipHeight: Nullable(Int8)
})
export type CryptoTxInfo = typeof CryptoTxInfo.Type

const infos = decodeAll(CryptoTxInfo)

/** The wallet's (sender or receiver) crypto transactions among `ids`, by id; others are left out. */
export const cryptoTxsOfWallet = (walletId: string, ids: ReadonlyArray<string>) =>
  SqlClient.SqlClient.use((sql) =>
    ids.length === 0
      ? Effect.succeed([] as ReadonlyArray<CryptoTxInfo>)
      : Effect.map(
          sql`SELECT t.id AS tx_id, t.type_tx, t.tx_state, t.currency, t.amount::text AS amount, t.fee::text AS fee,
            x.terminal_id, tm.type_network, x.stage, x.network_fee::text AS network_fee, x.tx_hash, x.idx,
            x.from_address, x.to_address, x.memo, x.block_height, x.block_hash, x.orphaned, x.partner_info,
            x.description, x.source_address, x.refund_tx_id, x.income_tx_id,
            tm.confirmations AS required_confirmations, tm.flags AS terminal_flags, h.tip_height
          FROM crypto_txs x
            JOIN transactions t ON t.id = x.tx_id
            JOIN terminals tm ON tm.id = x.terminal_id
            LEFT JOIN chain_heads h ON h.terminal_id = x.terminal_id
          WHERE x.tx_id = ANY(${"{" + ids.join(",") + "}"}::bigint[])
            AND (t.wallet_from = ${walletId} OR t.wallet_to = ${walletId})
            AND t.type_tx IN (${sql.literal(cryptoTypes)})`,
          infos
        )
  )

/** A journal row of an Income awaiting partner info, with the chain figures the list adds. */
export const AwaitingIncome = record({
  ...txFields,
  tokenNetwork: Int8,
  txHash: Nullable(Text),
  blockHeight: Nullable(Int8),
  orphaned: Bool,
  requiredConfirmations: Int,
  tipHeight: Nullable(Int8)
})
export type AwaitingIncome = typeof AwaitingIncome.Type

const awaiting = decodeAll(AwaitingIncome)

/**
 * The wallet's active Incomes on RequirePartnerInfo (flag 8) terminals with no partner info and no
 * refund under way, oldest first (C15 list_txs_awaiting_partner_info).
 */
export const incomesAwaitingPartnerInfo = (walletId: string, limit: number) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(
      sql`SELECT ${sql.literal(journalColumns)}, x.tx_hash, x.block_height, x.orphaned,
          tm.confirmations AS required_confirmations, h.tip_height
        FROM ${sql.literal(journalFrom)}
          JOIN terminals tm ON tm.id = x.terminal_id
          LEFT JOIN chain_heads h ON h.terminal_id = x.terminal_id
        WHERE t.wallet_to = ${walletId} AND t.type_tx = 1 AND (t.tx_state & 24) = 0
          AND x.tx_id IS NOT NULL AND (tm.flags & 8) <> 0 AND x.partner_info IS NULL AND x.stage <> 'Refunding'
        ORDER BY t.id LIMIT ${limit}`,
      awaiting
    )
  )

/** A terminal's scanner figures (every terminal with a chain_heads row, i.e. that had a push). */
export const ScannerRow = record({
  terminalId: Int8,
  tipHeight: Int8,
  tipHash: Text,
  reorgs: Int8,
  deepReorgs: Int8,
  lastPushAt: Timestamp,
  now: Timestamp,
  queued: Int8
})
export type ScannerRow = typeof ScannerRow.Type

const scanners = decodeAll(ScannerRow)

/** Every scanned terminal's figures and its Queued withdrawals and refunds (not yet handed off). */
export const scannerFigures = SqlClient.SqlClient.use((sql) =>
  Effect.map(
    sql`SELECT h.terminal_id, h.tip_height, h.tip_hash, h.reorgs, h.deep_reorgs, h.last_push_at, now() AS now,
        (SELECT count(*) FROM crypto_txs x WHERE x.terminal_id = h.terminal_id AND x.stage = 'Queued') AS queued
      FROM chain_heads h ORDER BY h.terminal_id`,
    scanners
  )
)
