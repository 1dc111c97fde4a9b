/**
 * The inbound webhook (CONTRACT C18 "Inbound webhook"): a partner's C16 merchant webhooks, verified
 * over the raw body (HMAC-SHA256 with the partner app's webhookSecret, src/platform/Signing.ts), then
 * decoded with its schema/ shapes (schema/FederationWire.ts; a body that does not decode is 10001 naming
 * the field) and checked in C18's order. Order events are never trusted: our record is found by the body's
 * externalId and the partner's order is read back before anything moves; chat events become one events
 * item per eventId.
 */
import { Context, Effect, Layer, Redacted, Result } from "effect"
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
import { ChatMessageData, FederationWebhookIn, PartnerOrderEventData } from "../../../schema/FederationWire.ts"
import { AppConfigService } from "../../platform/Config.ts"
import { makeDb } from "../../platform/db/Sql.ts"
import { decodeJson, decodeValue } from "../../platform/ForeignJson.ts"
import { verify } from "../../platform/Signing.ts"
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

const decodeEvent = decodeJson(FederationWebhookIn)
const decodeOrderData = decodeValue(PartnerOrderEventData, "data")
const decodeChatData = decodeValue(ChatMessageData, "data")

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
        const check = verify({
          secret: Redacted.value(partner.webhookSecret),
          timestamp: hook.timestamp,
          signature: hook.signature,
          body: hook.body,
          nowSeconds: Date.now() / 1000,
          toleranceSeconds: config.federationWebhookToleranceSeconds,
          prefix: "v1="
        })
        if (check === "stale") return yield* unauthorized("X-Webhook-Timestamp: outside the tolerance")
        if (check !== "ok") return yield* unauthorized(refused)
        if (!partner.capabilities.includes("Federation"))
          return yield* new PartnerCapabilityMissing({ message: `partner ${partner.partnerId} lacks Federation` })
        const decoded = decodeEvent(hook.body)
        if (Result.isFailure(decoded)) return yield* new InvalidRequest({ message: decoded.failure })
        const event = decoded.success
        if (String(event.appId) !== String(partner.outboundAppId))
          return yield* new PartnerEventMismatch({ message: "appId: not our app on this partner" })
        const type = event.type
        const money = type.startsWith("PaymentOrder.") || type.startsWith("TransferOrder.")
        const chat = type.startsWith("Chat.")
        if (money && !partner.capabilities.includes("FederationWallet"))
          return yield* new PartnerCapabilityMissing({ message: `partner ${partner.partnerId} lacks FederationWallet` })
        if (chat && !partner.capabilities.includes("FederationChat"))
          return yield* new PartnerCapabilityMissing({ message: `partner ${partner.partnerId} lacks FederationChat` })

        if (money) {
          const data = decodeOrderData(event.data)
          if (Result.isFailure(data)) return yield* new InvalidRequest({ message: data.failure })
          const txId = txIdOfExternal(data.success.externalId)
          const link = txId === undefined ? undefined : yield* db(linkByTx(txId))
          if (link === undefined || link.partnerId !== partner.partnerId || link.txState === null || link.kind === 2)
            return yield* new PartnerOrderNotFound({ message: "data.externalId: no partner order of ours" })
          // A transfer whose put_transfer_order answer was lost does not know its partner order yet: the
          // event's id is only a hint; the read-back must show our externalId before anything moves.
          const hint = link.remoteId === null ? data.success.id : undefined
          const known = hint === undefined ? link : { ...link, remoteId: hint }
          const order = yield* orders.fetchOrder(partner, known)
          if (hint !== undefined) yield* db(setLinkRemote(link.txId, hint))
          // Decided before the read-back is applied: a Paid claim the partner's order denies moves nothing.
          if (type.endsWith(".Paid") && !paidStates.has(order.state))
            return yield* new PartnerEventMismatch({
              message: `type: ${type} while the partner's order reads ${order.state}`
            })
          const applied = yield* orders.applyReadBack(known, order)
          return { accepted: true, duplicate: applied.settled, txId: String(link.txId) }
        }
        if (type === "Chat.Message") {
          const chatData = decodeChatData(event.data)
          if (Result.isFailure(chatData)) return yield* new InvalidRequest({ message: chatData.failure })
          const { from, text } = chatData.success
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
