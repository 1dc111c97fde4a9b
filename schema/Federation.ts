/**
 * Federation wire shapes and errors (CONTRACT C18): partner records, partner orders, the inbound
 * webhook's answer and federation_credit. Amounts are exact decimal strings (C16 style); requests take
 * strings or JSON numbers. Secrets (`outboundPkey`, `webhookSecret`) appear in inputs only.
 */
import { Schema } from "effect"
import { Int64, TxIdOut } from "./Ids.ts"
import { PositiveAmount } from "./Money.ts"
import { TxRow } from "./Transfer.ts"

const fields = { message: Schema.String }

/** 10170 (C18): no partner of that id, or it is disabled. */
export class PartnerNotFound extends Schema.TaggedError<PartnerNotFound>()("PartnerNotFound", fields, {
  httpApiStatus: 404
}) {}
/** 10171 (C18): the inbound webhook's partner, signature or timestamp does not hold. */
export class FederationSignatureInvalid extends Schema.TaggedError<FederationSignatureInvalid>()(
  "FederationSignatureInvalid",
  fields,
  { httpApiStatus: 401 }
) {}
/** 10172 (C18): the partner lacks the capability the action needs. */
export class PartnerCapabilityMissing extends Schema.TaggedError<PartnerCapabilityMissing>()(
  "PartnerCapabilityMissing",
  fields,
  { httpApiStatus: 403 }
) {}
/** 10173 (C18): the currency is not in the partner's list. */
export class PartnerCurrencyNotAllowed extends Schema.TaggedError<PartnerCurrencyNotAllowed>()(
  "PartnerCurrencyNotAllowed",
  fields,
  { httpApiStatus: 400 }
) {}
/** 10174 (C18): an inbound event does not match the partner's app or the order as read back. */
export class PartnerEventMismatch extends Schema.TaggedError<PartnerEventMismatch>()("PartnerEventMismatch", fields, {
  httpApiStatus: 400
}) {}
/** 10175 (C18): no partner order of ours carries the event's externalId. */
export class PartnerOrderNotFound extends Schema.TaggedError<PartnerOrderNotFound>()("PartnerOrderNotFound", fields, {
  httpApiStatus: 404
}) {}
/** 10176 (C18): the partner answered an error envelope (its code and message in ours). */
export class PartnerRefused extends Schema.TaggedError<PartnerRefused>()("PartnerRefused", fields, {
  httpApiStatus: 400
}) {}
/** 10177 (C18): the partner did not answer (refused connection, timeout, not an envelope). */
export class PartnerUnavailable extends Schema.TaggedError<PartnerUnavailable>()("PartnerUnavailable", fields, {
  httpApiStatus: 400
}) {}

export const Capability = Schema.Literals(["Federation", "FederationWallet", "FederationChat"])
export type Capability = typeof Capability.Type

export const partnerIdPattern = /^[A-Za-z0-9_-]{1,64}$/
export const PartnerId = Schema.String.check(
  Schema.makeFilter<string>((text) => partnerIdPattern.test(text) || "must match ^[A-Za-z0-9_-]{1,64}$")
)

const text = (min: number, max: number) => Schema.String.check(Schema.isMinLength(min), Schema.isMaxLength(max))

export const AddPartnerIn = Schema.Struct({
  partnerId: PartnerId,
  name: text(1, 100),
  baseUrl: text(1, 2048),
  outboundAppId: Int64,
  outboundPkey: text(1, 200),
  webhookSecret: text(16, 200),
  capabilities: Schema.Array(Capability).check(Schema.isMaxLength(3)),
  currencies: Schema.optional(Schema.NullOr(Schema.Array(Schema.String.check(Schema.isMaxLength(20))))),
  enabled: Schema.optional(Schema.Boolean)
})
export type AddPartnerIn = typeof AddPartnerIn.Type

export const PartnerAdminOut = Schema.Struct({
  partnerId: Schema.String,
  name: Schema.String,
  baseUrl: Schema.String,
  outboundAppId: Schema.String,
  capabilities: Schema.Array(Capability),
  currencies: Schema.NullOr(Schema.Array(Schema.String)),
  enabled: Schema.Boolean,
  createdAt: Schema.String,
  updatedAt: Schema.String,
  replaced: Schema.Boolean
}).annotate({ identifier: "PartnerAdminOut" })
export type PartnerAdminOut = typeof PartnerAdminOut.Type

export const PartnerOut = Schema.Struct({
  partnerId: Schema.String,
  name: Schema.String,
  baseUrl: Schema.String,
  capabilities: Schema.Array(Capability),
  currencies: Schema.NullOr(Schema.Array(Schema.String))
}).annotate({ identifier: "PartnerOut" })
export type PartnerOut = typeof PartnerOut.Type

export const CreatePartnerOrderIn = Schema.Struct({
  partnerId: text(1, 64),
  currency: Schema.String.check(Schema.isMaxLength(20)),
  amount: PositiveAmount,
  description: Schema.optional(Schema.NullOr(text(0, 500))),
  expiresInSeconds: Schema.optional(
    Schema.NullOr(Schema.Int.check(Schema.isBetween({ minimum: 60, maximum: 86_400 })))
  ),
  tag: Schema.optional(Schema.NullOr(text(0, 100)))
})
export type CreatePartnerOrderIn = typeof CreatePartnerOrderIn.Type

export const PartnerOrderOut = Schema.Struct({
  txId: TxIdOut,
  partnerId: Schema.String,
  currency: Schema.String,
  amount: Schema.String,
  code: Schema.NullOr(Schema.String),
  payUrl: Schema.NullOr(Schema.String),
  remoteOrderId: Schema.String,
  expiresAt: Schema.NullOr(Schema.String)
}).annotate({ identifier: "PartnerOrderOut" })
export type PartnerOrderOut = typeof PartnerOrderOut.Type

export const CreatePartnerTransferIn = Schema.Struct({
  partnerId: text(1, 64),
  recipient: text(1, 100),
  currency: Schema.String.check(Schema.isMaxLength(20)),
  amount: PositiveAmount,
  tag: Schema.optional(Schema.NullOr(text(0, 100))),
  clientNonce: Schema.optional(Schema.NullOr(Int64))
})
export type CreatePartnerTransferIn = typeof CreatePartnerTransferIn.Type

/**
 * cancel_partner_transfer (and cancel_tx on a partner transfer): the transaction's TxRow as it now is
 * (C18, the C11 row shape), with `txId` (= id) as every cancel_tx answer carries it.
 */
export const CancelPartnerTransferOut = Schema.Struct({
  txId: Schema.String,
  ...TxRow.fields
}).annotate({ identifier: "CancelPartnerTransferOut" })
export type CancelPartnerTransferOut = typeof CancelPartnerTransferOut.Type

export const FederationWebhookOut = Schema.Struct({
  accepted: Schema.Boolean,
  duplicate: Schema.Boolean,
  txId: Schema.NullOr(Schema.String)
})
export type FederationWebhookOut = typeof FederationWebhookOut.Type

export const FederationCreditIn = Schema.Struct({
  partnerId: text(1, 64),
  reference: text(1, 100),
  walletId: Int64,
  currency: Schema.String.check(Schema.isMaxLength(20)),
  amount: PositiveAmount,
  tag: Schema.optional(Schema.NullOr(text(0, 100)))
})
export type FederationCreditIn = typeof FederationCreditIn.Type

export const FederationCreditOut = Schema.Struct({ txId: TxIdOut, replayed: Schema.Boolean })
export type FederationCreditOut = typeof FederationCreditOut.Type
