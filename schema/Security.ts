/**
 * Credentials (CONTRACT C2) as HttpApi middleware. Each area's group carries one of these; the
 * implementations (src/http/Auth.ts) resolve the credential and provide the caller.
 */
import { Context } from "effect"
import { HttpApiMiddleware, HttpApiSecurity } from "effect/http-api"
import { AppDisabled, KeyScope } from "./EdgeErrors.ts"
import { Forbidden, Unauthorized } from "./Errors.ts"
import type { AppId, ClientId, WalletId } from "./Ids.ts"

export type KeyType = "Fido2Key" | "PassKey" | "UserKey" | "None"

export class CurrentSession extends Context.Service<
  CurrentSession,
  {
    readonly walletId: WalletId
    readonly clientId: ClientId
    readonly project: number
    /** The wallet's flags and group as read with the session (this request's view of the wallet). */
    readonly flags: number
    readonly walletGroup: number
  }
>()("core/CurrentSession") {}

export class CurrentApp extends Context.Service<
  CurrentApp,
  {
    readonly appId: AppId
    readonly walletId: WalletId
  }
>()("core/CurrentApp") {}

/**
 * Scopes of service keys (CONTRACT C19 §2): the `/private/v1/` actions each may call. `admin` calls every
 * one. scanner_terminal (C19 §10) is both a scanner's and a signer's read. Admin-only actions are every action no other scope lists: among them
 * release_withdrawal (C19 §9), which a signer key may not call.
 */
export const serviceScopes = {
  admin: "every action",
  scanner: ["tx_list_push", "address_block_list", "scanner_terminal"],
  signer: ["list_txs_to_send", "tx_send_report", "scanner_terminal"],
  invest: ["create_investment", "activate_investment", "set_profits_for_investments", "get_investment"]
} as const satisfies Record<string, "every action" | ReadonlyArray<string>>

export type ServiceScope = keyof typeof serviceScopes

export const isServiceScope = (scope: string): scope is ServiceScope => Object.hasOwn(serviceScopes, scope)

/** Whether a key of `scope` may call the action (the endpoint's name). */
export const scopeAllows = (scope: ServiceScope, action: string): boolean => {
  const actions = serviceScopes[scope]
  return actions === "every action" || (actions as ReadonlyArray<string>).includes(action)
}

/** The actions on which a named key is the operator (C19 §2: X-Owner-Id absent, or equal to the name). */
export const operatorActions: ReadonlySet<string> = new Set(serviceScopes.invest)

export class CurrentService extends Context.Service<
  CurrentService,
  {
    readonly keyId: string
    readonly scope: ServiceScope
    /** The key's name (`name@scope:secret`), the operator it stands for; undefined for an unnamed key. */
    readonly name: string | undefined
  }
>()("core/CurrentService") {}

/**
 * Who is calling, as the edge limits count it (C19 §8): one key per session, app or service key, set by
 * the credential middleware. Long-poll waiters are counted per this key (src/services/ledger/Feeds.ts).
 */
export const CallerKey = Context.Reference<string>("core/CallerKey", { defaultValue: () => "anonymous" })

/** Wallet user: the `sid` cookie. */
export class SessionAuth extends HttpApiMiddleware.Service<SessionAuth, { provides: CurrentSession }>()(
  "core/SessionAuth",
  {
    security: { sid: HttpApiSecurity.apiKey({ in: "cookie", key: "sid" }) },
    error: [Unauthorized, Forbidden]
  }
) {}

/** Merchant: header `pkey` plus query parameter `app_id`. */
export class MerchantAuth extends HttpApiMiddleware.Service<MerchantAuth, { provides: CurrentApp }>()(
  "core/MerchantAuth",
  {
    security: { pkey: HttpApiSecurity.apiKey({ in: "header", key: "pkey" }) },
    error: [Unauthorized, Forbidden, AppDisabled]
  }
) {}

/** Trusted service or scanner: `Authorization: Bearer <service key>`; a key outside its scope is 403 10405. */
export class ServiceAuth extends HttpApiMiddleware.Service<ServiceAuth, { provides: CurrentService }>()(
  "core/ServiceAuth",
  {
    security: { bearer: HttpApiSecurity.bearer },
    error: [Unauthorized, Forbidden, KeyScope]
  }
) {}
