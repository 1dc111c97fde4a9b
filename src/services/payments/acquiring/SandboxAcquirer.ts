/**
 * The sandbox card acquirer shipped with the service (CONTRACT C16 "Built-in card acquiring";
 * docs/CARDS.md): an `Acquirer` that behaves like a hosted-checkout provider, with its own table
 * (sandbox_acquirer_payments, as if it were the provider's database) and its own pages under
 * `/acquirer/v1/` (src/http/payments/acquirer/CheckoutRoutes.ts). It knows nothing of orders: it is told an
 * amount, a currency and where to send the payer, and reports outcomes the way a provider does, by a
 * signed webhook over real HTTP to PUBLIC_BASE_URL + /payment/v1/acquiring_webhook.
 *
 * Test cards: 4242424242424242 approves (webhook at once); 4000000000000002 declines (webhook at once);
 * 4000000000000077 approves but its webhook is lost (only reconciliation finds it); any other declines.
 */
import { Context, Effect, Layer } from "effect"
import { randomBytes } from "node:crypto"
import {
  closeSandboxPayment,
  decideSandboxPayment,
  insertSandboxPayment,
  sandboxPaymentById,
  type SandboxPaymentRow
} from "../../../../sql/SandboxAcquirerRepo.ts"
import { InvalidRequest } from "../../../../schema/Errors.ts"
import { AcquiringSessionClosed, AcquiringSessionNotFound } from "../../../../schema/PaymentErrors.ts"
import { AppConfigService } from "../../../platform/Config.ts"
import { makeDb } from "../../../platform/db/Sql.ts"
import { Acquirer } from "./Acquirer.ts"
import { sign } from "../../../platform/Signing.ts"
import { AcquirerSecret } from "./AcquirerSecret.ts"

export const TestCards = {
  approve: "4242424242424242",
  decline: "4000000000000002",
  approveWebhookLost: "4000000000000077"
} as const

/** How long the sandbox waits for our webhook endpoint before giving up on that delivery. */
const webhookTimeoutMs = 10_000

export interface CheckoutSubmission {
  readonly cardNumber: unknown
  readonly expiry: unknown
  readonly cvc: unknown
}

export interface CheckoutAnswer {
  readonly acquiringId: string
  readonly outcome: "Approved" | "Declined"
  readonly redirectUrl: string
}

/** The sandbox's hosted checkout, for its routes. */
export class SandboxCheckout extends Context.Service<
  SandboxCheckout,
  {
    /** The payment a checkout page shows (404 10310 unknown). */
    readonly payment: (acquiringId: string) => Effect.Effect<SandboxPaymentRow, AcquiringSessionNotFound>
    readonly submit: (
      acquiringId: string,
      card: CheckoutSubmission
    ) => Effect.Effect<CheckoutAnswer, AcquiringSessionNotFound | AcquiringSessionClosed | InvalidRequest>
  }
>()("core/SandboxCheckout") {}

/**
 * Well-formed: card number 12–19 digits, expiry MM/YY, cvc 3–4 digits; else 10001 naming the field.
 * A well-formed card whose check digit fails or whose expiry has passed is a card the issuer declines
 * (C16: "others decline"), not a malformed request.
 */
const checkCard = (
  card: CheckoutSubmission,
  now: Date
): InvalidRequest | { readonly number: string; readonly declined: boolean } => {
  const number = typeof card.cardNumber === "string" ? card.cardNumber.replace(/[\s-]/g, "") : ""
  if (!/^[0-9]{12,19}$/.test(number)) return new InvalidRequest({ message: "cardNumber: 12 to 19 digits" })
  const expiry = typeof card.expiry === "string" ? /^(0[1-9]|1[0-2])\/([0-9]{2})$/.exec(card.expiry.trim()) : null
  if (expiry === null) return new InvalidRequest({ message: "expiry: MM/YY" })
  if (typeof card.cvc !== "string" || !/^[0-9]{3,4}$/.test(card.cvc))
    return new InvalidRequest({ message: "cvc: 3 or 4 digits" })
  const endOfMonth = Date.UTC(2000 + Number(expiry[2]), Number(expiry[1]), 1)
  return { number, declined: !luhn(number) || endOfMonth <= now.getTime() }
}

const luhn = (digits: string): boolean => {
  let sum = 0
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i])
    if (i % 2 === 1) {
      d *= 2
      if (d > 9) d -= 9
    }
    sum += d
  }
  return sum % 10 === 0
}

export const SandboxAcquirerLayer = Layer.effectContext(
  Effect.gen(function* () {
    const db = yield* makeDb
    const config = yield* AppConfigService
    const { secret } = yield* AcquirerSecret
    const base = config.publicBaseUrl.replace(/\/+$/, "")

    /** The provider's webhook: signed, over real HTTP; a failed delivery is only logged (reconciliation finds it). */
    const sendWebhook = (payment: SandboxPaymentRow, status: "Approved" | "Declined", eventId: string) =>
      Effect.gen(function* () {
        const body = JSON.stringify({
          eventId,
          acquiringId: payment.acquiringId,
          status,
          amount: payment.amount,
          currency: payment.currency,
          occurredAt: new Date().toISOString()
        })
        const timestamp = String(Math.floor(Date.now() / 1000))
        const response = yield* Effect.tryPromise(() =>
          fetch(`${base}/payment/v1/acquiring_webhook`, {
            method: "POST",
            headers: {
              "content-type": "application/json",
              "x-acquirer-timestamp": timestamp,
              "x-acquirer-signature": sign(secret, timestamp, body)
            },
            body,
            redirect: "manual",
            signal: AbortSignal.timeout(webhookTimeoutMs)
          })
        )
        yield* Effect.tryPromise(() => response.arrayBuffer())
        if (response.status !== 200)
          yield* Effect.logWarning(`sandbox acquirer: webhook of ${payment.acquiringId} answered ${response.status}`)
      }).pipe(
        Effect.catchCause((cause) => Effect.logWarning("sandbox acquirer: webhook not delivered", cause)),
        // The acquirer's outbound call, one client span (src/platform/Tracing.ts).
        Effect.withSpan("acquirer.webhook", {
          kind: "client",
          attributes: { "acquirer.acquiring_id": payment.acquiringId, "acquirer.status": status }
        })
      )

    const payment = (acquiringId: string) =>
      Effect.flatMap(db(sandboxPaymentById(acquiringId)), (row) =>
        row === undefined
          ? Effect.fail(new AcquiringSessionNotFound({ message: "acquiringId: no such checkout session" }))
          : Effect.succeed(row)
      )

    const closed = () =>
      new AcquiringSessionClosed({ message: "acquiringId: this checkout session is already decided or expired" })

    const submit = Effect.fn("SandboxAcquirer.submit")(function* (acquiringId: string, card: CheckoutSubmission) {
      const found = yield* payment(acquiringId)
      const now = new Date()
      if (found.status !== "Pending" || found.expiresAt.getTime() <= now.getTime()) return yield* closed()
      const checked = checkCard(card, now)
      if (checked instanceof InvalidRequest) return yield* checked
      const outcome =
        !checked.declined && (checked.number === TestCards.approve || checked.number === TestCards.approveWebhookLost)
          ? ("Approved" as const)
          : ("Declined" as const)
      const eventId = "evt_" + randomBytes(16).toString("base64url")
      const decided = yield* db(decideSandboxPayment(acquiringId, outcome, checked.number.slice(-4), eventId))
      if (decided === undefined) return yield* closed()
      if (checked.number !== TestCards.approveWebhookLost) yield* sendWebhook(decided, outcome, eventId)
      return {
        acquiringId,
        outcome,
        redirectUrl: outcome === "Approved" ? decided.successUrl : decided.failUrl
      }
    })

    const acquirer = Acquirer.of({
      openSession: (request) =>
        Effect.as(
          db(
            insertSandboxPayment({
              acquiringId: request.acquiringId,
              amount: request.amount,
              currency: request.currency,
              description: request.description,
              successUrl: request.successUrl,
              failUrl: request.failUrl,
              expiresAt: request.expiresAt
            })
          ),
          { checkoutUrl: `${base}/acquirer/v1/checkout/${encodeURIComponent(request.acquiringId)}` }
        ),
      status: (acquiringId) =>
        Effect.map(db(sandboxPaymentById(acquiringId)), (row) => (row === undefined ? "Unknown" : row.status)),
      close: (acquiringId) =>
        Effect.map(db(closeSandboxPayment(acquiringId)), (status) =>
          status === undefined || status === "Pending" ? "Unknown" : status
        )
    })

    return Context.make(Acquirer, acquirer).pipe(Context.add(SandboxCheckout, SandboxCheckout.of({ payment, submit })))
  })
)
