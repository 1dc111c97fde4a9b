/**
 * HTTP shapes of the scanner's pushes and what the chain actor answers (CONTRACT C15 "Scanner
 * pushes", link_address_transactions, update_tx_partner_info, init_refund).
 */
import { Schema } from "effect"
import { ErrorBody } from "./Envelope.ts"
import { Int64, TerminalId, TxId, TxIdOut, WalletId, WalletIdOut } from "./Ids.ts"

/** Block and transaction hashes: 1..128 of [0-9A-Za-z]. */
export const ChainHash = Schema.String.check(Schema.isPattern(/^[0-9A-Za-z]{1,128}$/)).annotate({
  description: "1..128 characters of [0-9A-Za-z]"
})

/**
 * A decimal amount in the asset's units (string, or a JSON number), checked > 0 and against the decimals by the
 * service.
 */
const ChainAmount = Schema.Union([
  Schema.String.check(Schema.isPattern(/^[0-9]{1,40}(\.[0-9]{1,40})?$/)),
  Schema.Number.check(Schema.isFinite())
]).annotate({ description: "Decimal string > 0 in the asset's units" })

const Height = Int64.annotate({ description: "Block height (int64; string or integer)" })

export const AddressTxItemIn = Schema.Struct({
  txHash: ChainHash,
  index: Int64.annotate({ description: "≥ 0: UTXO output, EVM log index, else 0" }),
  direction: Schema.Literals(["in", "out"]),
  from: Schema.optional(Schema.NullOr(Schema.String.check(Schema.isMaxLength(256)))),
  to: Schema.String.check(Schema.isMaxLength(256)),
  memo: Schema.optional(Schema.NullOr(Schema.String.check(Schema.isMaxLength(128)))),
  amount: ChainAmount,
  txId: Schema.optional(Schema.NullOr(TxId)).annotate({
    description: "Out items: the service's withdrawal or refund this item pays, if any"
  })
}).annotate({ identifier: "AddressTxItem" })
export type AddressTxItemIn = typeof AddressTxItemIn.Type

/** One block of one terminal (at most 1000 items, else 10070). */
export const AddressTxBatch = Schema.Struct({
  tokenNetwork: TerminalId,
  height: Height,
  hash: ChainHash,
  parentHash: ChainHash,
  items: Schema.Array(AddressTxItemIn)
}).annotate({ identifier: "AddressTxBatch" })
export type AddressTxBatch = typeof AddressTxBatch.Type

export const AddressTxBatchOut = Schema.Struct({
  tokenNetwork: Schema.String,
  height: Schema.Number,
  hash: Schema.String,
  tipHeight: Schema.Number,
  replayed: Schema.Boolean,
  orphaned: Schema.Array(Schema.Number).annotate({ description: "Heights this push orphaned (a reorg)" }),
  items: Schema.Array(
    Schema.Struct({
      txHash: Schema.String,
      index: Schema.Number,
      direction: Schema.Literals(["in", "out"]),
      txId: Schema.NullOr(TxIdOut),
      walletId: Schema.NullOr(WalletIdOut).annotate({ description: '"-4" unattributed; null for out items' })
    })
  )
}).annotate({ identifier: "AddressTxBatchOut" })
export type AddressTxBatchOut = typeof AddressTxBatchOut.Type

/** scanner_terminal (C19 §10): what a scanner or a signer needs to serve one terminal, and where to resume. */
export const ScannerTerminalOut = Schema.Struct({
  tokenNetwork: Schema.String,
  typeNetwork: Schema.Int,
  typeContract: Schema.Int,
  currency: Schema.String,
  decimals: Schema.Int,
  addressContract: Schema.NullOr(Schema.String),
  confirmations: Schema.Int,
  defaultHotAddress: Schema.NullOr(Schema.String),
  tip: Schema.NullOr(Schema.Struct({ height: Schema.Number, hash: Schema.String })).annotate({
    description: "The terminal's current chain tip (null before the first push): a scanner resumes from it"
  })
}).annotate({ identifier: "ScannerTerminalOut" })
export type ScannerTerminalOut = typeof ScannerTerminalOut.Type

export const LinkItemIn = Schema.Struct({ txId: TxId, walletId: WalletId })
export const LinkItemOut = Schema.Struct({
  txId: Schema.String,
  walletId: Schema.String,
  replayed: Schema.Boolean,
  error: Schema.NullOr(ErrorBody)
}).annotate({ identifier: "LinkItemOut" })
export type LinkItemOut = typeof LinkItemOut.Type

export const PartnerInfoIn = Schema.Struct({
  txId: TxId,
  partnerInfo: Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(100)),
  description: Schema.optional(Schema.NullOr(Schema.String.check(Schema.isMaxLength(100))))
}).annotate({ identifier: "PartnerInfoIn" })

export const InitRefundIn = Schema.Struct({ txId: TxId })
export const InitRefundOut = Schema.Struct({
  txId: TxIdOut,
  incomeTxId: TxIdOut,
  toAddress: Schema.String,
  amount: Schema.String,
  networkFee: Schema.String
}).annotate({ identifier: "InitRefundOut" })
