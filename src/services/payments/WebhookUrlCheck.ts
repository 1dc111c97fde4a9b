/** A request's `webhookUrl` under C16's rules (src/platform/WebhookUrls.ts): 10340 naming the rule it breaks. */
import { Effect } from "effect"
import { WebhookUrlRejected } from "../../../schema/PaymentErrors.ts"
import { webhookUrlProblem } from "../../platform/WebhookUrls.ts"

export const checkWebhookUrl = (url: string | null | undefined, allowPrivate: boolean) => {
  const problem = url === undefined || url === null ? null : webhookUrlProblem(url, allowPrivate)
  return problem === null ? Effect.void : Effect.fail(new WebhookUrlRejected({ message: `webhookUrl: ${problem}` }))
}
