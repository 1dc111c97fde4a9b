/** The investment actor's typed mailbox: one actor per investment, keyed by its timetick (CONTRACT C17). */
import { DateTime, PrimaryKey, Schema } from "effect"
import { ClusterSchema, DeliverAt } from "effect/cluster"
import { Rpc } from "effect/rpc"
import { actorEntity } from "../../src/platform/ActorEntity.ts"
import { BalanceNotEnough, RateLimited, WalletBlocked } from "../../schema/Errors.ts"
import {
  EarlyCloseNotAllowed,
  InvestmentNotFound,
  InvestmentStateConflict,
  ProfitBelowCredited,
  TooManyOpenInvestments
} from "../../schema/InvestErrors.ts"

/** Create the investment: CreateInvest through the wallet's actor (free → lock_orders). */
export const CreateInvestment = Rpc.make("CreateInvestment", {
  payload: {
    walletId: Schema.BigIntFromString,
    currency: Schema.String,
    investmentType: Schema.Number,
    state: Schema.Literals([1, 2]),
    flags: Schema.Number,
    amount: Schema.BigIntFromString,
    profit: Schema.BigIntFromString,
    ratePct: Schema.String,
    dateEnd: Schema.DateFromString,
    tag: Schema.NullOr(Schema.String),
    ownerId: Schema.NullOr(Schema.String),
    externalId: Schema.NullOr(Schema.String),
    requestHash: Schema.NullOr(Schema.String)
  },
  success: Schema.Void,
  /** `Duplicate`: another creation took this externalId (the caller answers the first one). */
  error: Schema.Union([BalanceNotEnough, RateLimited, InvestmentStateConflict, TooManyOpenInvestments, WalletBlocked])
})

const StepErrors = Schema.Union([
  InvestmentNotFound,
  InvestmentStateConflict,
  EarlyCloseNotAllowed,
  ProfitBelowCredited
])

export const ActivateInvestment = Rpc.make("ActivateInvestment", {
  payload: {},
  success: Schema.Void,
  error: StepErrors
})

/** Push mode: the profit total becomes `profit`; answers what this call credited (0: nothing). */
export const PushProfit = Rpc.make("PushProfit", {
  payload: { profit: Schema.BigIntFromString },
  success: Schema.Struct({
    profitMinor: Schema.String,
    creditedMinor: Schema.String,
    txId: Schema.NullOr(Schema.String)
  }),
  error: StepErrors
})

/** return_investment: ReceivedEarlyCloseRequest then Closed. */
export const ReturnInvestment = Rpc.make("ReturnInvestment", {
  payload: {},
  success: Schema.Void,
  error: StepErrors
})

/** Time passed (the sweep): a managed boundary, maturity, or finishing a half-closed investment. */
export const Due = Rpc.make("Due", { payload: {}, success: Schema.Void })

/**
 * The investment's own timer (docs/INVESTMENTS.md "Durable time"): a persisted message held in the
 * cluster's SQL storage until `dueAt` (DeliverAt), one per (investment, due time) (PrimaryKey: a resend is
 * dropped). Delivered, it does what `Due` does; an early, late or repeated delivery is harmless.
 */
export class InvestTimer extends Schema.Class<InvestTimer>("invest/InvestTimer")({
  timetick: Schema.String,
  dueAt: Schema.DateTimeUtc
}) {
  [PrimaryKey.symbol]() {
    return `${this.timetick}/${DateTime.toEpochMillis(this.dueAt)}`
  }
  [DeliverAt.symbol]() {
    return this.dueAt
  }
}

export const Timer = Rpc.make("Timer", { payload: InvestTimer }).annotate(ClusterSchema.Persisted, true)

export const InvestmentEntity = actorEntity("Investment", [
  Timer,
  CreateInvestment,
  ActivateInvestment,
  PushProfit,
  ReturnInvestment,
  Due
])

/** The engine's names and rate check, for services (which reach actors only through their Protocol). */
export { investStateName, scaledRate } from "./Engine.ts"
