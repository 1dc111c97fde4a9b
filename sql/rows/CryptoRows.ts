/**
 * The crypto rails' rows in a ledger commit (sql/migrations/0015_crypto_rails.sql writes them): a
 * push's header change, the items it saw, and each crypto transaction's on-chain record (created,
 * then changed conditionally on the stage it leaves).
 */
import { Schema } from "effect"
import { numberArray, textArray } from "../ArrayLiterals.ts"
import type { RowKind } from "../Ledger.ts"

/** Stages of C15 ("address_tx_info"). */
export const Stage = {
  Confirming: "Confirming",
  AwaitingPartnerInfo: "AwaitingPartnerInfo",
  Unattributed: "Unattributed",
  Refunding: "Refunding",
  Credited: "Credited",
  Refunded: "Refunded",
  Canceled: "Canceled",
  AwaitingConfirmation: "AwaitingConfirmation",
  Queued: "Queued",
  HandedOff: "HandedOff",
  Broadcast: "Broadcast",
  OnChain: "OnChain",
  Finished: "Finished",
  Failed: "Failed"
} as const
export type Stage = (typeof Stage)[keyof typeof Stage]

const bools = (values: ReadonlyArray<boolean>) => textArray(values.map((v) => (v ? "t" : "f")))

/** One push's header change (a reorg truncates first; a refused or replayed block appends nothing). */
export interface ChainHead {
  readonly terminalId: bigint
  readonly height: bigint
  readonly hash: string
  readonly parentHash: string
  /** Orphan the items of heights ≥ this and drop their headers (a reorg), or null. */
  readonly truncateFrom: bigint | null
  /** Headers below this height are dropped (the kept window). */
  readonly windowFloor: bigint
  readonly reorg: boolean
  readonly deep: boolean
  /** The time tick recorded on items this change orphans. */
  readonly tick: bigint
  /** Store the header and move the tip (false for a replay: only the scanner figures move). */
  readonly append: boolean
  /** The tip's hash the push was planned on (null: no chain yet); another tip refuses the batch. */
  readonly expectTip: string | null
}

export const ChainHeads: RowKind<ChainHead> = {
  name: "chain_head",
  rank: 5,
  schema: Schema.Struct({
    terminalId: Schema.BigIntFromString,
    height: Schema.BigIntFromString,
    hash: Schema.String,
    parentHash: Schema.String,
    truncateFrom: Schema.NullOr(Schema.BigIntFromString),
    windowFloor: Schema.BigIntFromString,
    reorg: Schema.Boolean,
    deep: Schema.Boolean,
    tick: Schema.BigIntFromString,
    append: Schema.Boolean,
    expectTip: Schema.NullOr(Schema.String)
  }),
  columns: (items) => {
    const rows = items.map((i) => i.row)
    return [
      numberArray(rows.map((r) => r.terminalId)),
      numberArray(rows.map((r) => r.height)),
      textArray(rows.map((r) => r.hash)),
      textArray(rows.map((r) => r.parentHash)),
      numberArray(rows.map((r) => r.truncateFrom)),
      numberArray(rows.map((r) => r.windowFloor)),
      numberArray(rows.map((r) => (r.reorg ? 1 : 0))),
      numberArray(rows.map((r) => (r.deep ? 1 : 0))),
      numberArray(rows.map((r) => r.tick)),
      bools(rows.map((r) => r.append)),
      textArray(rows.map((r) => r.expectTip))
    ]
  }
}

/** An item seen in a block of the current chain (inserted, or its known key re-attached). */
export interface ChainItem {
  readonly terminalId: bigint
  readonly txHash: string
  readonly index: bigint
  /** 0 in, 1 out. */
  readonly direction: 0 | 1
  readonly fromAddress: string | null
  readonly fromKey: string | null
  readonly toAddress: string
  readonly toKey: string
  readonly memo: string | null
  readonly amount: bigint
  readonly blockHeight: bigint
  readonly blockHash: string
  /** The Income it created or the withdrawal it binds; null keeps what the key had. */
  readonly txId: bigint | null
  readonly tick: bigint
}

export const ChainItems: RowKind<ChainItem> = {
  name: "chain_item",
  rank: 6,
  schema: Schema.Struct({
    terminalId: Schema.BigIntFromString,
    txHash: Schema.String,
    index: Schema.BigIntFromString,
    direction: Schema.Literals([0, 1]),
    fromAddress: Schema.NullOr(Schema.String),
    fromKey: Schema.NullOr(Schema.String),
    toAddress: Schema.String,
    toKey: Schema.String,
    memo: Schema.NullOr(Schema.String),
    amount: Schema.BigIntFromString,
    blockHeight: Schema.BigIntFromString,
    blockHash: Schema.String,
    txId: Schema.NullOr(Schema.BigIntFromString),
    tick: Schema.BigIntFromString
  }),
  columns: (items) => {
    const rows = items.map((i) => i.row)
    return [
      numberArray(rows.map((r) => r.terminalId)),
      textArray(rows.map((r) => r.txHash)),
      numberArray(rows.map((r) => r.index)),
      numberArray(rows.map((r) => r.direction)),
      textArray(rows.map((r) => r.fromAddress)),
      textArray(rows.map((r) => r.fromKey)),
      textArray(rows.map((r) => r.toAddress)),
      textArray(rows.map((r) => r.toKey)),
      textArray(rows.map((r) => r.memo)),
      numberArray(rows.map((r) => r.amount)),
      numberArray(rows.map((r) => r.blockHeight)),
      textArray(rows.map((r) => r.blockHash)),
      numberArray(rows.map((r) => r.txId)),
      numberArray(rows.map((r) => r.tick))
    ]
  }
}

/** A crypto transaction's on-chain record, created with its transaction. */
export interface CryptoTxInsert {
  readonly txId: bigint
  readonly terminalId: bigint
  readonly typeTx: number
  readonly stage: Stage
  readonly networkFee: bigint
  readonly txHash: string | null
  readonly index: bigint | null
  readonly fromAddress: string | null
  readonly toAddress: string | null
  readonly memo: string | null
  readonly blockHeight: bigint | null
  readonly blockHash: string | null
  readonly sourceAddress: string | null
  readonly sourceIndex: number | null
  readonly incomeTxId: bigint | null
  /** Stamp the part's update tick as its queue tick (a refund enters the signer's queue at once). */
  readonly queued: boolean
}

const Big = Schema.BigIntFromString
const StageSchema = Schema.Literals(Object.values(Stage))

export const CryptoTxInserts: RowKind<CryptoTxInsert> = {
  name: "crypto_tx_insert",
  rank: 10,
  schema: Schema.Struct({
    txId: Big,
    terminalId: Big,
    typeTx: Schema.Int,
    stage: StageSchema,
    networkFee: Big,
    txHash: Schema.NullOr(Schema.String),
    index: Schema.NullOr(Big),
    fromAddress: Schema.NullOr(Schema.String),
    toAddress: Schema.NullOr(Schema.String),
    memo: Schema.NullOr(Schema.String),
    blockHeight: Schema.NullOr(Big),
    blockHash: Schema.NullOr(Schema.String),
    sourceAddress: Schema.NullOr(Schema.String),
    sourceIndex: Schema.NullOr(Schema.Int),
    incomeTxId: Schema.NullOr(Big),
    queued: Schema.Boolean
  }),
  columns: (items) => {
    const rows = items.map((i) => i.row)
    return [
      numberArray(rows.map((r) => r.txId)),
      numberArray(rows.map((r) => r.terminalId)),
      numberArray(rows.map((r) => r.typeTx)),
      textArray(rows.map((r) => r.stage)),
      numberArray(rows.map((r) => r.networkFee)),
      textArray(rows.map((r) => r.txHash)),
      numberArray(rows.map((r) => r.index)),
      textArray(rows.map((r) => r.fromAddress)),
      textArray(rows.map((r) => r.toAddress)),
      textArray(rows.map((r) => r.memo)),
      numberArray(rows.map((r) => r.blockHeight)),
      textArray(rows.map((r) => r.blockHash)),
      textArray(rows.map((r) => r.sourceAddress)),
      numberArray(rows.map((r) => r.sourceIndex)),
      numberArray(rows.map((r) => r.incomeTxId)),
      bools(rows.map((r) => r.queued)),
      numberArray(items.map((i) => i.offset))
    ]
  }
}

/** The columns a change may set (absent: kept). `queueTick: true` stamps the part's update tick. */
export interface CryptoTxPatch {
  readonly txHash?: string | null
  readonly index?: string | null
  readonly fromAddress?: string | null
  readonly blockHeight?: string | null
  readonly blockHash?: string | null
  readonly orphaned?: boolean
  readonly partnerInfo?: string | null
  readonly description?: string | null
  readonly refundTxId?: string | null
  readonly message?: string | null
  /** The transaction's profit wallet (a deposit attributed by a link). */
  readonly profitWallet?: string | null
  readonly queueTick?: true
}

/** A change of a crypto transaction, applied only while its stage is one of `fromStages` (null: any). */
export interface CryptoTxUpdate {
  readonly txId: bigint
  readonly fromStages: ReadonlyArray<Stage> | null
  /** The new stage, or null to keep it. */
  readonly stage: Stage | null
  readonly patch: CryptoTxPatch
}

export const CryptoTxUpdates: RowKind<CryptoTxUpdate> = {
  name: "crypto_tx_update",
  rank: 30,
  schema: Schema.Struct({
    txId: Big,
    fromStages: Schema.NullOr(Schema.Array(StageSchema)),
    stage: Schema.NullOr(StageSchema),
    patch: Schema.Struct({
      txHash: Schema.optional(Schema.NullOr(Schema.String)),
      index: Schema.optional(Schema.NullOr(Schema.String)),
      fromAddress: Schema.optional(Schema.NullOr(Schema.String)),
      blockHeight: Schema.optional(Schema.NullOr(Schema.String)),
      blockHash: Schema.optional(Schema.NullOr(Schema.String)),
      orphaned: Schema.optional(Schema.Boolean),
      partnerInfo: Schema.optional(Schema.NullOr(Schema.String)),
      description: Schema.optional(Schema.NullOr(Schema.String)),
      refundTxId: Schema.optional(Schema.NullOr(Schema.String)),
      message: Schema.optional(Schema.NullOr(Schema.String)),
      profitWallet: Schema.optional(Schema.NullOr(Schema.String)),
      queueTick: Schema.optional(Schema.Literal(true))
    })
  }),
  columns: (items) => {
    const rows = items.map((i) => i.row)
    return [
      numberArray(rows.map((r) => r.txId)),
      textArray(rows.map((r) => (r.fromStages === null ? null : r.fromStages.join(",")))),
      textArray(rows.map((r) => r.stage)),
      textArray(rows.map((r) => JSON.stringify(r.patch))),
      numberArray(items.map((i) => i.offset))
    ]
  }
}
