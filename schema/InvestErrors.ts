/**
 * The investments' rejections (CONTRACT C17 "Errors", codes 10150-10161); their codes are in the one
 * table of schema/Errors.ts. C17 reuses 10001, 10002, 10020, 10030, 10031, 10032, 10060, 10070, 10401.
 */
import { Schema } from "effect"

const fields = { message: Schema.String }
const bad = { httpApiStatus: 400 } as const

/** 10150: amount is 0. */
export class InvestmentAmountZero extends Schema.TaggedError<InvestmentAmountZero>()(
  "InvestmentAmountZero",
  fields,
  bad
) {}
/** 10151: state is not Created 1 or Activated 2. */
export class InvestmentStateNotAllowed extends Schema.TaggedError<InvestmentStateNotAllowed>()(
  "InvestmentStateNotAllowed",
  fields,
  bad
) {}
/** 10152: investmentType is not interest_on_balance 1. */
export class InvestmentTypeUnknown extends Schema.TaggedError<InvestmentTypeUnknown>()(
  "InvestmentTypeUnknown",
  fields,
  bad
) {}
/** 10153: flags not in {0, 1}. */
export class InvestmentFlagsUnknown extends Schema.TaggedError<InvestmentFlagsUnknown>()(
  "InvestmentFlagsUnknown",
  fields,
  bad
) {}
/** 10154: ratePct not in [0, 1000] or more than 8 decimals. */
export class InvestmentRateInvalid extends Schema.TaggedError<InvestmentRateInvalid>()(
  "InvestmentRateInvalid",
  fields,
  bad
) {}
/** 10155: dateEnd before now + INVEST_MIN_TERM_SECONDS or after now + INVEST_MAX_TERM_DAYS. */
export class InvestmentTermInvalid extends Schema.TaggedError<InvestmentTermInvalid>()(
  "InvestmentTermInvalid",
  fields,
  bad
) {}
/** 10156: no such investment (or another wallet's). */
export class InvestmentNotFound extends Schema.TaggedError<InvestmentNotFound>()("InvestmentNotFound", fields, {
  httpApiStatus: 404
}) {}
/** 10157: the investment's state does not take this action. */
export class InvestmentStateConflict extends Schema.TaggedError<InvestmentStateConflict>()(
  "InvestmentStateConflict",
  fields,
  bad
) {}
/** 10158: flags lack EarlyCloseAllowed. */
export class EarlyCloseNotAllowed extends Schema.TaggedError<EarlyCloseNotAllowed>()(
  "EarlyCloseNotAllowed",
  fields,
  bad
) {}
/** 10159: INVEST_PROFIT_MODE=managed: profits are not pushed. */
export class ManagedProfitMode extends Schema.TaggedError<ManagedProfitMode>()("ManagedProfitMode", fields, bad) {}
/** 10160: a pushed profit total below what the investment already shows. */
export class ProfitBelowCredited extends Schema.TaggedError<ProfitBelowCredited>()(
  "ProfitBelowCredited",
  fields,
  bad
) {}
/** 10161: the wallet already has INVEST_MAX_OPEN_PER_WALLET open investments. */
export class TooManyOpenInvestments extends Schema.TaggedError<TooManyOpenInvestments>()(
  "TooManyOpenInvestments",
  fields,
  bad
) {}
