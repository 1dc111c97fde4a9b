/**
 * The wallet actor's typed mailbox. A wallet actor alone debits its wallet's free balance and
 * creates its locks (ARCHITECTURE "Actors"); other modules talk to it only through these messages.
 */
import { Schema } from "effect"
import { Entity } from "effect/cluster"
import { Rpc } from "effect/rpc"
import {
  BalanceNotEnough, ConfirmationExpired, ConfirmationFailed, ExternalIdConflict, MaxActiveOrdersExceeded, NonceExists, TransactionNotPending
} from "../../schema/Errors.ts"
import { TxIdOut, WalletIdOut } from "../../schema/Ids.ts"
import { LedgerOperationSchema } from "../../sql/rows/OperationSchema.ts"

/** What every operator posting names: its transaction, its idempotency key and body hash, the money. */
const operatorPosting = {
  txId: TxIdOut,
  externalId: Schema.String,
  requestHash: Schema.String,
  currency: Schema.String,
  amount: Schema.BigIntFromString,
  tag: Schema.NullOr(Schema.String)
}

/** A trusted treasury posting (execute_transactions): free ± amount against the Treasury wallet. */
export const PostTreasury = Rpc.make("PostTreasury", {
  payload: { ...operatorPosting, direction: Schema.Literals(["credit", "debit"]) },
  success: Schema.Struct({ txId: Schema.String, idUpdate: Schema.String }),
  error: Schema.Union([BalanceNotEnough, ExternalIdConflict])
})

/** Step one of a two-step transfer: reserve amount + fee (free → lock_out) and record the pending step. */
export const ReserveTransfer = Rpc.make("ReserveTransfer", {
  payload: {
    txId: TxIdOut,
    typeTx: Schema.Int,
    recipientId: WalletIdOut,
    profitWalletId: WalletIdOut,
    currency: Schema.String,
    amount: Schema.BigIntFromString,
    fee: Schema.BigIntFromString,
    tag: Schema.NullOr(Schema.String),
    clientNonce: Schema.NullOr(Schema.BigIntFromString),
    channel: Schema.Literals(["Inline", "Code", "Sign"]),
    codeHash: Schema.NullOr(Schema.Uint8ArrayFromHex),
    expiresAt: Schema.DateFromString,
    attempts: Schema.Int,
    codeForEvent: Schema.NullOr(Schema.String),
    /** A swap's target leg (its fee is in currencyTo and is not reserved from the source). */
    exchange: Schema.optional(Schema.Struct({ currencyTo: Schema.String, amountTo: Schema.BigIntFromString })),
    /** Free funds the reservation may not use (ChargeBackDays protection of a swap). */
    withheld: Schema.optional(Schema.BigIntFromString)
  },
  success: Schema.Struct({ idUpdate: Schema.String }),
  error: Schema.Union([BalanceNotEnough, NonceExists])
})

/** Step two: check the proof against the pending confirmation and settle the reserved transfer. */
export const ConfirmTransfer = Rpc.make("ConfirmTransfer", {
  payload: {
    txId: TxIdOut,
    /** Whatever the caller sent; the actor uses the one its confirmation channel expects. */
    code: Schema.NullOr(Schema.String),
    signatureBase64: Schema.NullOr(Schema.String),
    /** What the caller confirms: a transfer's step two cannot settle a swap (which skips its rate check), nor the reverse. */
    kind: Schema.Literals(["transfer", "swap"])
  },
  success: Schema.Struct({ idUpdate: Schema.String, fee: Schema.BigIntFromString, currency: Schema.String }),
  error: Schema.Union([TransactionNotPending, ConfirmationFailed, ConfirmationExpired])
})

/** Cancel a reserved transfer (sender's cancel, expiry, exhausted attempts): the reservation returns. */
export const CancelTransfer = Rpc.make("CancelTransfer", {
  payload: { txId: TxIdOut, reason: Schema.String },
  success: Schema.Struct({ idUpdate: Schema.String }),
  error: TransactionNotPending
})

/** An operator's debt charge: takes at most the free balance, to the profit wallet. */
export const ChargeDebt = Rpc.make("ChargeDebt", {
  payload: { ...operatorPosting, profitWalletId: WalletIdOut },
  success: Schema.Struct({ txId: Schema.NullOr(Schema.String), charged: Schema.BigIntFromString, outstanding: Schema.BigIntFromString }),
  error: ExternalIdConflict
})

/**
 * Commit an operation prepared elsewhere (a code actor's apply) that debits this wallet's free
 * balance by `debit`: this actor decides whether the money is there, then commits.
 */
export const CommitWithDebit = Rpc.make("CommitWithDebit", {
  payload: { currency: Schema.String, debit: Schema.BigIntFromString, operation: LedgerOperationSchema },
  success: Schema.Struct({ idUpdate: Schema.String }),
  error: Schema.Union([BalanceNotEnough, NonceExists, TransactionNotPending])
})

/**
 * Place an order: commit its prepared operation (order row, its transaction, free → lock_orders of
 * `debit`) if the free balance covers it and the wallet holds fewer than `maxActive` open orders.
 */
export const LockForOrder = Rpc.make("LockForOrder", {
  payload: { currency: Schema.String, debit: Schema.BigIntFromString, operation: LedgerOperationSchema, maxActive: Schema.Int },
  success: Schema.Struct({ idUpdate: Schema.String }),
  error: Schema.Union([BalanceNotEnough, NonceExists, MaxActiveOrdersExceeded])
})

/** Forget cached balances (sent after credits committed by other actors, or by operators). */
export const Reload = Rpc.make("Reload")

export const WalletEntity = Entity.make("Wallet", [PostTreasury, ReserveTransfer, ConfirmTransfer, CancelTransfer, ChargeDebt, CommitWithDebit, LockForOrder, Reload])
