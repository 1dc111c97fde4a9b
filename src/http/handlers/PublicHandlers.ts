import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../../../schema/Api.ts"
import { ok } from "../../../schema/Envelope.ts"

const startedAt = Date.now()
export const version = "0.1.0"

export const PublicHandlers = HttpApiBuilder.group(Api, "public", (handlers) =>
  handlers.handle("get_info", () =>
    ok({
      status: "ok" as const,
      version,
      serverTimeUTC: new Date().toISOString(),
      uptimeSeconds: Math.floor((Date.now() - startedAt) / 1000)
    })))
