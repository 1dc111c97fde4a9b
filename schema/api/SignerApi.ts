/** The signer's queue, private `/private/v1/` (CONTRACT C15 "Withdrawals"). */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { TooManyWaiters } from "../EdgeErrors.ts"
import { SendReportRefused } from "../CryptoErrors.ts"
import { TxId } from "../Ids.ts"
import { WithdrawalBroadcast } from "../RailErrors.ts"
import { CursorEnvelope, Envelope } from "../Envelope.ts"
import { InvalidRequest, RateLimited, TerminalNotFound, TransactionNotFound } from "../Errors.ts"
import { ServiceAuth } from "../Security.ts"
import { ListTxsToSendQuery, TxSendReportIn, TxSendReportOut, TxToSend } from "../Withdrawals.ts"

export class SignerApi extends HttpApiGroup.make("signer")
  .add(
    HttpApiEndpoint.get("list_txs_to_send", "/list_txs_to_send", {
      query: ListTxsToSendQuery,
      success: [
        CursorEnvelope(Schema.Array(TxToSend)),
        CursorEnvelope(Schema.Array(TxToSend)).annotate({ identifier: "TxsToSendIdle" }).pipe(HttpApiSchema.status(202))
      ],
      error: [InvalidRequest, TerminalNotFound, RateLimited, TooManyWaiters]
    }).annotateMerge(
      OpenApi.annotations({
        description:
          "Queued, HandedOff and Broadcast withdrawals and refunds by queue tick after `cursor` (exclusive). Each Queued item answered is HandedOff in the commit before the answer; read again from an earlier cursor, an item reappears until bound or failed. With `timeout` > 0 it long-polls: 200 with items, or 202 with none. The next cursor is in `cursor`."
      })
    ),
    HttpApiEndpoint.post("tx_send_report", "/tx_send_report", {
      payload: TxSendReportIn,
      success: Envelope(TxSendReportOut),
      error: [InvalidRequest, TransactionNotFound, SendReportRefused, WithdrawalBroadcast]
    }).annotateMerge(
      OpenApi.annotations({
        description:
          "The signer's report on a HandedOff or Broadcast item: broadcast records txHash (stage Broadcast); failed ends a HandedOff item (Failed) and returns the money — on a Broadcast item it is 400 10413 (C19 §9). Reports are idempotent per (txId, result, txHash)."
      })
    ),
    HttpApiEndpoint.post("release_withdrawal", "/release_withdrawal", {
      payload: Schema.Struct({ txId: TxId }),
      success: Envelope(TxSendReportOut),
      error: [InvalidRequest, TransactionNotFound, SendReportRefused, WithdrawalBroadcast]
    }).annotateMerge(
      OpenApi.annotations({
        description:
          "Admin keys only (C19 §9): a Broadcast withdrawal or refund whose txHash is in no pushed block ends Failed (Canceled), its amount + fee back from lock_out; anything else is 400 10413."
      })
    )
  )
  .middleware(ServiceAuth)
  .prefix("/private/v1")
  .annotateMerge(
    OpenApi.annotations({ title: "Signer", description: "Service credentials: `Authorization: Bearer <key>`" })
  ) {}
