/** The code actor's typed mailbox: one actor per transfer code (keyed by its transaction id). */
import { Schema } from "effect"
import { Rpc } from "effect/rpc"
import { actorEntity } from "../../src/platform/ActorEntity.ts"
import {
  BalanceNotEnough,
  InvalidAmount,
  InvalidRequest,
  NonceExists,
  RateLimited,
  SameAccounts,
  TransactionNotPending,
  WalletBlocked,
  WrongSide
} from "../../schema/Errors.ts"
import { WalletIdOut } from "../../schema/Ids.ts"

const CodeErrors = Schema.Union([
  SameAccounts,
  InvalidAmount,
  InvalidRequest,
  WrongSide,
  TransactionNotPending,
  BalanceNotEnough,
  NonceExists,
  RateLimited,
  WalletBlocked
])

/**
 * Create the code (the entity id is its transaction id): types 11 and 12 hold the amount from the
 * creator's free balance through the creator's wallet actor; invoices (13, 14) move nothing yet.
 */
export const CreateCode = Rpc.make("CreateCode", {
  payload: {
    creator: Schema.BigIntFromString,
    typeTx: Schema.Literals([11, 12, 13, 14]),
    currency: Schema.String,
    amount: Schema.BigIntFromString,
    fee: Schema.BigIntFromString,
    profitWallet: Schema.BigIntFromString,
    tag: Schema.NullOr(Schema.String),
    codeHash: Schema.Uint8ArrayFromHex,
    expiresAt: Schema.NullOr(Schema.DateFromString),
    partnerInfo: Schema.NullOr(Schema.String)
  },
  success: Schema.Void,
  error: Schema.Union([BalanceNotEnough, NonceExists, TransactionNotPending, RateLimited, WalletBlocked])
})

export const ApplyCode = Rpc.make("ApplyCode", {
  payload: { by: WalletIdOut, amount: Schema.NullOr(Schema.BigIntFromString), clientNonce: Schema.BigIntFromString },
  success: Schema.Struct({
    confirmationStatusCode: Schema.Literals(["Confirmed", "NeedCodeConfirm"]),
    txState: Schema.Int
  }),
  error: CodeErrors
})

export const CancelCode = Rpc.make("CancelCode", {
  payload: { by: WalletIdOut },
  success: Schema.Struct({ txState: Schema.Int }),
  error: CodeErrors
})

export const CodeEntity = actorEntity("Code", [CreateCode, ApplyCode, CancelCode])
