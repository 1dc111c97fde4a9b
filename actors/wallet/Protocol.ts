/**
 * The wallet actor's typed mailbox. A wallet actor alone debits its wallet's free balance and
 * creates its locks (ARCHITECTURE "Actors"); other modules talk to it only through these messages.
 */
import { Schema } from "effect"
import { Entity } from "effect/cluster"
import { Rpc } from "effect/rpc"
import { BalanceNotEnough, ExternalIdConflict } from "../../schema/Errors.ts"

/** A trusted treasury posting (execute_transactions): free ± amount against the Treasury wallet. */
export const PostTreasury = Rpc.make("PostTreasury", {
  payload: {
    txId: Schema.String,
    externalId: Schema.String,
    requestHash: Schema.String,
    currency: Schema.String,
    amountMinor: Schema.String,
    direction: Schema.Literals(["credit", "debit"]),
    tag: Schema.NullOr(Schema.String)
  },
  success: Schema.Struct({ txId: Schema.String, idUpdate: Schema.String }),
  error: Schema.Union([BalanceNotEnough, ExternalIdConflict])
})

/** Forget cached balances (sent after credits committed by other actors, or by operators). */
export const Reload = Rpc.make("Reload")

export const WalletEntity = Entity.make("Wallet", [PostTreasury, Reload])
