/**
 * The card acquirer as the payment gateway sees it (docs/CARDS.md "The provider interface"): open a
 * hosted checkout for a session, and ask a session's status (reconciliation). Outcomes come back as the
 * provider's signed webhook (POST /payment/v1/acquiring_webhook) or through `status`. The one
 * implementation shipped is the sandbox (SandboxAcquirer.ts), wired in src/Server.ts; a real provider is
 * another layer of this service. Nothing else imports an implementation.
 */
import { Context, type Effect } from "effect"

export interface AcquirerSessionRequest {
  /** Our session id (≥ 128 random bits), the provider's reference. */
  readonly acquiringId: string
  /** What the payer pays (totalToPay) as a canonical decimal string. */
  readonly amount: string
  readonly currency: string
  readonly description: string | null
  /** Where the payer goes after an approval / a decline. */
  readonly successUrl: string
  readonly failUrl: string
  /** The provider refuses to take the card after this. */
  readonly expiresAt: Date
}

/** The provider's view of a session: Unknown = it has no such session. */
export type AcquirerStatus = "Pending" | "Approved" | "Declined" | "Unknown"

export class Acquirer extends Context.Service<
  Acquirer,
  {
    readonly openSession: (request: AcquirerSessionRequest) => Effect.Effect<{ readonly checkoutUrl: string }>
    readonly status: (acquiringId: string) => Effect.Effect<AcquirerStatus>
  }
>()("core/Acquirer") {}
