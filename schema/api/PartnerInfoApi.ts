/** Wallet (session) `/core/v1/wallet/`: partner info of held deposits and their refunds (C15). */
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { InitRefundIn, InitRefundOut, PartnerInfoIn } from "../Chain.ts"
import {
  IncomeNotRefundable,
  PartnerInfoNotRequired,
  PartnerInfoSealed,
  RefundBelowNetworkFee
} from "../CryptoErrors.ts"
import { Envelope } from "../Envelope.ts"
import { InvalidRequest, RateLimited, TransactionNotFound } from "../Errors.ts"
import { SessionAuth } from "../Security.ts"
import { TxRow } from "../Transfer.ts"

export class PartnerInfoApi extends HttpApiGroup.make("partnerInfo")
  .add(
    HttpApiEndpoint.post("update_tx_partner_info", "/update_tx_partner_info", {
      payload: PartnerInfoIn,
      success: Envelope(TxRow),
      error: [InvalidRequest, TransactionNotFound, PartnerInfoNotRequired, PartnerInfoSealed, RateLimited]
    }),
    HttpApiEndpoint.post("init_refund", "/init_refund", {
      payload: InitRefundIn,
      success: Envelope(InitRefundOut),
      error: [TransactionNotFound, IncomeNotRefundable, RefundBelowNetworkFee, RateLimited]
    })
  )
  .middleware(SessionAuth)
  .prefix("/core/v1/wallet") {}
