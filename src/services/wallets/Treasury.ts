/**
 * execute_transactions (CONTRACT C3): trusted postings against the Treasury, idempotent by
 * externalId, one result per item. Each posting goes to its wallet's actor, which alone may
 * debit the wallet; a replay of an externalId returns the first result, and the same externalId
 * with a different body is refused (ExternalIdConflict).
 */
import { Context, Effect, Layer } from "effect"
import { createHash } from "node:crypto"
import { findTxByExternalId } from "../../../sql/LedgerRepo.ts"
import { walletById } from "../../../sql/WalletRepo.ts"
import { WalletEntity } from "../../../actors/wallet/Protocol.ts"
import { codeOf, ExternalIdConflict, WalletNotFound } from "../../../schema/Errors.ts"
import { asTxId } from "../../../schema/Ids.ts"
import type { ExecuteItemOut, TreasuryPostingIn } from "../../../schema/Ledger.ts"
import { makeDb } from "../../platform/db/Sql.ts"
import { delivered } from "../../platform/Delivery.ts"
import { TimeTicks } from "../../platform/TimeTicks.ts"
import { Currencies } from "../../platform/Currencies.ts"

const requestHashOf = (item: TreasuryPostingIn, amountMinor: bigint) =>
  createHash("sha256")
    .update(JSON.stringify([item.walletId, item.currency, String(amountMinor), item.direction, item.tag ?? null]))
    .digest("hex")

const failed = (externalId: string, error: { readonly _tag: string; readonly message: string }): ExecuteItemOut => ({
  externalId,
  txId: null,
  replayed: false,
  error: { code: codeOf(error._tag) ?? 10500, message: error.message }
})

export class Treasury extends Context.Service<
  Treasury,
  {
    readonly execute: (items: ReadonlyArray<TreasuryPostingIn>) => Effect.Effect<ReadonlyArray<ExecuteItemOut>>
  }
>()("core/Treasury") {
  static readonly layer = Layer.effect(
    Treasury,
    Effect.gen(function* () {
      const db = yield* makeDb
      const ticks = yield* TimeTicks
      const currencies = yield* Currencies
      const clientFor = yield* WalletEntity.client

      const replay = (item: TreasuryPostingIn, requestHash: string) =>
        Effect.map(db(findTxByExternalId(item.externalId)), (stored): ExecuteItemOut | undefined => {
          if (stored === undefined) return undefined
          if (stored.requestHash !== requestHash) {
            return failed(
              item.externalId,
              new ExternalIdConflict({ message: "externalId: already used with a different body" })
            )
          }
          return {
            externalId: item.externalId,
            txId: String(stored.id) as ExecuteItemOut["txId"],
            replayed: true,
            error: null
          }
        })

      const executeOne = (item: TreasuryPostingIn) =>
        Effect.gen(function* () {
          const currency = yield* currencies.require(item.currency, "currency")
          const amountMinor = yield* currencies.toMinor(item.amount, currency, "amount")
          const requestHash = requestHashOf(item, amountMinor)
          const previous = yield* replay(item, requestHash)
          if (previous !== undefined) return previous
          const wallet = yield* db(walletById(item.walletId))
          if (wallet === undefined || wallet.id < 0n)
            return yield* new WalletNotFound({ message: `walletId: no wallet ${item.walletId}` })
          const result = yield* clientFor(item.walletId)
            .PostTreasury({
              txId: asTxId(ticks.next()),
              externalId: item.externalId,
              requestHash,
              currency: currency.code,
              amount: amountMinor,
              direction: item.direction,
              tag: item.tag ?? null
            })
            .pipe(
              delivered,
              // A concurrent twin won the externalId: answer with the winner's result. A twin debit is
              // refused for want of the money its winner just spent, so a refusal checks for a winner too.
              Effect.catchTags({
                ExternalIdConflict: (conflict) =>
                  Effect.flatMap(replay(item, requestHash), (winner) =>
                    winner !== undefined ? Effect.succeed(winner) : Effect.fail(conflict)
                  ),
                BalanceNotEnough: (refusal) =>
                  Effect.flatMap(replay(item, requestHash), (winner) =>
                    winner !== undefined ? Effect.succeed(winner) : Effect.fail(refusal)
                  )
              })
            )
          if ("externalId" in result) return result
          return {
            externalId: item.externalId,
            txId: result.txId as ExecuteItemOut["txId"],
            replayed: false,
            error: null
          }
        }).pipe(
          Effect.catch((error: any) =>
            typeof error?._tag === "string" && codeOf(error._tag) !== undefined
              ? Effect.succeed(failed(item.externalId, error))
              : Effect.die(error)
          )
        )

      return Treasury.of({
        // Items run concurrently across wallets; each wallet's actor orders its own.
        execute: (items) => Effect.forEach(items, executeOne, { concurrency: 16 })
      })
    })
  )
}
