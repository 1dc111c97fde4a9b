/**
 * Implementations of the credential middleware of schema/Security.ts (CONTRACT C2), where the edge's
 * credential rules live (C19 §2, §8): a service key's scope and a named key's operator rule, and the
 * token buckets — a valid credential spends its own (admin keys none), a missing or wrong one spends its
 * client address's, so guessing keys is limited like any anonymous request. Each middleware sets the
 * caller's key (CallerKey) the long-poll waiter limit counts by.
 */
import { Effect, Layer, Option, Redacted } from "effect"
import { HttpServerRequest } from "effect/http"
import { AppDisabled, KeyScope } from "../../schema/EdgeErrors.ts"
import { RequestId } from "../../schema/Envelope.ts"
import { Forbidden, Unauthorized } from "../../schema/Errors.ts"
import {
  CallerKey,
  CurrentApp,
  CurrentService,
  CurrentSession,
  MerchantAuth,
  operatorActions,
  scopeAllows,
  ServiceAuth,
  SessionAuth
} from "../../schema/Security.ts"
import { WalletFlag } from "../../schema/Wallet.ts"
import { Credentials } from "../services/wallets/Credentials.ts"
import { rateLimited } from "./EdgeRules.ts"
import { RateLimits } from "./RateLimits.ts"

const unauthorized = (what: string) => new Unauthorized({ message: `${what}: missing or invalid credential` })

const build = Effect.gen(function* () {
  const credentials = yield* Credentials
  const limits = yield* RateLimits
  /** No valid credential: 401, or 429 once the client address has spent its tokens. */
  const refuse = (what: string) =>
    HttpServerRequest.HttpServerRequest.use((request) => {
      const wait = limits.byAddress(Option.getOrUndefined(request.remoteAddress))
      return wait > 0 ? RequestId.useSync((id) => rateLimited(id, wait)) : Effect.fail(unauthorized(what))
    })
  /** A valid credential's token: undefined when there was one, else its 429. */
  const spend = (caller: string) => {
    const wait = limits.byCredential(caller)
    return wait > 0 ? RequestId.useSync((id) => rateLimited(id, wait)) : undefined
  }
  return { credentials, refuse, spend }
})

export const SessionAuthLive = Layer.effect(
  SessionAuth,
  Effect.map(build, ({ credentials, refuse, spend }) =>
    SessionAuth.of({
      sid: (httpEffect, { credential }) =>
        Effect.gen(function* () {
          const session = yield* credentials.session(Redacted.value(credential))
          if (Option.isNone(session)) return yield* refuse("sid")
          // C19 §5: a session of a Deleted wallet is refused on every action.
          if ((session.value.flags & WalletFlag.Deleted) !== 0)
            return yield* Effect.fail(new Unauthorized({ message: "sid: the session's wallet is deleted" }))
          const caller = `session:${session.value.key}`
          const limited = spend(caller)
          if (limited !== undefined) return yield* limited
          return yield* httpEffect.pipe(
            Effect.provideService(CurrentSession, session.value),
            Effect.provideService(CallerKey, caller)
          )
        })
    })
  )
)

export const ServiceAuthLive = Layer.effect(
  ServiceAuth,
  Effect.map(build, ({ credentials, refuse, spend }) =>
    ServiceAuth.of({
      bearer: (httpEffect, { credential, endpoint }) =>
        Effect.gen(function* () {
          const key = credentials.serviceKey(Redacted.value(credential))
          if (key === undefined) return yield* refuse("Authorization")
          const caller = `key:${key.keyId}`
          const limited = key.scope === "admin" ? undefined : spend(caller)
          if (limited !== undefined) return yield* limited
          const action = endpoint.identifier
          if (!scopeAllows(key.scope, action))
            return yield* new KeyScope({ message: `Authorization: a ${key.scope} key may not call ${action}` })
          if (key.name !== undefined && operatorActions.has(action)) {
            const owner = (yield* HttpServerRequest.HttpServerRequest).headers["x-owner-id"]
            if (owner !== undefined && owner !== key.name)
              return yield* new KeyScope({ message: "X-Owner-Id: a named key acts only as its own operator" })
          }
          return yield* httpEffect.pipe(
            Effect.provideService(CurrentService, { keyId: key.keyId, scope: key.scope, name: key.name }),
            Effect.provideService(CallerKey, caller)
          )
        })
    })
  )
)

/** The pkey names one app; a valid pkey used with another app's app_id is 403. */
export const MerchantAuthLive = Layer.effect(
  MerchantAuth,
  Effect.map(build, ({ credentials, refuse, spend }) =>
    MerchantAuth.of({
      pkey: (httpEffect, { credential }) =>
        Effect.gen(function* () {
          const app = yield* credentials.app(Redacted.value(credential))
          if (Option.isNone(app)) return yield* refuse("pkey")
          // C19 §5: a disabled app's key is refused before anything else it could do.
          if (!app.value.enabled) return yield* Effect.fail(new AppDisabled({ message: "pkey: the app is disabled" }))
          const caller = `app:${app.value.appId}`
          const limited = spend(caller)
          if (limited !== undefined) return yield* limited
          const request = yield* HttpServerRequest.HttpServerRequest
          const requested = new URL(request.url, "http://local").searchParams.get("app_id")
          if (requested !== null && requested !== app.value.appId) {
            return yield* Effect.fail(new Forbidden({ message: "app_id: the key does not belong to this app" }))
          }
          return yield* httpEffect.pipe(
            Effect.provideService(CurrentApp, { appId: app.value.appId, walletId: app.value.walletId }),
            Effect.provideService(CallerKey, caller)
          )
        })
    })
  )
)
