import { Effect } from "effect"
import { HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../../../schema/Api.ts"
import { ok, RequestId } from "../../../schema/Envelope.ts"
import { signerLimitDefault } from "../../../schema/Withdrawals.ts"
import { SignerQueue } from "../../services/crypto/SignerQueue.ts"

export const SignerHandlers = HttpApiBuilder.group(
  Api,
  "signer",
  Effect.fn(function* (handlers) {
    const queue = yield* SignerQueue
    return handlers
      .handle("list_txs_to_send", ({ query }) =>
        Effect.gen(function* () {
          const answer = yield* queue.list({
            terminalId: query.tokenNetwork ?? null,
            cursor: query.cursor ?? "0",
            limit: query.limit ?? signerLimitDefault,
            timeoutSeconds: query.timeout ?? 0
          })
          const id = yield* RequestId.useSync((n) => n)
          return HttpServerResponse.jsonUnsafe(
            { result: answer.items, error: null, id, cursor: answer.cursor },
            { status: answer.found ? 200 : 202 }
          )
        })
      )
      .handle("tx_send_report", ({ payload }) => Effect.flatMap(queue.report(payload), ok))
      .handle("release_withdrawal", ({ payload }) => Effect.flatMap(queue.release(payload.txId), ok))
  })
)
