/**
 * Federation (CONTRACT C18): the session's partner list and partner orders under `/core/v1/wallet/`,
 * and the private partner records and federation_credit under `/private/v1/`. The inbound webhook is
 * a plain route (src/http/federation/FederationWebhookRoute.ts): its signature covers the raw body.
 */
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { Schema } from "effect"
import { Envelope } from "../Envelope.ts"
import { ConfirmQuery, CreateTransactOut, TwoFactorHeaders } from "../Transfer.ts"
import { TxId } from "../Ids.ts"
import {
  BalanceNotEnough,
  ConfirmationExpired,
  ConfirmationFailed,
  ExternalIdConflict,
  NonceExists,
  RateLimited,
  TransactionNotFound,
  InvalidRequest,
  TooManyDecimals,
  TransactionNotPending,
  UnknownCurrency,
  WalletBlocked,
  WalletNotFound
} from "../Errors.ts"
import {
  AddPartnerIn,
  CancelPartnerTransferOut,
  CreatePartnerTransferIn,
  CreatePartnerOrderIn,
  FederationCreditIn,
  FederationCreditOut,
  PartnerAdminOut,
  PartnerCapabilityMissing,
  PartnerCurrencyNotAllowed,
  PartnerNotFound,
  PartnerOrderOut,
  PartnerOut,
  PartnerRefused,
  PartnerUnavailable
} from "../Federation.ts"
import { ServiceAuth, SessionAuth } from "../Security.ts"

export class FederationWalletApi extends HttpApiGroup.make("federationWallet")
  .add(
    HttpApiEndpoint.get("get_federation_partners", "/get_federation_partners", {
      success: Envelope(Schema.Array(PartnerOut))
    }),
    HttpApiEndpoint.post("create_partner_order", "/create_partner_order", {
      payload: CreatePartnerOrderIn,
      success: Envelope(PartnerOrderOut),
      error: [
        InvalidRequest,
        PartnerNotFound,
        PartnerCapabilityMissing,
        UnknownCurrency,
        PartnerCurrencyNotAllowed,
        TooManyDecimals,
        WalletBlocked,
        PartnerRefused,
        PartnerUnavailable,
        ExternalIdConflict
      ]
    }).annotateMerge(
      OpenApi.annotations({
        description:
          "A payment order on the partner (its put_payment_order), credited here exactly once when paid there (FederationCredit 26). docs/FEDERATION.md."
      })
    )
  )
  .add(
    HttpApiEndpoint.post("create_partner_transfer", "/create_partner_transfer", {
      query: ConfirmQuery,
      headers: TwoFactorHeaders,
      payload: CreatePartnerTransferIn,
      success: Envelope(CreateTransactOut),
      error: [
        InvalidRequest,
        PartnerNotFound,
        PartnerCapabilityMissing,
        UnknownCurrency,
        PartnerCurrencyNotAllowed,
        TooManyDecimals,
        WalletBlocked,
        NonceExists,
        BalanceNotEnough,
        TransactionNotPending,
        ConfirmationFailed,
        ConfirmationExpired,
        PartnerRefused,
        PartnerUnavailable,
        RateLimited
      ]
    }).annotateMerge(
      OpenApi.annotations({
        description:
          "Value out to a recipient on the partner, two-step as internal_transfer (C12): step two pays it out there (put_transfer_order + pay_transfer); `Pending` when the outcome is not known yet. docs/FEDERATION.md."
      })
    ),
    HttpApiEndpoint.post("cancel_partner_transfer", "/cancel_partner_transfer", {
      query: { id: TxId },
      success: Envelope(CancelPartnerTransferOut),
      error: [TransactionNotFound, TransactionNotPending, PartnerNotFound, PartnerUnavailable, RateLimited]
    })
  )
  .middleware(SessionAuth)
  .prefix("/core/v1/wallet")
  .annotateMerge(OpenApi.annotations({ title: "Federation (wallet)", description: "Session: the active wallet" })) {}

export class PrivateFederationApi extends HttpApiGroup.make("privateFederation")
  .add(
    HttpApiEndpoint.post("add_federation_partner", "/add_federation_partner", {
      payload: AddPartnerIn,
      success: Envelope(PartnerAdminOut),
      error: [InvalidRequest, UnknownCurrency]
    }),
    HttpApiEndpoint.post("federation_credit", "/federation_credit", {
      payload: FederationCreditIn,
      success: Envelope(FederationCreditOut),
      error: [
        InvalidRequest,
        PartnerNotFound,
        PartnerCapabilityMissing,
        WalletNotFound,
        UnknownCurrency,
        TooManyDecimals,
        ExternalIdConflict,
        TransactionNotPending
      ]
    })
  )
  .middleware(ServiceAuth)
  .prefix("/private/v1")
  .annotateMerge(
    OpenApi.annotations({
      title: "Private federation",
      description: "Service credentials: `Authorization: Bearer <key>`"
    })
  ) {}
