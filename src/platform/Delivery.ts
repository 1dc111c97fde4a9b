/**
 * Messages to actors can fail to be delivered (cluster errors). A full mailbox is back-pressure
 * and answers 429 so the client may retry; any other delivery failure is a defect (500).
 */
import { Effect, Predicate } from "effect"
import { ClusterError } from "effect/cluster"
import { RateLimited } from "../../schema/Errors.ts"

type DeliveryError =
  | ClusterError.MailboxFull
  | ClusterError.AlreadyProcessingMessage
  | ClusterError.PersistenceError
  | ClusterError.EntityNotAssignedToRunner

const deliveryTags = new Set([
  "MailboxFull",
  "AlreadyProcessingMessage",
  "PersistenceError",
  "EntityNotAssignedToRunner"
])
const isDeliveryError = (error: unknown): error is DeliveryError =>
  Predicate.hasProperty(error, "_tag") && typeof error._tag === "string" && deliveryTags.has(error._tag)

export const delivered = <A, E, R>(
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, Exclude<E, DeliveryError> | RateLimited, R> =>
  Effect.catchIf(effect, isDeliveryError as (error: E) => error is E & DeliveryError, (error) =>
    error._tag === "MailboxFull"
      ? Effect.fail(new RateLimited({ message: "the wallet is busy; retry shortly" }))
      : Effect.die(error)
  ) as any
