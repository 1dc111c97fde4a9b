import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../../../schema/Api.ts"
import { ok } from "../../../schema/Envelope.ts"
import { CurrentSession } from "../../../schema/Security.ts"
import { Wallets } from "../../services/Wallets.ts"

export const WalletHandlers = HttpApiBuilder.group(Api, "wallet", Effect.fn(function*(handlers) {
  const wallets = yield* Wallets
  return handlers
    .handle("get_info", () => CurrentSession.use((s) => Effect.flatMap(wallets.withSiblings(s.walletId), ok)))
    .handle("update_settings", ({ payload }) =>
      CurrentSession.use((s) =>
        Effect.flatMap(wallets.updateSettings(s.walletId, {
          name: payload.name ?? null, sortOrder: payload.sortOrder ?? null, isDefault: payload.isDefault ?? null
        }), ok)))
    .handle("get_balance", () => CurrentSession.use((s) => Effect.flatMap(wallets.balances(s.walletId), ok)))
    .handle("set_security", ({ payload }) =>
      CurrentSession.use((s) => Effect.flatMap(wallets.setRequire2FA(s.walletId, payload.require2FA), ok)))
}))
