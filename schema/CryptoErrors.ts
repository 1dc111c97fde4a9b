/**
 * The crypto rails' rejections (CONTRACT C15, codes 10200-10233); their codes are in the one table
 * of schema/Errors.ts.
 */
import { Schema } from "effect"

const fields = { message: Schema.String }

/** 10200: the terminal is not on a crypto network (C15). */
export class NotACryptoTerminal extends Schema.TaggedError<NotACryptoTerminal>()("NotACryptoTerminal", fields, {
  httpApiStatus: 400
}) {}
/** 10201: the terminal lacks the Deposit/Withdraw flag, or the wallet's group is not among its walletGroups. */
export class TerminalNotAllowed extends Schema.TaggedError<TerminalNotAllowed>()("TerminalNotAllowed", fields, {
  httpApiStatus: 400
}) {}
/** 10202: no addresses on this network: its XPUB_* setting is unset, or a memo terminal has no defaultHotAddress. */
export class AddressesUnavailable extends Schema.TaggedError<AddressesUnavailable>()("AddressesUnavailable", fields, {
  httpApiStatus: 400
}) {}
/** 10203: the wallet holds max_addr_count derived addresses on this network; nothing was allocated. */
export class AddressLimitReached extends Schema.TaggedError<AddressLimitReached>()("AddressLimitReached", fields, {
  httpApiStatus: 400
}) {}
/** 10204: not an address of the terminal's network (the message names the field). */
export class InvalidAddress extends Schema.TaggedError<InvalidAddress>()("InvalidAddress", fields, {
  httpApiStatus: 400
}) {}
/** 10205: the block's height is above tip + 1. */
export class BlockHeightGap extends Schema.TaggedError<BlockHeightGap>()("BlockHeightGap", fields, {
  httpApiStatus: 400
}) {}
/** 10206: the block's parentHash is not the stored hash at height - 1: push the fork point's block first. */
export class BlockNotConnected extends Schema.TaggedError<BlockNotConnected>()("BlockNotConnected", fields, {
  httpApiStatus: 400
}) {}
/** 10207: the block is below the kept window of headers, or below the chain's first block. */
export class BlockTooOld extends Schema.TaggedError<BlockTooOld>()("BlockTooOld", fields, { httpApiStatus: 400 }) {}
/** 10208: a (txHash, index) appears twice in one block. */
export class DuplicateItem extends Schema.TaggedError<DuplicateItem>()("DuplicateItem", fields, {
  httpApiStatus: 400
}) {}
/** 10210: the withdrawal was already handed to the signer: it can no longer be cancelled. */
export class WithdrawalHandedOff extends Schema.TaggedError<WithdrawalHandedOff>()("WithdrawalHandedOff", fields, {
  httpApiStatus: 400
}) {}
/** 10211: requireClientAssetSource is only for terminals where sourceTransferSupported. */
export class SourceTransferNotSupported extends Schema.TaggedError<SourceTransferNotSupported>()(
  "SourceTransferNotSupported",
  fields,
  { httpApiStatus: 400 }
) {}
/** 10212: the source address is not the wallet's, or holds less than the amount on chain. */
export class SourceAddressRefused extends Schema.TaggedError<SourceAddressRefused>()("SourceAddressRefused", fields, {
  httpApiStatus: 400
}) {}
/** 10213: the item is not HandedOff or Broadcast, or an out item is already bound to it. */
export class SendReportRefused extends Schema.TaggedError<SendReportRefused>()("SendReportRefused", fields, {
  httpApiStatus: 400
}) {}
/** 10220: the transaction is not an unattributed Income. */
export class NotUnattributed extends Schema.TaggedError<NotUnattributed>()("NotUnattributed", fields, {
  httpApiStatus: 400
}) {}
/** 10230: the Income's terminal does not require partner info. */
export class PartnerInfoNotRequired extends Schema.TaggedError<PartnerInfoNotRequired>()(
  "PartnerInfoNotRequired",
  fields,
  { httpApiStatus: 400 }
) {}
/** 10231: partner info is already sealed, or the Income is not active. */
export class PartnerInfoSealed extends Schema.TaggedError<PartnerInfoSealed>()("PartnerInfoSealed", fields, {
  httpApiStatus: 400
}) {}
/** 10232: the Income is not held for partner info (final, no refund under way) or has no source address. */
export class IncomeNotRefundable extends Schema.TaggedError<IncomeNotRefundable>()("IncomeNotRefundable", fields, {
  httpApiStatus: 400
}) {}
/** 10233: the Income's amount does not exceed the terminal's network fee. */
export class RefundBelowNetworkFee extends Schema.TaggedError<RefundBelowNetworkFee>()(
  "RefundBelowNetworkFee",
  fields,
  { httpApiStatus: 400 }
) {}
