/**
 * The wallet actor: holds its wallet's known balances, decides with the pure engine, commits
 * through the ledger writer and replies after the commit. Messages are handled one at a time, so
 * two spends of the same money can never both pass; SQL CHECK constraints back every move.
 * Credits by other actors only raise balances, so a stale cache can only under-state funds: when
 * a debit looks short, the actor reloads from SQL before refusing.
 */
import { Effect } from "effect"
import { Entity } from "effect/cluster"
import { balanceOf } from "../../sql/LedgerRepo.ts"
import { BalanceNotEnough, ExternalIdConflict } from "../../schema/Errors.ts"
import { limits } from "../../src/Config.ts"
import { makeDb } from "../../src/db/Sql.ts"
import { LedgerWriter } from "../../src/services/LedgerWriter.ts"
import { applyPostings, type Buckets, emptyBuckets, treasuryPosting } from "./Engine.ts"
import { WalletEntity } from "./Protocol.ts"

const TxType = { Adjustment: 22 } as const
const TxState = { Finished: 8 } as const

export const WalletEntityLayer = WalletEntity.toLayer(
  Effect.gen(function*() {
    const address = yield* Entity.CurrentAddress
    const walletId = BigInt(address.entityId)
    const db = yield* makeDb
    const ledger = yield* LedgerWriter
    const known = new Map<string, Buckets>()

    const load = Effect.fnUntraced(function*(currency: string) {
      const row = yield* db(balanceOf(String(walletId), currency))
      const buckets = row === undefined ? emptyBuckets() : {
        free: BigInt(row.free), lockOut: BigInt(row.lock_out), lockIn: BigInt(row.lock_in), lockOrders: BigInt(row.lock_orders)
      }
      known.set(currency, buckets)
      return buckets
    })
    const bucketsOf = (currency: string) => {
      const cached = known.get(currency)
      return cached !== undefined ? Effect.succeed(cached) : load(currency)
    }

    return WalletEntity.of({
      PostTreasury: Effect.fnUntraced(function*({ payload }) {
        const amount = BigInt(payload.amountMinor)
        let decision = treasuryPosting(walletId, yield* bucketsOf(payload.currency), payload.currency, amount, payload.direction)
        if (decision._tag === "Reject") {
          decision = treasuryPosting(walletId, yield* load(payload.currency), payload.currency, amount, payload.direction)
        }
        if (decision._tag === "Reject") {
          return yield* new BalanceNotEnough({ message: `amount: free ${payload.currency} balance does not cover the debit` })
        }
        const counterparty = -1n
        const idUpdate = yield* ledger.commit({
          tx: {
            id: BigInt(payload.txId),
            typeTx: TxType.Adjustment,
            txState: TxState.Finished,
            walletFrom: payload.direction === "credit" ? counterparty : walletId,
            walletTo: payload.direction === "credit" ? walletId : counterparty,
            currency: payload.currency,
            amount,
            fee: 0n,
            tag: payload.tag,
            appId: null,
            externalId: payload.externalId,
            requestHash: payload.requestHash
          },
          postings: decision.postings
        }).pipe(
          Effect.catch((failure): Effect.Effect<never, BalanceNotEnough | ExternalIdConflict> => {
            known.delete(payload.currency)
            return failure._tag === "Duplicate"
              ? Effect.fail(new ExternalIdConflict({ message: "externalId: already used" }))
              : Effect.fail(new BalanceNotEnough({ message: "amount: the balance changed; retry" }))
          })
        )
        applyPostings(walletId, known, decision.postings)
        return { txId: payload.txId, idUpdate: String(idUpdate) }
      }),
      Reload: () => Effect.sync(() => known.clear())
    })
  }),
  { maxIdleTime: `${limits.walletIdleSeconds} seconds`, mailboxCapacity: limits.walletMailboxMax }
)
