/**
 * Tariffs (CONTRACT C7): the most specific matching rule wins (wallet group, then typeTx, then
 * the amount range), default fee 0; fee = feeFixed + amount × feePercent / 100, rounded up to the
 * currency's decimals. estimate_fee and every fee-charging action call `resolve`.
 */
import { BigNumber } from "bignumber.js"
import { Context, Effect, Layer } from "effect"
import { ChangeNotices } from "./ChangeNotices.ts"
import { SystemWallet } from "../../sql/Ledger.ts"
import { allTariffs, replaceTariffs, type Tariff } from "../../sql/ReferenceRepo.ts"

export type { Tariff }
import type { TxClass } from "../../schema/Reference.ts"
import { fromMinorUnits } from "../../schema/Money.ts"
import { makeDb } from "./db/Sql.ts"

export const tariffCacheMs = 1_000

export interface FeeQuote {
  readonly fee: bigint
  readonly profitWalletId: bigint
}

export interface FeeQuery {
  readonly txClass: TxClass
  readonly currency: string
  readonly decimals: number
  readonly amount: bigint
  readonly walletGroup: number
  readonly typeTx?: number | undefined
}

const specificity = (rule: Tariff): number =>
  (rule.walletGroup !== null ? 4 : 0) +
  (rule.typeTx !== null ? 2 : 0) +
  (rule.minAmount !== null || rule.maxAmount !== null ? 1 : 0)

/** The most specific rule matching a query, if any. */
export const ruleFor = (rules: ReadonlyArray<Tariff>, query: FeeQuery): Tariff | undefined => {
  const amount = new BigNumber(fromMinorUnits(query.amount, query.decimals))
  let best: Tariff | undefined
  for (const rule of rules) {
    if (rule.txClass !== query.txClass || rule.currency !== query.currency) continue
    if (rule.walletGroup !== null && rule.walletGroup !== query.walletGroup) continue
    if (rule.typeTx !== null && rule.typeTx !== query.typeTx) continue
    if (rule.minAmount !== null && amount.lt(rule.minAmount)) continue
    if (rule.maxAmount !== null && amount.gt(rule.maxAmount)) continue
    if (best === undefined || specificity(rule) >= specificity(best)) best = rule
  }
  return best
}

/** The fee of `query`; `withFixed` false leaves feeFixed out (an exchange order pays it on its first fill only, C14). */
export const quoteFee = (rules: ReadonlyArray<Tariff>, query: FeeQuery, withFixed = true): FeeQuote => {
  const best = ruleFor(rules, query)
  if (best === undefined) return { fee: 0n, profitWalletId: SystemWallet.Fees }
  const amount = new BigNumber(fromMinorUnits(query.amount, query.decimals))
  // shiftedBy(-2) is the exact "/ 100": BigNumber's div rounds to 20 places, which could turn a tiny
  // positive fee into 0 before the rounding up below.
  const fee = new BigNumber(withFixed ? best.feeFixed : 0).plus(amount.times(best.feePercent).shiftedBy(-2))
  const minor = fee.shiftedBy(query.decimals).integerValue(BigNumber.ROUND_CEIL)
  return { fee: BigInt(minor.toFixed(0)), profitWalletId: best.profitWalletId ?? SystemWallet.Fees }
}

export class Tariffs extends Context.Service<
  Tariffs,
  {
    readonly resolve: (query: FeeQuery) => Effect.Effect<FeeQuote>
    readonly replace: (rules: ReadonlyArray<Tariff>) => Effect.Effect<number>
    readonly list: () => Effect.Effect<ReadonlyArray<Tariff>>
  }
>()("core/Tariffs") {
  static readonly layer = Layer.effect(
    Tariffs,
    Effect.gen(function* () {
      const db = yield* makeDb
      const notices = yield* ChangeNotices
      // The rule table is small and read by every fee-charging action, so it is cached for at most
      // tariffCacheMs, and dropped by every process the moment the table changes (ChangeNotices).
      const cache = notices.cache<ReadonlyArray<Tariff>>(["tariffs"], tariffCacheMs)
      const list = () => cache.get("rules", db(allTariffs))
      return Tariffs.of({
        resolve: (query) => Effect.map(list(), (rules) => quoteFee(rules, query)),
        replace: (rules) =>
          Effect.as(
            Effect.tap(db(replaceTariffs(rules)), () => Effect.sync(() => notices.changed("tariffs"))),
            rules.length
          ),
        list
      })
    })
  )
}

/** Which tariff class a numeric typeTx belongs to (CONTRACT C7/C11). */
export const txClassOfType = (typeTx: number): TxClass | undefined => {
  if (typeTx >= 11 && typeTx <= 14) return "InnerTransfer"
  switch (typeTx) {
    case 1:
      return "Deposit"
    case 2:
      return "Withdraw"
    case 15:
      return "SelfTransfer"
    case 16:
    case 17:
      return "Exchange"
    case 19:
      return "Refund"
    case 20:
      return "Payment"
    case 21:
      return "Payout"
    case 27:
      return "FederationTransfer"
    default:
      return undefined
  }
}
