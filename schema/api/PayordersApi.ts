/** Merchant payment orders `/payorders/v1/` (merchant key plus app_id). */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { CursorEnvelope } from "../Envelope.ts"
import { Cursor, Int64, Int64String } from "../Ids.ts"
import { MerchantAuth } from "../Security.ts"

export const appPaymentsPageMax = 100

export const AppPaymentRow = Schema.Struct({
  id: Int64String,
  idUpdate: Int64String,
  typeTx: Schema.Int,
  txState: Schema.Int,
  state: Schema.String,
  currency: Schema.String,
  amount: Schema.Number,
  fee: Schema.Number,
  tag: Schema.NullOr(Schema.String),
  dateTxUTC: Schema.String
}).annotate({ identifier: "AppPaymentRow" })

export class PayordersApi extends HttpApiGroup.make("payorders")
  .add(
    HttpApiEndpoint.get("get_app_payments", "/get_app_payments", {
      query: {
        app_id: Int64,
        cursor: Schema.optional(Cursor).annotate({
          description: "Exclusive update-tick watermark; omitted means from the start"
        })
      },
      success: CursorEnvelope(Schema.Array(AppPaymentRow))
    })
  )
  .middleware(MerchantAuth)
  .prefix("/payorders/v1")
  .annotateMerge(
    OpenApi.annotations({ title: "Merchant", description: "Merchant key (`pkey` header) plus `app_id` query" })
  ) {}
