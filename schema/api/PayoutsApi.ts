/**
 * Payout (transfer) orders (CONTRACT C16): the merchant's put_transfer_order under `/payorders/v1/`
 * (merchant key plus app_id) and the gate's pay_transfer under `/payment/v1/` (addressed by the `T…`
 * code, no authentication: the code is the claim). docs/PAYMENTS.md "Payout orders".
 */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { InvalidAddress } from "../CryptoErrors.ts"
import { Envelope } from "../Envelope.ts"
import { BalanceNotEnough, RateLimited, WalletNotFound } from "../Errors.ts"
import { Int64, TerminalId } from "../Ids.ts"
import { OrderInfoOut, PutOrderOut, PutTransferOrderIn } from "../Payments.ts"
import { MerchantAuth } from "../Security.ts"
import { OrderActionErrors, OrderCreationErrors } from "./PayordersApi.ts"

export const PayTransferIn = Schema.Struct({
  tokenNetworkId: Schema.optional(TerminalId).annotate({ description: "Default: the internal terminal" }),
  recipient: Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(200)).annotate({
    description: "Internal: a C12 recipient (W… address, +phone, @messenger, wallet id, CRM id)"
  }),
  meta: Schema.optional(Schema.NullOr(Schema.Record(Schema.String, Schema.Unknown))).annotate({
    description: "A JSON object of at most 4 KiB (10001), kept on the order"
  })
}).annotate({ identifier: "PayTransferIn" })

export class PayoutsApi extends HttpApiGroup.make("payouts")
  .add(
    HttpApiEndpoint.post("put_transfer_order", "/put_transfer_order", {
      query: { app_id: Int64 },
      payload: PutTransferOrderIn,
      success: Envelope(PutOrderOut),
      error: [...OrderCreationErrors, BalanceNotEnough, RateLimited, ...OrderActionErrors]
    })
  )
  .middleware(MerchantAuth)
  .prefix("/payorders/v1")
  .annotateMerge(
    OpenApi.annotations({ title: "Merchant payouts", description: "Merchant key (`pkey` header) plus `app_id` query" })
  ) {}

export class PayoutGateApi extends HttpApiGroup.make("payoutGate")
  .add(
    HttpApiEndpoint.post("pay_transfer", "/pay_transfer", {
      query: { code: Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(200)) },
      payload: PayTransferIn,
      success: Envelope(OrderInfoOut),
      error: [...OrderActionErrors, WalletNotFound, InvalidAddress]
    })
  )
  .prefix("/payment/v1")
  .annotateMerge(OpenApi.annotations({ title: "Payment gate (payouts)", description: "Addressed by the `T…` code" })) {}
