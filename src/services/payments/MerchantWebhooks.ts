/**
 * Merchant webhooks (CONTRACT C16 "Merchant webhooks (outbound)"; docs/WEBHOOKS.md).
 * Events are born in SQL, in the commit of each transition (migration 0026's triggers on payment_orders
 * and payment_refunds: an outbox row only when a URL applies). Here:
 * - the dispatcher: a periodic job (once per beat across the cluster) that every limits.webhookDispatchMs reads the due Pending events (partial
 *   index webhook_events_due), claims each attempt with a conditional update (attempts n − 1 → n, so of
 *   two processes one sends it), renders the body once from the event's snapshot (stored; every attempt
 *   sends those bytes), signs it with the app's current secret, POSTs it (src/platform/WebhookHttp.ts:
 *   SSRF guard, pinned address, no redirects) and settles: Delivered, Pending with the next attempt's
 *   time (base × 2^(n−1), capped), or Failed once the budget is spent;
 * - set_app_webhook, get_webhook_deliveries and redeliver_webhook.
 * Everything the delivery needs is in our tables, so a restart resumes from them; a claimed attempt
 * whose process died is due again when its lease (timeout + 30 s) ends: at least once.
 */
import { Secrets } from "../../platform/Secrets.ts"
import { Context, Effect, Layer } from "effect"
import { paymentTraceOf } from "../../../sql/PaymentTraceRepo.ts"
import { stateName, txStateOf } from "../../../actors/payment/Protocol.ts"
import {
  appWebhookSecret,
  attemptsOfEvent,
  claimAttempt,
  deliveriesOfOrder,
  dueEventIds,
  eventById,
  orderOfEvent,
  redeliverEvent,
  refundOfEvent,
  setAppWebhook,
  settleAttempt,
  storeBody,
  type WebhookAttemptRow,
  type WebhookEventRow
} from "../../../sql/WebhookRepo.ts"
import { AppNotFound, WebhookDeliveryNotFound, type WebhookUrlRejected } from "../../../schema/PaymentErrors.ts"
import type { SetAppWebhookIn, SetAppWebhookOut, WebhookDeliveryOut } from "../../../schema/Webhooks.ts"
import { AppConfigService, limits } from "../../platform/Config.ts"
import { Currencies } from "../../platform/Currencies.ts"
import { makeDb } from "../../platform/db/Sql.ts"
import { periodicJob } from "../../platform/PeriodicJob.ts"
import { exportedSpan, inStoredTrace, traceparentOf, tracingOn } from "../../platform/Tracing.ts"
import { postWebhook, retryDelaySeconds } from "../../platform/WebhookHttp.ts"
import { newWebhookSecret, webhookSignature } from "../../platform/Signing.ts"
import { orderViews, refundStateName, refundView } from "./PaymentOrderViews.ts"
import { checkWebhookUrl } from "./WebhookUrlCheck.ts"

/** A claimed attempt not settled by then (its process died) is due again after the timeout and this margin. */
const leaseMarginSeconds = 30

/** `PaymentOrder.<state>` / `TransferOrder.<state>` (the engine's names) or `Refund.<state>`. */
const typeOf = (event: WebhookEventRow) =>
  `${event.objectType}.${event.objectType === "Refund" ? refundStateName(event.stateCode) : stateName(event.stateCode)}`

const deliveryOut = (event: WebhookEventRow, history: ReadonlyArray<WebhookAttemptRow>): WebhookDeliveryOut => ({
  eventId: event.eventId,
  type: typeOf(event),
  url: event.url,
  state: event.state,
  attempts: event.attempts,
  nextAttemptAt: event.state === "Pending" ? (event.nextAttemptAt?.toISOString() ?? null) : null,
  history: history.map((row) => ({
    attempt: row.attempt,
    at: row.at.toISOString(),
    httpStatus: row.httpStatus,
    error: row.error,
    durationMs: row.durationMs
  }))
})

export class MerchantWebhooks extends Context.Service<
  MerchantWebhooks,
  {
    readonly setAppWebhook: (
      input: SetAppWebhookIn
    ) => Effect.Effect<SetAppWebhookOut, AppNotFound | WebhookUrlRejected>
    /** The deliveries of an order (already resolved to this app's order) and of its refunds, newest first. */
    readonly deliveriesOfOrder: (orderId: string) => Effect.Effect<ReadonlyArray<WebhookDeliveryOut>>
    readonly redeliver: (appId: string, eventId: string) => Effect.Effect<WebhookDeliveryOut, WebhookDeliveryNotFound>
    /** One dispatcher pass (WebhookDispatcher runs it every limits.webhookDispatchMs). */
    readonly dispatch: Effect.Effect<void>
  }
>()("core/MerchantWebhooks") {
  static readonly layer = Layer.effect(
    MerchantWebhooks,
    Effect.gen(function* () {
      const db = yield* makeDb
      const secrets = yield* Secrets
      const config = yield* AppConfigService
      const currencies = yield* Currencies
      const decimalsOf = (currency: string) => currencies.find(currency)?.decimals ?? 0
      const { toOut } = orderViews(decimalsOf, config.publicBaseUrl)
      const refundOut = refundView(decimalsOf)
      const inFlight = new Set<string>()

      /** The body, rendered once from the event's snapshot and stored; later attempts read the stored bytes. */
      const bodyOf = (event: WebhookEventRow) =>
        Effect.gen(function* () {
          if (event.body !== null) return event.body
          const data =
            event.objectType !== "Refund"
              ? toOut((yield* db(orderOfEvent(event.eventId, txStateOf(event.stateCode))))!)
              : refundOut((yield* db(refundOfEvent(event.eventId)))!)
          const text = JSON.stringify({
            eventId: event.eventId,
            type: typeOf(event),
            createdAt: event.createdAt.toISOString(),
            appId: String(event.appId),
            data
          })
          return (yield* db(storeBody(event.eventId, text))) ?? text
        })

      /** Renders (once), signs with the app's current secret and POSTs; the attempt's outcome. */
      const send = (event: WebhookEventRow) =>
        Effect.gen(function* () {
          const body = yield* bodyOf(event)
          // The receiver may continue the payment's trace (W3C traceparent of this delivery's span).
          const span = yield* exportedSpan
          const traceHeaders: Record<string, string> = span === undefined ? {} : { traceparent: traceparentOf(span) }
          const stored = yield* db(appWebhookSecret(event.appId))
          if (stored === null) return { httpStatus: null, error: "the app has no webhook secret", durationMs: 0 }
          const secret = yield* secrets.open("apps.webhook_secret", stored)
          const timestamp = Math.floor(Date.now() / 1000)
          return yield* Effect.promise(() =>
            postWebhook(
              event.url,
              body,
              {
                "user-agent": "wallet-webhooks/1",
                "x-webhook-id": event.eventId,
                "x-webhook-timestamp": String(timestamp),
                "x-webhook-signature": webhookSignature(secret, timestamp, body),
                ...traceHeaders
              },
              config.webhookTimeoutSeconds * 1000,
              config.webhookAllowPrivateAddresses
            )
          )
        }).pipe(
          // One client span per delivery attempt, in its payment's trace (src/platform/Tracing.ts).
          (attempt) =>
            Effect.flatMap(tracingOn, (on) =>
              !on
                ? attempt
                : Effect.flatMap(db(paymentTraceOf(event.orderTxId)), (traceParent) =>
                    inStoredTrace(
                      "webhook.deliver",
                      traceParent,
                      {
                        "webhook.event_id": event.eventId,
                        "webhook.app_id": String(event.appId)
                      },
                      "client"
                    )(attempt)
                  )
            )
        )

      /** One attempt of one event, if this process wins its claim. */
      const attempt = (eventId: string) =>
        Effect.gen(function* () {
          const event = yield* db(eventById(eventId))
          if (event === undefined || event.state !== "Pending") return
          const n = event.attempts + 1
          if (!(yield* db(claimAttempt(eventId, n, config.webhookTimeoutSeconds + leaseMarginSeconds)))) return
          const at = new Date()
          const result = yield* send(event).pipe(
            Effect.catchCause((cause) =>
              Effect.as(Effect.logWarning(`webhook ${eventId}: attempt ${n} could not be made`, cause), {
                httpStatus: null,
                error: "internal error preparing the attempt",
                durationMs: Date.now() - at.getTime()
              })
            )
          )
          const delivered = result.httpStatus !== null && result.httpStatus >= 200 && result.httpStatus < 300
          const inBudget = n - event.budgetBase
          const state = delivered ? "Delivered" : inBudget >= config.webhookMaxAttempts ? "Failed" : "Pending"
          const retry =
            state === "Pending"
              ? retryDelaySeconds(inBudget, config.webhookRetryBaseSeconds, config.webhookRetryMaxDelaySeconds)
              : null
          yield* db(settleAttempt({ eventId, attempt: n, at, ...result }, event.budgetBase, state, retry))
          if (state !== "Delivered")
            yield* Effect.logInfo(`webhook ${eventId} attempt ${n}: ${result.error ?? "failed"} (${state})`)
        })

      /** One pass: every due event not already in flight here gets an attempt, each in its own fiber. */
      const dispatch = Effect.gen(function* () {
        const due = yield* db(dueEventIds(limits.webhookDispatchBatchMax))
        for (const eventId of due) {
          if (inFlight.has(eventId) || inFlight.size >= limits.webhookInFlightMax) continue
          inFlight.add(eventId)
          yield* Effect.forkChild(
            attempt(eventId).pipe(
              Effect.catchCause((cause) => Effect.logWarning(`webhook ${eventId}: attempt failed`, cause)),
              Effect.ensuring(Effect.sync(() => inFlight.delete(eventId)))
            )
          )
        }
      })

      const deliveriesOf = (orderId: string) =>
        Effect.map(db(deliveriesOfOrder(orderId)), ({ events, attempts }) =>
          events.map((event) =>
            deliveryOut(
              event,
              attempts.filter((row) => row.eventId === event.eventId)
            )
          )
        )

      return MerchantWebhooks.of({
        setAppWebhook: (input) =>
          Effect.gen(function* () {
            yield* checkWebhookUrl(input.webhookUrl, config.webhookAllowPrivateAddresses)
            const secret = input.rotateSecret === true ? newWebhookSecret() : null
            const stored = secret === null ? null : secrets.seal("apps.webhook_secret", secret)
            const found = yield* db(setAppWebhook(String(input.appId), input.webhookUrl, stored))
            if (!found) return yield* new AppNotFound({ message: `appId: no app ${input.appId}` })
            return { appId: String(input.appId) as any, webhookUrl: input.webhookUrl, webhookSecret: secret }
          }),
        deliveriesOfOrder: deliveriesOf,
        redeliver: (appId, eventId) =>
          Effect.gen(function* () {
            const found = eventId.length <= 200 && (yield* db(redeliverEvent(eventId, appId)))
            const event = found ? yield* db(eventById(eventId)) : undefined
            if (event === undefined)
              return yield* new WebhookDeliveryNotFound({ message: `eventId: no webhook event ${eventId} of this app` })
            return deliveryOut(event, yield* db(attemptsOfEvent(eventId)))
          }),
        dispatch
      })
    })
  )
}

/** The dispatcher: one pass every limits.webhookDispatchMs, once per beat across the cluster. */
export const WebhookDispatcher = Layer.unwrap(
  MerchantWebhooks.useSync((hooks) =>
    periodicJob("MerchantWebhookDispatcher", limits.webhookDispatchMs, hooks.dispatch)
  )
)
