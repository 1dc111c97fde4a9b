import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../../../schema/Api.ts"
import { ok } from "../../../schema/Envelope.ts"
import { CurrentSession } from "../../../schema/Security.ts"
import { Withdrawals } from "../../services/crypto/Withdrawals.ts"
import { twoStep } from "../general/TwoStep.ts"

export const WithdrawHandlers = HttpApiBuilder.group(
  Api,
  "withdraw",
  Effect.fn(function* (handlers) {
    const withdrawals = yield* Withdrawals
    return handlers.handle("create_withdraw", ({ payload, query, headers }) =>
      CurrentSession.use((s) =>
        Effect.flatMap(
          twoStep(s, { query, headers }, (sender) => withdrawals.begin(sender, payload), withdrawals.confirm),
          ok
        )
      )
    )
  })
)
