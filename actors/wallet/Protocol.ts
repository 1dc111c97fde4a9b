/**
 * The wallet actor's typed mailbox. A wallet actor alone debits its wallet's free balance and
 * creates its locks (ARCHITECTURE "Actors"); other modules talk to it only through these messages.
 * Every debit (ReserveTransfer, CommitWithDebit, LockForOrder) of a wallet flagged WalletBlock or
 * Deleted is refused here with 10031 before anything moves (C19 §5); operator postings
 * (PostTreasury, ChargeDebt) are not the wallet's own debits and are not.
 */
import { Schema } from "effect"
import { Rpc } from "effect/rpc"
import { actorEntity } from "../../src/platform/ActorEntity.ts"
import {
  BalanceNotEnough,
  ConfirmationExpired,
  ConfirmationFailed,
  ExternalIdConflict,
  MaxActiveOrdersExceeded,
  NonceExists,
  TransactionNotPending,
  WalletBlocked
} from "../../schema/Errors.ts"
import { TxIdOut, WalletIdOut } from "../../schema/Ids.ts"
import { TooManyOpenInvestments } from "../../schema/InvestErrors.ts"
import { CryptoTxInserts } from "../../sql/rows/CryptoRows.ts"
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
    withheld: Schema.optional(Schema.BigIntFromString),
    /** A withdrawal's on-chain record (C15), created in the same commit (stage AwaitingConfirmation). */
    crypto: Schema.optional(CryptoTxInserts.schema)
  },
  success: Schema.Struct({ idUpdate: Schema.String }),
  error: Schema.Union([BalanceNotEnough, NonceExists, WalletBlocked])
})

/** Step two: check the proof against the pending confirmation and settle the reserved transfer. */
export const ConfirmTransfer = Rpc.make("ConfirmTransfer", {
  payload: {
    txId: TxIdOut,
    /** Whatever the caller sent; the actor uses the one its confirmation channel expects. */
    code: Schema.NullOr(Schema.String),
    signatureBase64: Schema.NullOr(Schema.String),
    /**
     * What the caller confirms: a transfer's step two cannot settle a swap (which skips its rate
     * check) or queue a withdrawal, nor the reverse. A withdrawal's step two moves no money: it
     * queues the Outcome for the signer (txState 1 → 3, stage Queued); a partner transfer's (C18, "partner")
     * likewise only moves to 3, and the federation service calls the partner.
     */
    kind: Schema.Literals(["transfer", "swap", "withdraw", "partner"])
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
  success: Schema.Struct({
    txId: Schema.NullOr(Schema.String),
    charged: Schema.BigIntFromString,
    outstanding: Schema.BigIntFromString
  }),
  error: ExternalIdConflict
})

/**
 * Commit an operation prepared elsewhere (a code actor's apply) that debits this wallet's free
 * balance by `debit`: this actor decides whether the money is there, then commits.
 */
export const CommitWithDebit = Rpc.make("CommitWithDebit", {
  payload: { currency: Schema.String, debit: Schema.BigIntFromString, operation: LedgerOperationSchema },
  success: Schema.Struct({ idUpdate: Schema.String }),
  error: Schema.Union([BalanceNotEnough, NonceExists, TransactionNotPending, WalletBlocked])
})

/**
 * CommitWithDebit for an investment's creation (C17): the commit also counts the wallet's open
 * investments under the wallet's lock, so it may refuse with TooManyOpenInvestments (10161).
 */
export const CommitInvestmentCreation = Rpc.make("CommitInvestmentCreation", {
  payload: { currency: Schema.String, debit: Schema.BigIntFromString, operation: LedgerOperationSchema },
  success: Schema.Struct({ idUpdate: Schema.String }),
  error: Schema.Union([BalanceNotEnough, NonceExists, TooManyOpenInvestments, WalletBlocked])
})

/**
 * An order as its owner places it: what to trade, at which exact ratio, how much. Amounts are minor
 * units, lots and ratio terms exact bigints; the wallet's engine (Orders.ts) builds the placement's
 * ledger operation from it.
 */
export const OrderIntent = Schema.Struct({
  /** The order's id, also its transaction's (a time tick). */
  orderId: TxIdOut,
  roomKey: Schema.BigIntFromString,
  base: Schema.String,
  quote: Schema.String,
  /** 0 buy, 1 sell (of base). */
  side: Schema.Literals([0, 1]),
  /** OrderType: 1 Limit, 2 LimitOnly, 3 Market. */
  orderType: Schema.Literals([1, 2, 3]),
  /** The exact limit ratio, quote units per lot, reduced; null for a market order. */
  priceNum: Schema.NullOr(Schema.BigIntFromString),
  priceDen: Schema.NullOr(Schema.BigIntFromString),
  /** The ratio in the pair's display ticks (rounded for the side), null for a market order. */
  priceTicks: Schema.NullOr(Schema.BigIntFromString),
  quantityLots: Schema.BigIntFromString,
  fromCurrency: Schema.String,
  toCurrency: Schema.String,
  /** What the order locks: free → lock_orders. */
  fromAmount: Schema.BigIntFromString,
  toAmount: Schema.NullOr(Schema.BigIntFromString),
  tag: Schema.NullOr(Schema.String),
  clientNonce: Schema.BigIntFromString
})
export type OrderIntent = typeof OrderIntent.Type

/**
 * Place an order: lock its fromAmount (free → lock_orders) and record it Active in one commit, if
 * the free balance covers it and the wallet holds fewer than `maxActive` open orders.
 */
export const LockForOrder = Rpc.make("LockForOrder", {
  payload: { order: OrderIntent, maxActive: Schema.Int },
  success: Schema.Struct({ idUpdate: Schema.String }),
  error: Schema.Union([BalanceNotEnough, NonceExists, MaxActiveOrdersExceeded, WalletBlocked])
})

/** Forget cached balances (sent after credits committed by other actors, or by operators). */
export const Reload = Rpc.make("Reload")

export const WalletEntity = actorEntity("Wallet", [
  PostTreasury,
  ReserveTransfer,
  ConfirmTransfer,
  CancelTransfer,
  ChargeDebt,
  CommitWithDebit,
  CommitInvestmentCreation,
  LockForOrder,
  Reload
])
