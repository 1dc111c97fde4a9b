/**
 * The chain actor's typed mailbox: one actor per crypto terminal (keyed by its id). It alone owns
 * the terminal's chain view and changes its Incomes: scanner pushes, links of unattributed deposits,
 * sealed partner info, refunds started (C15). The service validates a push whole before sending it.
 */
import { Schema } from "effect"
import { Rpc } from "effect/rpc"
import { actorEntity } from "../../src/platform/ActorEntity.ts"
import {
  BlockHeightGap,
  BlockNotConnected,
  BlockTooOld,
  IncomeNotRefundable,
  NotUnattributed,
  PartnerInfoNotRequired,
  PartnerInfoSealed,
  RefundBelowNetworkFee
} from "../../schema/CryptoErrors.ts"
import { TransactionNotFound } from "../../schema/Errors.ts"

const Big = Schema.BigIntFromString

/** An item of a pushed block, checked and converted: amount in minor units, address keys computed. */
export const PushItem = Schema.Struct({
  txHash: Schema.String,
  index: Big,
  direction: Schema.Literals(["in", "out"]),
  from: Schema.NullOr(Schema.String),
  fromKey: Schema.NullOr(Schema.String),
  to: Schema.String,
  toKey: Schema.String,
  memo: Schema.NullOr(Schema.String),
  amount: Big,
  txId: Schema.NullOr(Big)
})
export type PushItem = typeof PushItem.Type

export const PushedItem = Schema.Struct({
  txHash: Schema.String,
  index: Big,
  direction: Schema.Literals(["in", "out"]),
  txId: Schema.NullOr(Big),
  walletId: Schema.NullOr(Big)
})
export type PushedItem = typeof PushedItem.Type

/** One block of the terminal's chain (C15 AddressTxBatch). */
export const PushBlock = Rpc.make("PushBlock", {
  payload: { height: Big, hash: Schema.String, parentHash: Schema.String, items: Schema.Array(PushItem) },
  success: Schema.Struct({
    tipHeight: Big,
    replayed: Schema.Boolean,
    orphaned: Schema.Array(Big),
    items: Schema.Array(PushedItem)
  }),
  error: Schema.Union([BlockHeightGap, BlockNotConnected, BlockTooOld])
})

/** Attribute an unattributed Income to a wallet (link_address_transactions). */
export const Link = Rpc.make("Link", {
  payload: { txId: Big, walletId: Big },
  success: Schema.Struct({ replayed: Schema.Boolean }),
  error: NotUnattributed
})

/** Seal an Income's partner info (update_tx_partner_info); a final held Income is credited at once. */
export const SealPartnerInfo = Rpc.make("SealPartnerInfo", {
  payload: { walletId: Big, txId: Big, partnerInfo: Schema.String, description: Schema.NullOr(Schema.String) },
  success: Schema.Struct({ idUpdate: Big }),
  error: Schema.Union([TransactionNotFound, PartnerInfoNotRequired, PartnerInfoSealed])
})

/** Start the refund of a held Income to its source (init_refund). */
export const InitRefund = Rpc.make("InitRefund", {
  payload: { walletId: Big, txId: Big },
  success: Schema.Struct({ refundTxId: Big, toAddress: Schema.String, amount: Big, networkFee: Big }),
  error: Schema.Union([TransactionNotFound, IncomeNotRefundable, RefundBelowNetworkFee])
})

export const ChainEntity = actorEntity("Chain", [PushBlock, Link, SealPartnerInfo, InitRefund])
