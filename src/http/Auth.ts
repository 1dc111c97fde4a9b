/** Implementations of the credential middleware of schema/Security.ts (CONTRACT C2). */
import { Effect, Layer, Option, Redacted } from "effect"
import { HttpServerRequest } from "effect/http"
import { Forbidden, Unauthorized } from "../../schema/Errors.ts"
import {
  CurrentApp,
  CurrentService,
  CurrentSession,
  MerchantAuth,
  ServiceAuth,
  SessionAuth
} from "../../schema/Security.ts"
import { Credentials } from "../services/Credentials.ts"

const unauthorized = (what: string) => new Unauthorized({ message: `${what}: missing or invalid credential` })

export const SessionAuthLive = Layer.effect(
  SessionAuth,
  Credentials.useSync((credentials) =>
    SessionAuth.of({
      sid: (httpEffect, { credential }) =>
        Effect.gen(function* () {
          const session = yield* credentials.session(Redacted.value(credential))
          if (Option.isNone(session)) return yield* Effect.fail(unauthorized("sid"))
          return yield* Effect.provideService(httpEffect, CurrentSession, session.value)
        })
    })
  )
)

export const ServiceAuthLive = Layer.effect(
  ServiceAuth,
  Credentials.useSync((credentials) =>
    ServiceAuth.of({
      bearer: (httpEffect, { credential }) =>
        credentials.isServiceKey(Redacted.value(credential))
          ? Effect.provideService(httpEffect, CurrentService, { keyId: "service" })
          : Effect.fail(unauthorized("Authorization"))
    })
  )
)

/** The pkey names one app; a valid pkey used with another app's app_id is 403. */
export const MerchantAuthLive = Layer.effect(
  MerchantAuth,
  Credentials.useSync((credentials) =>
    MerchantAuth.of({
      pkey: (httpEffect, { credential }) =>
        Effect.gen(function* () {
          const app = yield* credentials.app(Redacted.value(credential))
          if (Option.isNone(app)) return yield* Effect.fail(unauthorized("pkey"))
          const request = yield* HttpServerRequest.HttpServerRequest
          const requested = new URL(request.url, "http://local").searchParams.get("app_id")
          if (requested !== null && requested !== app.value.appId) {
            return yield* Effect.fail(new Forbidden({ message: "app_id: the key does not belong to this app" }))
          }
          return yield* Effect.provideService(httpEffect, CurrentApp, app.value)
        })
    })
  )
)
