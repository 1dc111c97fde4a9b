/**
 * The chain actor's reads (C15): a terminal's kept headers, the items a push names or orphans, the
 * crypto transactions it may change, and the owners of deposit addresses. Every write goes through
 * ledger commits (sql/rows/CryptoRows.ts).
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { numberArray, textArray } from "./ArrayLiterals.ts"
import { Bool, decodeAll, decodeFirst, Int, Int8, MinorUnits, Nullable, OneOf, record, Text } from "./Decoding.ts"
import { Stage } from "./rows/CryptoRows.ts"

export const Header = record({ height: Int8, hash: Text })
export type Header = typeof Header.Type

/** A terminal's kept headers, lowest first. */
export const headersOf = (terminalId: bigint) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(
      sql`SELECT height, hash FROM chain_blocks WHERE terminal_id = ${terminalId} ORDER BY height`,
      decodeAll(Header)
    )
  )

export const ItemRow = record({
  txHash: Text,
  idx: Int8,
  direction: Int,
  blockHeight: Int8,
  blockHash: Text,
  orphaned: Bool,
  txId: Nullable(Int8)
})
export type ItemRow = typeof ItemRow.Type

const itemColumns = "tx_hash, idx, direction, block_height, block_hash, orphaned, tx_id"

/** The recorded items with these keys (txHash, index, direction). */
export const itemsByKeys = (
  terminalId: bigint,
  keys: ReadonlyArray<{ readonly txHash: string; readonly index: bigint; readonly direction: number }>
) =>
  SqlClient.SqlClient.use((sql) =>
    keys.length === 0
      ? Effect.succeed([] as ReadonlyArray<ItemRow>)
      : Effect.map(
          sql`SELECT ${sql.literal(itemColumns)} FROM chain_items c
            JOIN unnest(${textArray(keys.map((k) => k.txHash))}::text[], ${numberArray(keys.map((k) => k.index))}::bigint[],
              ${numberArray(keys.map((k) => k.direction))}::smallint[]) AS k (tx_hash, idx, direction)
              USING (tx_hash, idx, direction)
            WHERE c.terminal_id = ${terminalId}`,
          decodeAll(ItemRow)
        )
  )

/** Items of the current chain at or above a height (a reorg orphans them). */
export const itemsFrom = (terminalId: bigint, height: bigint) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(
      sql`SELECT ${sql.literal(itemColumns)} FROM chain_items
        WHERE terminal_id = ${terminalId} AND block_height >= ${height} AND NOT orphaned`,
      decodeAll(ItemRow)
    )
  )

/** A crypto transaction with its ledger figures: what the chain actor decides on. */
export const CryptoTx = record({
  txId: Int8,
  typeTx: Int,
  txState: Int,
  walletFrom: Int8,
  walletTo: Int8,
  currency: Text,
  amount: MinorUnits,
  fee: MinorUnits,
  profitWallet: Nullable(Int8),
  terminalId: Int8,
  stage: OneOf(Object.values(Stage)),
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
  refundTxId: Nullable(Int8),
  incomeTxId: Nullable(Int8)
})
export type CryptoTx = typeof CryptoTx.Type

const cryptoTxColumns = `c.tx_id, t.type_tx, t.tx_state, t.wallet_from, t.wallet_to, t.currency, t.amount::text AS amount,
  t.fee::text AS fee, t.profit_wallet, c.terminal_id, c.stage, c.network_fee::text AS network_fee, c.tx_hash, c.idx,
  c.from_address, c.to_address, c.memo, c.block_height, c.block_hash, c.orphaned, c.partner_info, c.description,
  c.refund_tx_id, c.income_tx_id`

const cryptoTxs = decodeAll(CryptoTx)

export const cryptoTxsById = (ids: ReadonlyArray<bigint>) =>
  SqlClient.SqlClient.use((sql) =>
    ids.length === 0
      ? Effect.succeed([] as ReadonlyArray<CryptoTx>)
      : Effect.map(
          sql`SELECT ${sql.literal(cryptoTxColumns)} FROM crypto_txs c JOIN transactions t ON t.id = c.tx_id
            WHERE c.tx_id = ANY(${numberArray(ids)}::bigint[])`,
          cryptoTxs
        )
  )

export const cryptoTxById = (id: string | bigint) =>
  Effect.map(cryptoTxsById([BigInt(id)]), (rows) => rows[0] as CryptoTx | undefined)

/**
 * The terminal's withdrawals and refunds waiting for their out item (HandedOff or Broadcast), or bound and
 * not final (OnChain: a reorg may unbind them), whose recorded txHash is one of these: what an out item
 * without a txId may bind (C19 §10).
 */
export const outsByTxHash = (terminalId: bigint, txHashes: ReadonlyArray<string>) =>
  SqlClient.SqlClient.use((sql) =>
    txHashes.length === 0
      ? Effect.succeed([] as ReadonlyArray<CryptoTx>)
      : Effect.map(
          sql`SELECT ${sql.literal(cryptoTxColumns)} FROM crypto_txs c JOIN transactions t ON t.id = c.tx_id
            WHERE c.terminal_id = ${terminalId} AND c.type_tx IN (2, 19) AND c.stage IN ('HandedOff', 'Broadcast', 'OnChain')
              AND c.tx_hash = ANY(${textArray(txHashes)}::text[])
            ORDER BY c.tx_id`,
          cryptoTxs
        )
  )

/**
 * What may become final at this height: Incomes still Confirming or Unattributed at txState 1, and
 * withdrawals or refunds bound on chain, in blocks at or below it and not orphaned.
 */
export const finalCandidates = (terminalId: bigint, height: bigint) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(
      sql`SELECT ${sql.literal(cryptoTxColumns)} FROM crypto_txs c JOIN transactions t ON t.id = c.tx_id
        WHERE c.terminal_id = ${terminalId} AND NOT c.orphaned AND c.block_height <= ${height}
          AND ((c.stage IN ('Confirming', 'Unattributed') AND t.tx_state = 1) OR c.stage = 'OnChain')`,
      cryptoTxs
    )
  )

const WalletGroup = record({ id: Int8, walletGroup: Int })

export const walletGroupsOf = (ids: ReadonlyArray<bigint>) =>
  SqlClient.SqlClient.use((sql) =>
    ids.length === 0
      ? Effect.succeed([] as ReadonlyArray<typeof WalletGroup.Type>)
      : Effect.map(
          sql`SELECT id, wallet_group FROM wallets WHERE id = ANY(${numberArray(ids)}::bigint[])`,
          decodeAll(WalletGroup)
        )
  )

/** The terminal a crypto transaction belongs to (routing a link or a partner-info change to its chain actor). */
export const terminalOfTx = (txId: string) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(sql`SELECT terminal_id FROM crypto_txs WHERE tx_id = ${txId}`, decodeFirst(record({ terminalId: Int8 })))
  )

/** The terminal's stored tip (another process may have moved it since this actor last looked). */
export const storedTipOf = (terminalId: bigint) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(
      sql`SELECT tip_height, tip_hash FROM chain_heads WHERE terminal_id = ${terminalId}`,
      decodeFirst(record({ tipHeight: Int8, tipHash: Text }))
    )
  )
