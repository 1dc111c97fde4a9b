/**
 * The dispatch shared by two-step actions (internal_transfer, create_swap): no query parameters is
 * step one; `confirmationTimetick` with `confirmationCode` (or the X-SignResult header) is step two.
 */
import { Effect } from "effect"
import { InvalidRequest } from "../../../schema/Errors.ts"
import type { KeyType } from "../../../schema/Security.ts"

export interface TwoStepRequest {
  readonly query: { readonly confirmationTimetick?: string | undefined; readonly confirmationCode?: string | undefined }
  readonly headers: { readonly "x-keytype"?: KeyType | undefined; readonly "x-signresult"?: string | undefined }
}

export type Sender = { readonly walletId: string; readonly keyType: KeyType }

export const twoStep = <A, E, R, B, E2, R2>(
  walletId: string,
  request: TwoStepRequest,
  begin: (sender: Sender) => Effect.Effect<A, E, R>,
  confirm: (sender: Sender, txId: string, code: string | undefined, signResult: string | undefined) => Effect.Effect<B, E2, R2>
): Effect.Effect<A | B, E | E2 | InvalidRequest, R | R2> => {
  const sender: Sender = { walletId, keyType: request.headers["x-keytype"] ?? ("None" as KeyType) }
  const { confirmationTimetick, confirmationCode } = request.query
  if (confirmationTimetick === undefined) {
    return confirmationCode === undefined
      ? begin(sender)
      : Effect.fail(new InvalidRequest({ message: "confirmationTimetick: required with confirmationCode" }))
  }
  return confirm(sender, confirmationTimetick, confirmationCode, request.headers["x-signresult"])
}
