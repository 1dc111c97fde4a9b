import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../../../schema/Api.ts"
import { ok } from "../../../schema/Envelope.ts"
import { publicInfo } from "./PublicInfo.ts"

/** Declared for the contract and the OpenAPI document; the server's fast path answers it first (src/http/NodeServer.ts). */
export const PublicHandlers = HttpApiBuilder.group(Api, "public", (handlers) =>
  handlers.handle("get_info", () => ok(publicInfo()))
)
