/**
 * The inbound webhook (CONTRACT C18 "Inbound webhook"): a partner's C16 merchant webhooks, verified
 * over the raw body (HMAC-SHA256 with the partner app's webhookSecret, src/platform/WebhookSignature.ts),
 * then checked in C18's order. Order events are never trusted: our record is found by the body's
 * externalId and the partner's order is read back before anything moves; chat events become one events
 * item per eventId.
 */
import { timingSafeEqual } from "node:crypto"
import { Context, Effect, Layer, Redacted } from "effect"
import { linkByTx, recordChat, setLinkRemote } from "../../../sql/FederationRepo.ts"
import { InvalidRequest } from "../../../schema/Errors.ts"
import {
  FederationSignatureInvalid,
  type FederationWebhookOut,
  PartnerCapabilityMissing,
  PartnerEventMismatch,
  PartnerOrderNotFound,
  type PartnerRefused,
  type PartnerUnavailable
} from "../../../schema/Federation.ts"
import { AppConfigService } from "../../platform/Config.ts"
import { makeDb } from "../../platform/db/Sql.ts"
import { webhookSignature } from "../../platform/WebhookSignature.ts"
import { FederationOrders, txIdOfExternal } from "./FederationOrders.ts"
import { Partners } from "./Partners.ts"
import { paidStates } from "./Settlement.ts"

export interface InboundWebhook {
  readonly partnerId: string | undefined
  readonly timestamp: string | undefined
  readonly signature: string | undefined
  readonly body: string
}

export type WebhookError =
  | FederationSignatureInvalid
  | PartnerCapabilityMissing
  | InvalidRequest
  | PartnerEventMismatch
  | PartnerOrderNotFound
  | PartnerRefused
  | PartnerUnavailable

const sameText = (a: string, b: string) => {
  const x = Buffer.from(a, "utf8")
  const y = Buffer.from(b, "utf8")
  return x.length === y.length && timingSafeEqual(x, y)
}

const isObject = (value: unknown): value is Record<string, any> =>
  value !== null && typeof value === "object" && !Array.isArray(value)

/** An ISO 8601 date-time with its offset, as C16's events carry `createdAt` (a Date's toISOString()). */
const isTime = (value: unknown): boolean =>
  typeof value === "string" &&
  /^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}(:[0-9]{2}(\.[0-9]{1,9})?)?(Z|[+-][0-9]{2}:[0-9]{2})$/.test(value) &&
  Number.isFinite(Date.parse(value))

export class FederationWebhook extends Context.Service<
  FederationWebhook,
  { readonly accept: (hook: InboundWebhook) => Effect.Effect<FederationWebhookOut, WebhookError> }
>()("core/FederationWebhook") {
  static readonly layer = Layer.effect(
    FederationWebhook,
    Effect.gen(function* () {
      const db = yield* makeDb
      const config = yield* AppConfigService
      const partners = yield* Partners
      const orders = yield* FederationOrders

      const accept = Effect.fn("FederationWebhook.accept")(function* (hook: InboundWebhook) {
        const unauthorized = (why: string) => new FederationSignatureInvalid({ message: why })
        // C19 §6: one message for an unknown (or disabled) partner, a missing and a bad signature, so the
        // answer does not tell which partner ids exist.
        const refused = "X-Webhook-Signature: does not verify for this partner"
        const partner = hook.partnerId === undefined ? undefined : yield* partners.find(hook.partnerId)
        if (partner === undefined || !partner.enabled) return yield* unauthorized(refused)
        if (hook.signature === undefined || hook.timestamp === undefined || !/^[0-9]{1,12}$/.test(hook.timestamp))
          return yield* unauthorized(refused)
        const expected = webhookSignature(Redacted.value(partner.webhookSecret), Number(hook.timestamp), hook.body)
        if (!sameText(expected, hook.signature)) return yield* unauthorized(refused)
        if (Math.abs(Date.now() / 1000 - Number(hook.timestamp)) > config.federationWebhookToleranceSeconds)
          return yield* unauthorized("X-Webhook-Timestamp: outside the tolerance")
        if (!partner.capabilities.includes("Federation"))
          return yield* new PartnerCapabilityMissing({ message: `partner ${partner.partnerId} lacks Federation` })
        let event: unknown
        try {
          event = JSON.parse(hook.body)
        } catch {
          return yield* new InvalidRequest({ message: "body: not JSON" })
        }
        if (
          !isObject(event) ||
          typeof event.eventId !== "string" ||
          event.eventId.length === 0 ||
          event.eventId.length > 200 ||
          typeof event.type !== "string" ||
          !isObject(event.data) ||
          (typeof event.appId !== "string" && typeof event.appId !== "number")
        )
          return yield* new InvalidRequest({
            message: "body: { eventId, type, createdAt, appId, data } with data an object"
          })
        if (!isTime(event.createdAt))
          return yield* new InvalidRequest({ message: "createdAt: must be an ISO 8601 date-time" })
        if (String(event.appId) !== String(partner.outboundAppId))
          return yield* new PartnerEventMismatch({ message: "appId: not our app on this partner" })
        const type: string = event.type
        const money = type.startsWith("PaymentOrder.") || type.startsWith("TransferOrder.")
        const chat = type.startsWith("Chat.")
        if (money && !partner.capabilities.includes("FederationWallet"))
          return yield* new PartnerCapabilityMissing({ message: `partner ${partner.partnerId} lacks FederationWallet` })
        if (chat && !partner.capabilities.includes("FederationChat"))
          return yield* new PartnerCapabilityMissing({ message: `partner ${partner.partnerId} lacks FederationChat` })

        if (money) {
          const txId = txIdOfExternal(event.data.externalId)
          const link = txId === undefined ? undefined : yield* db(linkByTx(txId))
          if (link === undefined || link.partnerId !== partner.partnerId || link.txState === null || link.kind === 2)
            return yield* new PartnerOrderNotFound({ message: "data.externalId: no partner order of ours" })
          // A transfer whose put_transfer_order answer was lost does not know its partner order yet: the
          // event's id is only a hint; the read-back must show our externalId before anything moves.
          const hinted =
            link.remoteId === null && typeof event.data.id === "string" && /^[0-9]{1,19}$/.test(event.data.id)
          const known = hinted ? { ...link, remoteId: event.data.id as string } : link
          const order = yield* orders.fetchOrder(partner, known)
          if (hinted) yield* db(setLinkRemote(link.txId, known.remoteId!))
          // Decided before the read-back is applied: a Paid claim the partner's order denies moves nothing.
          if (type.endsWith(".Paid") && !paidStates.has(order?.state))
            return yield* new PartnerEventMismatch({
              message: `type: ${type} while the partner's order reads ${String(order?.state)}`
            })
          const applied = yield* orders.applyReadBack(known, order)
          return { accepted: true, duplicate: applied.settled, txId: String(link.txId) }
        }
        if (type === "Chat.Message") {
          const from = event.data.from
          const text = event.data.text
          if (typeof from !== "string" || from.length < 1 || from.length > 100)
            return yield* new InvalidRequest({ message: "data.from: 1–100 characters" })
          if (typeof text !== "string" || text.length < 1 || text.length > 4000)
            return yield* new InvalidRequest({ message: "data.text: 1–4000 characters" })
          const fresh = yield* db(
            recordChat(partner.partnerId, event.eventId, BigInt(Date.now()) * 1000n, {
              partnerId: partner.partnerId,
              from,
              text
            })
          )
          return { accepted: true, duplicate: !fresh, txId: null }
        }
        return { accepted: false, duplicate: false, txId: null }
      })

      return FederationWebhook.of({ accept })
    })
  )
}
