/**
 * Credentials (CONTRACT C2) as HttpApi middleware. Each area's group carries one of these; the
 * implementations (src/http/Auth.ts) resolve the credential and provide the caller.
 */
import { Context } from "effect"
import { HttpApiMiddleware, HttpApiSecurity } from "effect/http-api"
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

export class CurrentService extends Context.Service<
  CurrentService,
  {
    readonly keyId: string
  }
>()("core/CurrentService") {}

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
    error: [Unauthorized, Forbidden]
  }
) {}

/** Trusted service or scanner: `Authorization: Bearer <service key>`. */
export class ServiceAuth extends HttpApiMiddleware.Service<ServiceAuth, { provides: CurrentService }>()(
  "core/ServiceAuth",
  {
    security: { bearer: HttpApiSecurity.bearer },
    error: [Unauthorized, Forbidden]
  }
) {}
