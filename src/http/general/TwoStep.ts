/**
 * The dispatch shared by two-step actions (internal_transfer, create_swap; and through the second-factor
 * gate set_security off, create_tx_code, apply_code, pay_internal, C19 §4): no query parameters is
 * step one; `confirmationTimetick` with `confirmationCode` (or the X-SignResult header) is step two.
 */
import { Effect } from "effect"
import { InvalidRequest } from "../../../schema/Errors.ts"
import type { CurrentSession, KeyType } from "../../../schema/Security.ts"

export interface TwoStepRequest {
  readonly query: { readonly confirmationTimetick?: string | undefined; readonly confirmationCode?: string | undefined }
  readonly headers: { readonly "x-keytype"?: KeyType | undefined; readonly "x-signresult"?: string | undefined }
}

/** The acting wallet as its session read it (id, client, project, flags, group) and the X-KeyType header. */
export type Sender = {
  readonly walletId: string
  readonly keyType: KeyType
  readonly session: CurrentSession["Service"]
}

export const twoStep = <A, E, R, B, E2, R2>(
  session: CurrentSession["Service"],
  request: TwoStepRequest,
  begin: (sender: Sender) => Effect.Effect<A, E, R>,
  confirm: (
    sender: Sender,
    txId: string,
    code: string | undefined,
    signResult: string | undefined
  ) => Effect.Effect<B, E2, R2>
): Effect.Effect<A | B, E | E2 | InvalidRequest, R | R2> => {
  const sender: Sender = {
    walletId: session.walletId,
    keyType: request.headers["x-keytype"] ?? ("None" as KeyType),
    session
  }
  const { confirmationTimetick, confirmationCode } = request.query
  if (confirmationTimetick === undefined) {
    return confirmationCode === undefined
      ? begin(sender)
      : Effect.fail(new InvalidRequest({ message: "confirmationTimetick: required with confirmationCode" }))
  }
  return confirm(sender, confirmationTimetick, confirmationCode, request.headers["x-signresult"])
}

/** The caller as the second-factor gate of C19 §4 sees it (services/SecondFactorGate.ts). */
export const secondFactorCaller = (session: CurrentSession["Service"], request: TwoStepRequest) => ({
  walletId: session.walletId,
  flags: session.flags,
  keyType: request.headers["x-keytype"] ?? ("None" as KeyType),
  confirmationTimetick: request.query.confirmationTimetick,
  confirmationCode: request.query.confirmationCode,
  signResult: request.headers["x-signresult"]
})
