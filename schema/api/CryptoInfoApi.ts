/**
 * Session reads of the crypto rails (CONTRACT C15): `/core/v1/address_tx_info` and
 * `/core/v1/wallet/list_txs_awaiting_partner_info`. The writers (deposits, withdrawals, refunds)
 * have their own groups.
 */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { AddressTxInfoIn, AddressTxInfoOut, AwaitingPartnerInfoQuery, AwaitingPartnerInfoRow } from "../CryptoInfo.ts"
import { Envelope } from "../Envelope.ts"
import { TooManyItems } from "../Errors.ts"
import { SessionAuth } from "../Security.ts"

export class CryptoInfoApi extends HttpApiGroup.make("cryptoInfo")
  .add(
    HttpApiEndpoint.post("address_tx_info", "/address_tx_info", {
      payload: AddressTxInfoIn,
      success: Envelope(Schema.Array(AddressTxInfoOut)),
      error: TooManyItems
    }).annotateMerge(
      OpenApi.annotations({
        description:
          "The session wallet's Incomes, Outcomes and Refunds on a crypto terminal among the ids, in request order; others are left out"
      })
    )
  )
  .middleware(SessionAuth)
  .prefix("/core/v1")
  .annotateMerge(OpenApi.annotations({ title: "Crypto transactions", description: "Session: the active wallet" })) {}

export class CryptoWalletReadsApi extends HttpApiGroup.make("cryptoWalletReads")
  .add(
    HttpApiEndpoint.get("list_txs_awaiting_partner_info", "/list_txs_awaiting_partner_info", {
      query: AwaitingPartnerInfoQuery,
      success: Envelope(Schema.Array(AwaitingPartnerInfoRow))
    }).annotateMerge(
      OpenApi.annotations({
        description:
          "Active Incomes on RequirePartnerInfo terminals without partner info or a refund under way, oldest first"
      })
    )
  )
  .middleware(SessionAuth)
  .prefix("/core/v1/wallet")
  .annotateMerge(OpenApi.annotations({ title: "Crypto partner info", description: "Session: the active wallet" })) {}
