/**
 * A wallet actor's known balances. They are loaded from SQL per currency on first use. Other actors
 * may only credit this wallet, so a cached figure can only understate funds (Commit.ts decides a
 * refusal again on a fresh load).
 */
import { Effect } from "effect"
import type { Posting } from "../../sql/Ledger.ts"
import { balanceIn } from "../../sql/LedgerRepo.ts"
import type { Db } from "../../src/platform/db/Sql.ts"
import { applyPostings, type Buckets, emptyBuckets } from "./Engine.ts"

export const makeWalletState = (walletId: bigint, db: Db) => {
  const known = new Map<string, Buckets>()

  const load = Effect.fnUntraced(function* (currency: string) {
    const balance = yield* db(balanceIn(walletId, currency))
    const buckets =
      balance === undefined
        ? emptyBuckets()
        : {
            free: balance.free,
            lockOut: balance.lockOut,
            lockIn: balance.lockIn,
            lockOrders: balance.lockOrders
          }
    known.set(currency, buckets)
    return buckets
  })

  const bucketsOf = (currency: string) => {
    const cached = known.get(currency)
    return cached !== undefined ? Effect.succeed(cached) : load(currency)
  }

  return {
    walletId,
    bucketsOf,
    apply: (postings: ReadonlyArray<Posting>) => applyPostings(walletId, known, postings),
    forget: (currency?: string) => (currency === undefined ? known.clear() : known.delete(currency))
  }
}

export type WalletState = ReturnType<typeof makeWalletState>
