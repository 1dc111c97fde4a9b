/**
 * Merchant webhooks (CONTRACT C16 "Merchant webhooks (outbound)"; docs/WEBHOOKS.md): an app's webhook
 * settings and the deliveries of its orders' events.
 */
import { Schema } from "effect"
import { AppId, AppIdOut } from "./Ids.ts"

/** set_app_webhook: the app's URL (null: none) and, on request, a new signing secret. */
export const SetAppWebhookIn = Schema.Struct({
  appId: AppId,
  // Its own rules (http(s), ≤ 2048, no userinfo, no private host) answer 10340 (src/platform/WebhookUrls.ts).
  webhookUrl: Schema.NullOr(Schema.String.check(Schema.isMaxLength(8192))),
  rotateSecret: Schema.optional(Schema.Boolean)
}).annotate({ identifier: "SetAppWebhookIn" })
export type SetAppWebhookIn = typeof SetAppWebhookIn.Type

export const SetAppWebhookOut = Schema.Struct({
  appId: AppIdOut,
  webhookUrl: Schema.NullOr(Schema.String),
  webhookSecret: Schema.NullOr(Schema.String).annotate({
    description: "The new secret when rotated (shown once), else null"
  })
}).annotate({ identifier: "SetAppWebhookOut" })
export type SetAppWebhookOut = typeof SetAppWebhookOut.Type

export const WebhookAttemptOut = Schema.Struct({
  attempt: Schema.Int,
  at: Schema.String,
  httpStatus: Schema.NullOr(Schema.Int),
  error: Schema.NullOr(Schema.String),
  durationMs: Schema.Int
}).annotate({ identifier: "WebhookAttemptOut" })

export const WebhookDeliveryOut = Schema.Struct({
  eventId: Schema.String,
  type: Schema.String,
  url: Schema.String,
  state: Schema.Literals(["Pending", "Delivered", "Failed"]),
  attempts: Schema.Int,
  nextAttemptAt: Schema.NullOr(Schema.String),
  history: Schema.Array(WebhookAttemptOut)
}).annotate({ identifier: "WebhookDeliveryOut" })
export type WebhookDeliveryOut = typeof WebhookDeliveryOut.Type
