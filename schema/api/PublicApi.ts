/** Unauthenticated endpoints: the public health `get_info` (SPEC "Authentication"). */
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { Envelope } from "../Envelope.ts"
import { PublicInfo } from "../Reference.ts"

export class PublicApi extends HttpApiGroup.make("public")
  .add(HttpApiEndpoint.get("get_info", "/get_info", { success: Envelope(PublicInfo) }))
  .prefix("/core/v1")
  .annotateMerge(OpenApi.annotations({ title: "Public", description: "Public health; no credentials" })) {}
