/**
 * The card acquirer as the payment gateway sees it (docs/CARDS.md "The provider interface"): open a
 * hosted checkout for a session, ask a session's status (reconciliation), and close a session that
 * outlived its TTL (the provider takes no card after that, or answers the outcome that came first). Outcomes come back as the
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

/** The provider's view of a session: Expired = closed unpaid; Unknown = it has no such session. */
export type AcquirerStatus = "Pending" | "Approved" | "Declined" | "Expired" | "Unknown"

export class Acquirer extends Context.Service<
  Acquirer,
  {
    readonly openSession: (request: AcquirerSessionRequest) => Effect.Effect<{ readonly checkoutUrl: string }>
    readonly status: (acquiringId: string) => Effect.Effect<AcquirerStatus>
    /**
     * Closes the session at the provider, atomically against a card being taken: answers Expired when it
     * was still open (no card will be taken), else the outcome that won (Approved / Declined), or Unknown.
     */
    readonly close: (acquiringId: string) => Effect.Effect<Exclude<AcquirerStatus, "Pending">>
  }
>()("core/Acquirer") {}
