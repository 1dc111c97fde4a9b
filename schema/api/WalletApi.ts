/** Wallet (session) `/core/v1/wallet/`. */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { Envelope } from "../Envelope.ts"
import { FieldRuleViolated, WalletNotFound } from "../Errors.ts"
import { SessionAuth } from "../Security.ts"
import { GetBalanceOut, SetSecurityIn, UpdateSettingsIn, WalletInfo, WalletInfoOut } from "../Wallet.ts"

export class WalletApi extends HttpApiGroup.make("wallet")
  .add(
    HttpApiEndpoint.get("get_info", "/get_info", { success: Envelope(WalletInfoOut), error: WalletNotFound }),
    HttpApiEndpoint.post("update_settings", "/update_settings", {
      payload: UpdateSettingsIn,
      success: Envelope(WalletInfo),
      error: [WalletNotFound, FieldRuleViolated]
    }),
    HttpApiEndpoint.get("get_balance", "/get_balance", { success: Envelope(Schema.Array(GetBalanceOut)) }),
    HttpApiEndpoint.post("set_security", "/set_security", {
      payload: SetSecurityIn,
      success: Envelope(WalletInfo),
      error: WalletNotFound
    })
  )
  .middleware(SessionAuth)
  .prefix("/core/v1/wallet")
  .annotateMerge(OpenApi.annotations({ title: "Wallet", description: "Session: the active wallet" }))
{}
