/**
 * Resolves an internal_transfer recipient (SPEC rules 1-2, CONTRACT C12), read in this order:
 * starts with W → internal wallet address; + → phone; @ → messenger id; all digits → a wallet_id
 * when such a wallet exists in the sender's project, else a CRM id. Client-level identifiers
 * resolve to that client's IsDefault wallet.
 */
import { Context, Effect, Layer } from "effect"
import { defaultWalletByClientField } from "../../../sql/RecipientRepo.ts"
import { findWalletByAddress, type Wallet, walletById } from "../../../sql/WalletRepo.ts"
import { WalletNotFound } from "../../../schema/Errors.ts"
import { ChangeNotices } from "../../platform/ChangeNotices.ts"
import { makeDb } from "../../platform/db/Sql.ts"

/** How long a recipient's wallet row may be reused (any wallet row's change drops it at once). */
export const recipientCacheMs = 30_000

export class Recipients extends Context.Service<
  Recipients,
  {
    readonly resolve: (recipient: string, senderProject: number) => Effect.Effect<Wallet, WalletNotFound>
  }
>()("core/Recipients") {
  static readonly layer = Layer.effect(
    Recipients,
    Effect.gen(function* () {
      const db = yield* makeDb
      /**
       * Wallet rows by id and by address, as every step one reads its recipient: dropped whenever any wallet
       * row changes (ChangeNotices, like the sender's session and flags), so a deleted recipient is refused
       * from its next transfer on.
       */
      const wallets = (yield* ChangeNotices).cache<Wallet | undefined>(["wallets"], recipientCacheMs)
      const notFound = (recipient: string) =>
        new WalletNotFound({ message: `recipient: no wallet found for "${recipient}"` })
      const found = (recipient: string) => (row: Wallet | undefined) =>
        row === undefined || row.id < 0n ? Effect.fail(notFound(recipient)) : Effect.succeed(row)
      return Recipients.of({
        resolve: (recipient, senderProject) => {
          const text = recipient.trim()
          if (text.startsWith("W")) return Effect.flatMap(wallets.get(text, db(findWalletByAddress(text))), found(text))
          if (text.startsWith("+")) return Effect.flatMap(db(defaultWalletByClientField("phone", text)), found(text))
          if (text.startsWith("@"))
            return Effect.flatMap(db(defaultWalletByClientField("messenger_id", text)), found(text))
          if (/^[0-9]{1,19}$/.test(text)) {
            return Effect.flatMap(wallets.get(text, db(walletById(text))), (wallet) =>
              wallet !== undefined && wallet.id > 0n && wallet.project === senderProject
                ? Effect.succeed(wallet)
                : Effect.flatMap(db(defaultWalletByClientField("crm_id", text)), found(text))
            )
          }
          return Effect.flatMap(db(defaultWalletByClientField("crm_id", text)), found(text))
        }
      })
    })
  )
}
