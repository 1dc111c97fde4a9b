/**
 * A wallet's flags as its actor checks them before every debit (C19 §5): WalletBlock or Deleted
 * refuse it. Read from SQL and dropped at once whenever any wallet row changes, in this process or
 * another (ChangeNotices: nothing is cached while that listener is down), so a block takes effect on
 * the next debit. The time bound is only a backstop: at one second a wallet paying every second or two
 * missed it nearly always, one SELECT per debit (payments_e2e 11-15% behind its pre-C19 figure).
 */
import { Context, Effect, Layer } from "effect"
import { walletById } from "../../sql/WalletRepo.ts"
import { WalletFlag } from "../../schema/Wallet.ts"
import { ChangeNotices } from "./ChangeNotices.ts"
import { makeDb } from "./db/Sql.ts"

/** How long a read wallet's flags may be reused (any change drops them at once). */
export const walletFlagsCacheMs = 30_000

/** The flags that stop a wallet's own debits (C19 §5). */
export const debitBlockingFlags = WalletFlag.WalletBlock | WalletFlag.Deleted

export class WalletFlags extends Context.Service<
  WalletFlags,
  {
    /** The wallet's flags (0 for a wallet not found: the debit then fails on its balance). */
    readonly of: (walletId: bigint) => Effect.Effect<number>
  }
>()("core/WalletFlags") {
  static readonly layer = Layer.effect(
    WalletFlags,
    Effect.gen(function* () {
      const db = yield* makeDb
      const notices = yield* ChangeNotices
      const cache = notices.cache<number | undefined>(["wallets"], walletFlagsCacheMs)
      return WalletFlags.of({
        of: (walletId) =>
          Effect.map(
            cache.get(
              String(walletId),
              Effect.map(db(walletById(walletId)), (row) => row?.flags)
            ),
            (flags) => flags ?? 0
          )
      })
    })
  )
}
