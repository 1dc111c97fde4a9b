/** The investment actor's typed mailbox: one actor per investment, keyed by its timetick (CONTRACT C17). */
import { Schema } from "effect"
import { Entity } from "effect/cluster"
import { Rpc } from "effect/rpc"
import { BalanceNotEnough, RateLimited } from "../../schema/Errors.ts"
import {
  EarlyCloseNotAllowed,
  InvestmentNotFound,
  InvestmentStateConflict,
  ProfitBelowCredited
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
  error: Schema.Union([BalanceNotEnough, RateLimited, InvestmentStateConflict])
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

export const InvestmentEntity = Entity.make("Investment", [
  CreateInvestment,
  ActivateInvestment,
  PushProfit,
  ReturnInvestment,
  Due
])

/** The engine's names and rate check, for services (which reach actors only through their Protocol). */
export { investStateName, scaledRate } from "./Engine.ts"
