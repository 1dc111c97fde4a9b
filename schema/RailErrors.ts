/**
 * C19's rail rejections (§1 card sandbox, §9 crypto rails: codes 10412-10414); their codes are in the one
 * table of schema/Errors.ts.
 */
import { Schema } from "effect"

const fields = { message: Schema.String }

/** 10412: the order was already given PAYMENT_MAX_ADDRESSES_PER_ORDER distinct deposit addresses (C19 §9). */
export class TooManyOrderAddresses extends Schema.TaggedError<TooManyOrderAddresses>()(
  "TooManyOrderAddresses",
  fields,
  { httpApiStatus: 400 }
) {}
/**
 * 10413: the withdrawal was broadcast: a `failed` report cannot return its money, and release_withdrawal
 * refuses an item that is not Broadcast or whose txHash is in a pushed block (C19 §9).
 */
export class WithdrawalBroadcast extends Schema.TaggedError<WithdrawalBroadcast>()("WithdrawalBroadcast", fields, {
  httpApiStatus: 400
}) {}
/** 10414: card payments need an acquirer, and ACQUIRER is off (C19 §1). */
export class SandboxOff extends Schema.TaggedError<SandboxOff>()("SandboxOff", fields, { httpApiStatus: 400 }) {}
