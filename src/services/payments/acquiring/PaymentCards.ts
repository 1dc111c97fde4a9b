/**
 * Paying a payment order by card (CONTRACT C16 pay_card, "Built-in card acquiring", private
 * create_acquiring_order and pending_acquiring_txs; docs/CARDS.md). pay_card asks the order's actor for
 * its one commit (the implicit start on the Card terminal and a Pending session, or the Pending one) and
 * then the acquirer (the `Acquirer` service, whatever implements it) for the session's checkout URL.
 * Outcomes arrive as the acquirer's signed webhook (`acceptWebhook`) or by reconciliation
 * (AcquiringReconcile.ts); both become the order actor's one CardOutcome message.
 */
import { Context, Effect, Layer, Result } from "effect"
import { randomBytes } from "node:crypto"
import { type OrderError, PaymentOrderEntity } from "../../../../actors/payment/Protocol.ts"
import {
  acquiringSessionById,
  type AcquiringSessionRow,
  pendingAcquiringSessions,
  setCheckoutUrl
} from "../../../../sql/AcquiringRepo.ts"
import { paymentOrderByCodeHash } from "../../../../sql/PaymentOrderRepo.ts"
import { findTerminal } from "../../../../sql/ReferenceRepo.ts"
import {
  type AcquiringOrderOut,
  AcquirerWebhookIn,
  type CreateAcquiringOrderIn,
  type PayCardOut
} from "../../../../schema/Acquiring.ts"
import { InvalidRequest, TerminalNotFound } from "../../../../schema/Errors.ts"
import { fromMinorUnits, toMinorUnits } from "../../../../schema/Money.ts"
import {
  AppNotFound,
  PaymentOrderNotFound,
  TerminalNotAvailable,
  WebhookMismatch,
  WebhookSignatureInvalid
} from "../../../../schema/PaymentErrors.ts"
import type { AcquiringSessionOut } from "../../../../schema/Payments.ts"
import { AppConfigService } from "../../../platform/Config.ts"
import { SandboxOff } from "../../../../schema/RailErrors.ts"
import { Currencies } from "../../../platform/Currencies.ts"
import { refuseDisabledApp } from "../AppGate.ts"
import { makeDb } from "../../../platform/db/Sql.ts"
import { decodeJson } from "../../../platform/ForeignJson.ts"
import { delivered } from "../../../platform/Delivery.ts"
import { Acquirer } from "./Acquirer.ts"
import { verify } from "../../../platform/Signing.ts"
import { AcquirerSecret } from "./AcquirerSecret.ts"
import { acquiringSessionOut } from "./AcquiringViews.ts"
import { type GateError, hashOfOrderCode, PaymentOrders, type PutError } from "../PaymentOrders.ts"

/** typeNetwork of a Card terminal (C16: served by the sandbox). */
export const cardTypeNetwork = 100

const decodeAcquirerWebhook = decodeJson(AcquirerWebhookIn)

const newAcquiringId = () => "acq_" + randomBytes(16).toString("base64url")

export interface WebhookRequest {
  readonly timestamp: string | undefined
  readonly signature: string | undefined
  readonly body: string
}

export type CardOutcomeStatus = "Approved" | "Declined" | "Expired"

export class PaymentCards extends Context.Service<
  PaymentCards,
  {
    readonly payCard: (code: string, tokenNetworkId: string) => Effect.Effect<PayCardOut, GateError | SandboxOff>
    readonly createAcquiringOrder: (
      input: CreateAcquiringOrderIn
    ) => Effect.Effect<AcquiringOrderOut, GateError | PutError | AppNotFound | SandboxOff>
    readonly pending: (limit: number) => Effect.Effect<ReadonlyArray<AcquiringSessionOut>>
    readonly acceptWebhook: (
      request: WebhookRequest
    ) => Effect.Effect<
      { readonly accepted: true; readonly duplicate: boolean },
      WebhookSignatureInvalid | WebhookMismatch | InvalidRequest | OrderError
    >
    /** The one transition, from reconciliation and expiry (the webhook comes through acceptWebhook). */
    readonly outcome: (
      session: AcquiringSessionRow,
      status: CardOutcomeStatus
    ) => Effect.Effect<{ readonly duplicate: boolean }, WebhookMismatch | OrderError>
  }
>()("core/PaymentCards") {
  static readonly layer = Layer.effect(
    PaymentCards,
    Effect.gen(function* () {
      const db = yield* makeDb
      const config = yield* AppConfigService
      const currencies = yield* Currencies
      const orders = yield* PaymentOrders
      const acquirer = yield* Acquirer
      const { secret } = yield* AcquirerSecret
      const actor = yield* PaymentOrderEntity.client
      const decimalsOf = (currency: string) => currencies.find(currency)?.decimals ?? 0
      const base = config.publicBaseUrl.replace(/\/+$/, "")

      /** The session's checkout URL, asking the acquirer for it the first time (or after a failed ask). */
      const checkoutOf = (
        session: AcquiringSessionRow,
        order: {
          code: string | null
          description: string | null
          returnUrlSuccess: string | null
          returnUrlFail: string | null
        }
      ) =>
        Effect.gen(function* () {
          if (session.checkoutUrl !== null) return session.checkoutUrl
          const payUrl = `${base}/pay?code=${order.code ?? ""}`
          const { checkoutUrl } = yield* acquirer.openSession({
            acquiringId: session.acquiringId,
            amount: fromMinorUnits(session.amount, decimalsOf(session.currency)),
            currency: session.currency,
            description: order.description,
            successUrl: order.returnUrlSuccess ?? payUrl,
            failUrl: order.returnUrlFail ?? payUrl,
            expiresAt: new Date(session.createdAt.getTime() + config.acquiringSessionTtlSeconds * 1000)
          })
          yield* db(setCheckoutUrl(session.acquiringId, checkoutUrl))
          return checkoutUrl
        })

      /** C19 §1: with ACQUIRER=off no card payment starts (before anything is read or moved). */
      const acquirerOn = Effect.suspend(() =>
        config.acquirer === "off"
          ? Effect.fail(new SandboxOff({ message: "ACQUIRER: off, this service takes no card payments (C19 §1)" }))
          : Effect.void
      )

      const payCard = Effect.fn("PaymentCards.payCard")(function* (code: string, tokenNetworkId: string) {
        yield* acquirerOn
        const row = yield* db(paymentOrderByCodeHash(hashOfOrderCode(code)))
        if (row === undefined) return yield* new PaymentOrderNotFound({ message: "code: no such order" })
        yield* refuseDisabledApp(row)
        yield* orders.info(code) // an order past expiresAt is expired first (the engine then answers 10301)
        // The one offers computation (as order_start): the engine answers 10303 for a terminal that is
        // not offered, not available or not a Card one, 10304 when the order is locked elsewhere.
        const offer = yield* orders.offerOn(row, tokenNetworkId)
        const answer = yield* delivered(actor(String(row.txId)).PayCard({ offer, acquiringId: newAcquiringId() }))
        const session = yield* db(acquiringSessionById(answer.acquiringId))
        if (session === undefined) return yield* Effect.die(new Error("invariant: a committed session is not readable"))
        const checkoutUrl = yield* checkoutOf(session, row)
        return { order: yield* orders.info(code), acquiringId: session.acquiringId, checkoutUrl }
      })

      const createAcquiringOrder = Effect.fn("PaymentCards.createAcquiringOrder")(function* (
        input: CreateAcquiringOrderIn
      ) {
        yield* acquirerOn
        const terminal = yield* db(findTerminal(String(input.terminalId)))
        if (terminal === undefined)
          return yield* new TerminalNotFound({ message: `terminalId: no terminal ${input.terminalId}` })
        if (terminal.typeNetwork !== cardTypeNetwork)
          return yield* new TerminalNotAvailable({ message: "terminalId: not a Card terminal" })
        const { appId, ...body } = input
        const created = yield* orders.create(String(appId), body)
        const paid = yield* payCard(created.code!, String(input.terminalId))
        const order = yield* orders.get(String(appId), { code: created.code! })
        return { order, acquiringId: paid.acquiringId, checkoutUrl: paid.checkoutUrl }
      })

      const outcome = (
        session: AcquiringSessionRow,
        status: CardOutcomeStatus,
        extra?: { eventId: string; amount: bigint; currency: string }
      ) =>
        delivered(
          actor(String(session.orderTxId)).CardOutcome({
            acquiringId: session.acquiringId,
            status,
            eventId: extra?.eventId ?? null,
            amount: extra?.amount ?? null,
            currency: extra?.currency ?? null
          })
        ).pipe(Effect.map((a) => ({ duplicate: a.duplicate })))

      const invalidSignature = (why: string) => new WebhookSignatureInvalid({ message: `X-Acquirer-Signature: ${why}` })

      const acceptWebhook = Effect.fn("PaymentCards.acceptWebhook")(function* (request: WebhookRequest) {
        const check = verify({
          secret,
          timestamp: request.timestamp,
          signature: request.signature,
          body: request.body,
          nowSeconds: Math.floor(Date.now() / 1000),
          toleranceSeconds: config.acquirerWebhookToleranceSeconds
        })
        switch (check) {
          case "missing":
            return yield* invalidSignature("missing signature or timestamp")
          case "badTimestamp":
            return yield* new WebhookSignatureInvalid({ message: "X-Acquirer-Timestamp: unix seconds" })
          case "stale":
            return yield* new WebhookSignatureInvalid({
              message: `X-Acquirer-Timestamp: off by more than ${config.acquirerWebhookToleranceSeconds} seconds`
            })
          case "badSignature":
            return yield* invalidSignature("does not match the body")
        }
        // Decoded with its schema/ shape before anything is read or moved: a malformed body is 10001.
        const decoded = decodeAcquirerWebhook(request.body)
        if (Result.isFailure(decoded)) return yield* new InvalidRequest({ message: decoded.failure })
        const { eventId, acquiringId, status, amount: amountText, currency } = decoded.success
        const session = yield* db(acquiringSessionById(acquiringId))
        if (session === undefined)
          return yield* new WebhookMismatch({ message: "acquiringId: no such acquiring session" })
        if (currency !== session.currency)
          return yield* new WebhookMismatch({ message: "currency: differs from the session's currency" })
        const amount = toMinorUnits(amountText, decimalsOf(session.currency))
        if (amount !== session.amount)
          return yield* new WebhookMismatch({ message: "amount: differs from the session's amount" })
        const answer = yield* outcome(session, status, { eventId, amount, currency })
        return { accepted: true as const, duplicate: answer.duplicate }
      })

      return PaymentCards.of({
        payCard,
        createAcquiringOrder,
        pending: (limit) =>
          Effect.map(db(pendingAcquiringSessions(new Date(), limit)), (rows) =>
            rows.map((r) => acquiringSessionOut(r, decimalsOf))
          ),
        acceptWebhook,
        outcome: (session, status) => outcome(session, status)
      })
    })
  )
}
