/** The code actor's typed mailbox: one actor per transfer code (keyed by its transaction id). */
import { Schema } from "effect"
import { Entity } from "effect/cluster"
import { Rpc } from "effect/rpc"
import {
  BalanceNotEnough, InvalidAmount, InvalidRequest, NonceExists, RateLimited, SameAccounts, TransactionNotPending, WrongSide
} from "../../schema/Errors.ts"

const CodeErrors = Schema.Union([SameAccounts, InvalidAmount, InvalidRequest, WrongSide, TransactionNotPending, BalanceNotEnough, NonceExists, RateLimited])

export const ApplyCode = Rpc.make("ApplyCode", {
  payload: { by: Schema.String, amountMinor: Schema.NullOr(Schema.String), clientNonce: Schema.String },
  success: Schema.Struct({ confirmationStatusCode: Schema.Literals(["Confirmed", "NeedCodeConfirm"]), txState: Schema.Int }),
  error: CodeErrors
})

export const CancelCode = Rpc.make("CancelCode", {
  payload: { by: Schema.String },
  success: Schema.Struct({ txState: Schema.Int }),
  error: CodeErrors
})

export const CodeEntity = Entity.make("Code", [ApplyCode, CancelCode])
