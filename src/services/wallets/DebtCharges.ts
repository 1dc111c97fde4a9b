/**
 * create_debt_charge (private, operator): charges a wallet toward the Fees wallet without ever
 * driving its balance negative. The wallet's actor takes at most the free balance; the answer
 * says what was charged and what remains outstanding. Idempotent by externalId: a replay returns
 * the first result, the same externalId with a different body is 10060.
 */
import { Context, Effect, Layer } from "effect"
import { createHash } from "node:crypto"
import { WalletEntity } from "../../../actors/wallet/Protocol.ts"
import { SystemWallet } from "../../../sql/Ledger.ts"
import { findTxByExternalId } from "../../../sql/LedgerRepo.ts"
import { walletById } from "../../../sql/WalletRepo.ts"
import { ExternalIdConflict, TooManyDecimals, UnknownCurrency, WalletNotFound } from "../../../schema/Errors.ts"
import { asTxId, asWalletId } from "../../../schema/Ids.ts"
import { fromMinorUnits } from "../../../schema/Money.ts"
import type { DebtChargeIn } from "../../../schema/Transfer.ts"
import { makeDb } from "../../platform/db/Sql.ts"
import { delivered } from "../../platform/Delivery.ts"
import { TimeTicks } from "../../platform/TimeTicks.ts"
import { Currencies } from "../../platform/Currencies.ts"

export interface DebtChargeResult {
  readonly txId: string | null
  readonly charged: number
  readonly outstanding: number
  readonly replayed: boolean
}

export class DebtCharges extends Context.Service<
  DebtCharges,
  {
    readonly charge: (
      input: typeof DebtChargeIn.Type
    ) => Effect.Effect<DebtChargeResult, WalletNotFound | UnknownCurrency | TooManyDecimals | ExternalIdConflict>
  }
>()("core/DebtCharges") {
  static readonly layer = Layer.effect(
    DebtCharges,
    Effect.gen(function* () {
      const db = yield* makeDb
      const ticks = yield* TimeTicks
      const currencies = yield* Currencies
      const walletActor = yield* WalletEntity.client

      const charge = Effect.fn("DebtCharges.charge")(function* (input: typeof DebtChargeIn.Type) {
        const currency = yield* currencies.require(input.currency, "currency")
        const amount = yield* currencies.toMinor(input.amount, currency, "amount")
        const requestHash =
          "debt:" +
          createHash("sha256")
            .update(JSON.stringify([input.walletId, currency.code, String(amount), input.tag ?? null]))
            .digest("hex")
        const toNumber = (minor: bigint) => Number(fromMinorUnits(minor, currency.decimals))
        const replay = Effect.flatMap(db(findTxByExternalId(input.externalId)), (previous) => {
          if (previous === undefined) return Effect.succeed(undefined)
          if (previous.requestHash !== requestHash)
            return Effect.fail(new ExternalIdConflict({ message: "externalId: already used with a different body" }))
          const charged = previous.amount
          return Effect.succeed({
            txId: String(previous.id),
            charged: toNumber(charged),
            outstanding: toNumber(amount - charged),
            replayed: true
          })
        })
        const previous = yield* replay
        if (previous !== undefined) return previous
        const wallet = yield* db(walletById(input.walletId))
        if (wallet === undefined || wallet.id < 0n)
          return yield* new WalletNotFound({ message: `walletId: no wallet ${input.walletId}` })
        const result = yield* walletActor(input.walletId)
          .ChargeDebt({
            txId: asTxId(ticks.next()),
            externalId: input.externalId,
            requestHash,
            currency: currency.code,
            amount,
            profitWalletId: asWalletId(SystemWallet.Fees),
            tag: input.tag ?? null
          })
          .pipe(
            delivered,
            // A concurrent twin with the same externalId won the insert: answer with the winner's result.
            Effect.catchTag("ExternalIdConflict", (conflict) =>
              Effect.flatMap(replay, (winner) =>
                winner !== undefined ? Effect.succeed(winner) : Effect.fail(conflict)
              )
            )
          )
        if ("replayed" in result) return result
        return {
          txId: result.txId,
          charged: toNumber(result.charged),
          outstanding: toNumber(result.outstanding),
          replayed: false
        }
      })
      return DebtCharges.of({ charge: charge as any })
    })
  )
}
