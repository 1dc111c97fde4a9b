/** Private `/private/v1/` ledger group: journal feed and long-poll, lookups, events, keys, debt charges. */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { TooManyWaiters } from "../EdgeErrors.ts"
import { CursorEnvelope, Envelope } from "../Envelope.ts"
import {
  ExternalIdConflict,
  FieldRuleViolated,
  RateLimited,
  TooManyDecimals,
  UnknownCurrency,
  WalletNotFound
} from "../Errors.ts"
import { Int64 } from "../Ids.ts"
import { ServiceAuth } from "../Security.ts"
import {
  DebtChargeIn,
  DebtChargeOut,
  EventOut,
  EventsQuery,
  JournalQueryIn,
  RegisterKeyIn,
  TxRow,
  WaitQuery
} from "../Transfer.ts"

const Moved = Schema.Struct({
  moved: Schema.Boolean.annotate({ description: "true when the watermark passed the cursor" })
})

export class PrivateLedgerApi extends HttpApiGroup.make("privateLedger")
  .add(
    HttpApiEndpoint.get("transact_get", "/transact_get", {
      query: { timetick: Int64 },
      success: Envelope(Schema.NullOr(TxRow)).annotate({
        description: "A missing transaction is a null result, not an error"
      })
    }),
    HttpApiEndpoint.post("list_last_updated_txs", "/list_last_updated_txs", {
      payload: JournalQueryIn,
      success: CursorEnvelope(Schema.Array(TxRow))
    }),
    HttpApiEndpoint.get("wait_cursor", "/wait_cursor", {
      query: WaitQuery,
      success: [
        CursorEnvelope(Moved),
        CursorEnvelope(Moved).annotate({ identifier: "WaitCursorIdle" }).pipe(HttpApiSchema.status(202))
      ],
      error: [RateLimited, TooManyWaiters]
    }).annotateMerge(
      OpenApi.annotations({
        description:
          "200 at once when the committed watermark exceeds `cursor`, else 202 after the idle wait (`timeout` seconds, default 30, at most 45). The watermark is always in `cursor`."
      })
    ),
    HttpApiEndpoint.get("events", "/events", {
      query: EventsQuery,
      success: CursorEnvelope(Schema.Array(EventOut))
    }).annotateMerge(
      OpenApi.annotations({
        description:
          "Notifications oldest first after `cursor` (exclusive). Kinds: ConfirmationCode {walletId, txId, code}, TransferSent {txId, to, currency, amount, fee}, TransferReceived {txId, from, currency, amount} (amounts as exact decimal strings in currency units), TransferCanceled {txId, reason}, CodeApplied and CodeCanceled {txId, typeTx, state, currency, amount} (to the code's creator and bound party), DebtCharged {txId, charged, outstanding}."
      })
    ),
    HttpApiEndpoint.post("register_key", "/register_key", {
      payload: RegisterKeyIn,
      success: Envelope(Schema.Struct({ registered: Schema.Boolean })),
      error: [WalletNotFound, FieldRuleViolated]
    }),
    HttpApiEndpoint.post("create_debt_charge", "/create_debt_charge", {
      payload: DebtChargeIn,
      success: Envelope(DebtChargeOut),
      error: [WalletNotFound, UnknownCurrency, TooManyDecimals, ExternalIdConflict, RateLimited]
    }).annotateMerge(
      OpenApi.annotations({
        description:
          "An operator charge (typeTx DebtCharge 18) to the Fees wallet that never drives a user balance negative: it takes at most the free balance and reports what is outstanding. Idempotent by externalId."
      })
    )
  )
  .middleware(ServiceAuth)
  .prefix("/private/v1")
  .annotateMerge(
    OpenApi.annotations({
      title: "Private ledger",
      description: "Service credentials: journal, feeds and operator actions"
    })
  ) {}
