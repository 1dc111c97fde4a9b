/**
 * Read shapes of the crypto rails (CONTRACT C15, "Partner info and refunds"): address_tx_info and
 * list_txs_awaiting_partner_info. Amounts are exact decimal strings in the currency's units, ids
 * decimal strings; block heights, indices and confirmation counts are JSON numbers.
 */
import { Schema } from "effect"
import { Int64String, TxId, TxIdOut } from "./Ids.ts"
import { TxRow } from "./Transfer.ts"

export const addressTxInfoMax = 100

/** The ids asked for: any count is accepted by the schema, more than 100 is 10070 (TooManyItems). */
export const AddressTxInfoIn = Schema.Array(TxId).annotate({ description: "Transaction ids, at most 100 (10070)" })

const Decimal = Schema.String.annotate({ description: "Exact decimal string in the currency's units" })

export const AddressTxInfoOut = Schema.Struct({
  txId: TxIdOut,
  typeTx: Schema.Int.annotate({ description: "Income 1, Outcome 2, Refund 19" }),
  txState: Schema.Int,
  state: Schema.String.annotate({ description: "The history label: Processing while active, else the state's name" }),
  stage: Schema.String.annotate({
    description:
      "Income: Confirming, AwaitingPartnerInfo, Unattributed, Refunding, Credited, Refunded, Canceled; " +
      "Outcome/Refund: AwaitingConfirmation, Queued, HandedOff, Broadcast, OnChain, Finished, Failed, " +
      "Canceled"
  }),
  tokenNetwork: Int64String.annotate({ description: "The terminal id" }),
  typeNetwork: Schema.Int,
  currency: Schema.String,
  amount: Decimal,
  fee: Decimal,
  networkFee: Decimal,
  txHash: Schema.NullOr(Schema.String),
  index: Schema.NullOr(Schema.Number),
  fromAddress: Schema.NullOr(Schema.String),
  toAddress: Schema.NullOr(Schema.String),
  memo: Schema.NullOr(Schema.String),
  blockHeight: Schema.NullOr(Schema.Number),
  blockHash: Schema.NullOr(Schema.String),
  confirmations: Schema.NullOr(Schema.Int).annotate({
    description:
      "tip − blockHeight + 1 while its block is in the current chain; 0 when orphaned; null until seen on chain (C15)"
  }),
  requiredConfirmations: Schema.Int.annotate({ description: "The terminal's confirmations" }),
  requirePartnerInfo: Schema.Boolean.annotate({ description: "The terminal's RequirePartnerInfo flag (8)" }),
  partnerInfo: Schema.NullOr(Schema.String),
  description: Schema.NullOr(Schema.String),
  orphaned: Schema.Boolean.annotate({ description: "A Finished transaction whose block left the current chain" }),
  sourceAddress: Schema.NullOr(Schema.String),
  refundTxId: Schema.NullOr(TxIdOut),
  incomeTxId: Schema.NullOr(TxIdOut)
}).annotate({ identifier: "AddressTxInfoOut" })
export type AddressTxInfoOut = typeof AddressTxInfoOut.Type

export const awaitingPartnerInfoLimitMax = 100

export const AwaitingPartnerInfoQuery = {
  limit: Schema.optional(
    Schema.NumberFromString.check(
      Schema.isInt(),
      Schema.isBetween({ minimum: 1, maximum: awaitingPartnerInfoLimitMax })
    )
  ).annotate({ description: `1..${awaitingPartnerInfoLimitMax}, default ${awaitingPartnerInfoLimitMax}` })
}

export const AwaitingPartnerInfoRow = Schema.Struct({
  ...TxRow.fields,
  tokenNetwork: Int64String.annotate({ description: "The terminal id" }),
  txHash: Schema.NullOr(Schema.String),
  confirmations: Schema.Int.annotate({
    description: "tip − blockHeight + 1 while its block is in the current chain; 0 when not seen yet or orphaned"
  }),
  requiredConfirmations: Schema.Int
}).annotate({ identifier: "AwaitingPartnerInfoRow" })
export type AwaitingPartnerInfoRow = typeof AwaitingPartnerInfoRow.Type
