/**
 * Every expected rejection of the API, each named after the rule it enforces, with its HTTP
 * status and its stable error code (CONTRACT C4). SPEC's five codes keep their numbers; the
 * rest live in 10000-10999. `errorCodes` is the one table the envelope middleware and the
 * OpenAPI document read.
 */
import { Schema } from "effect"

const fields = { message: Schema.String }

/** 10001: the request is malformed (wrong type, missing field, bad JSON); the message names the field. */
export class InvalidRequest extends Schema.TaggedError<InvalidRequest>()("InvalidRequest", fields, {
  httpApiStatus: 400
}) {}
/** 10002 (SPEC): the free balance does not cover the amount plus fee. */
export class BalanceNotEnough extends Schema.TaggedError<BalanceNotEnough>()("BalanceNotEnough", fields, {
  httpApiStatus: 400
}) {}
/** 10008 (SPEC): sender and recipient are the same wallet. */
export class SameAccounts extends Schema.TaggedError<SameAccounts>()("SameAccounts", fields, { httpApiStatus: 400 }) {}
/** 10014 (SPEC): the amount does not match what the operation requires. */
export class InvalidAmount extends Schema.TaggedError<InvalidAmount>()("InvalidAmount", fields, {
  httpApiStatus: 400
}) {}
/** 10094 (SPEC): the wallet holds the maximum number of open orders. */
export class MaxActiveOrdersExceeded extends Schema.TaggedError<MaxActiveOrdersExceeded>()(
  "MaxActiveOrdersExceeded",
  fields,
  { httpApiStatus: 400 }
) {}
/** 10130 (SPEC): the client nonce was used before. */
export class NonceExists extends Schema.TaggedError<NonceExists>()("NonceExists", fields, { httpApiStatus: 400 }) {}
/** 10020: the currency is not in the catalogue. */
export class UnknownCurrency extends Schema.TaggedError<UnknownCurrency>()("UnknownCurrency", fields, {
  httpApiStatus: 400
}) {}
/** 10021: the amount has more decimals than its currency. */
export class TooManyDecimals extends Schema.TaggedError<TooManyDecimals>()("TooManyDecimals", fields, {
  httpApiStatus: 400
}) {}
/** 10022: the currency is not enabled for this operation. */
export class CurrencyNotEnabled extends Schema.TaggedError<CurrencyNotEnabled>()("CurrencyNotEnabled", fields, {
  httpApiStatus: 400
}) {}
/** 10030: no such wallet (or not visible to the caller). */
export class WalletNotFound extends Schema.TaggedError<WalletNotFound>()("WalletNotFound", fields, {
  httpApiStatus: 404
}) {}
/** 10031: the wallet's flags forbid the operation (WalletBlock, InnerTransferBlock, Deleted). */
export class WalletBlocked extends Schema.TaggedError<WalletBlocked>()("WalletBlocked", fields, {
  httpApiStatus: 400
}) {}
/** 10032: a field value is outside its allowed range or set (the message names the field and rule). */
export class FieldRuleViolated extends Schema.TaggedError<FieldRuleViolated>()("FieldRuleViolated", fields, {
  httpApiStatus: 400
}) {}
/** 10040: no such terminal. */
export class TerminalNotFound extends Schema.TaggedError<TerminalNotFound>()("TerminalNotFound", fields, {
  httpApiStatus: 404
}) {}
/** 10041: the network already has its one Base terminal. */
export class BaseTerminalExists extends Schema.TaggedError<BaseTerminalExists>()("BaseTerminalExists", fields, {
  httpApiStatus: 400
}) {}
/** 10042: the built-in internal terminal cannot be replaced or re-typed. */
export class TerminalReadOnly extends Schema.TaggedError<TerminalReadOnly>()("TerminalReadOnly", fields, {
  httpApiStatus: 400
}) {}
/** 10050: no rate can be derived for the pair (direct, via USDT, via BTC). */
export class RateNotFound extends Schema.TaggedError<RateNotFound>()("RateNotFound", fields, { httpApiStatus: 404 }) {}
/** 10060: an externalId was reused with a different body. */
export class ExternalIdConflict extends Schema.TaggedError<ExternalIdConflict>()("ExternalIdConflict", fields, {
  httpApiStatus: 400
}) {}
/** 10070: the request carries more items than the action allows. */
export class TooManyItems extends Schema.TaggedError<TooManyItems>()("TooManyItems", fields, { httpApiStatus: 400 }) {}
/** 10080: the confirmation code or signature is wrong (the message says how many attempts are left). */
export class ConfirmationFailed extends Schema.TaggedError<ConfirmationFailed>()("ConfirmationFailed", fields, {
  httpApiStatus: 400
}) {}
/** 10081: the confirmation expired or its attempts are used up; the reservation was released. */
export class ConfirmationExpired extends Schema.TaggedError<ConfirmationExpired>()("ConfirmationExpired", fields, {
  httpApiStatus: 400
}) {}
/** 10082: the transaction is not waiting for this step (already settled, cancelled, or not yours). */
export class TransactionNotPending extends Schema.TaggedError<TransactionNotPending>()(
  "TransactionNotPending",
  fields,
  { httpApiStatus: 400 }
) {}
/** 10083: no such transaction visible to the caller. */
export class TransactionNotFound extends Schema.TaggedError<TransactionNotFound>()("TransactionNotFound", fields, {
  httpApiStatus: 404
}) {}
/** 10084: this party may not apply or cancel the code in its current state (SPEC error rule 6). */
export class WrongSide extends Schema.TaggedError<WrongSide>()("WrongSide", fields, { httpApiStatus: 400 }) {}
/** 10090: a post-only (LimitOnly) order would have matched on arrival; it was not placed. */
export class OrderWouldMatch extends Schema.TaggedError<OrderWouldMatch>()("OrderWouldMatch", fields, {
  httpApiStatus: 400
}) {}
/** 10091: no such order of this wallet. */
export class OrderNotFound extends Schema.TaggedError<OrderNotFound>()("OrderNotFound", fields, {
  httpApiStatus: 404
}) {}
/** 10092: the order is no longer open (completed, cancelled) or is still being placed. */
export class OrderNotActive extends Schema.TaggedError<OrderNotActive>()("OrderNotActive", fields, {
  httpApiStatus: 400
}) {}
/** 10093: no such room, or the wallet is not a member, or it is closed. */
export class RoomNotFound extends Schema.TaggedError<RoomNotFound>()("RoomNotFound", fields, { httpApiStatus: 404 }) {}
/** 10095: the creator already has the maximum number of private rooms (5). */
export class MaxRoomsExceeded extends Schema.TaggedError<MaxRoomsExceeded>()("MaxRoomsExceeded", fields, {
  httpApiStatus: 400
}) {}
/** 10096: only the room's owner may close it. */
export class NotRoomOwner extends Schema.TaggedError<NotRoomOwner>()("NotRoomOwner", fields, { httpApiStatus: 403 }) {}
/** 10097: the swap's toAmount drifts from the server's recomputation beyond the tolerance. */
export class SwapDrift extends Schema.TaggedError<SwapDrift>()("SwapDrift", fields, { httpApiStatus: 400 }) {}
/** 10401: missing or wrong credential. */
export class Unauthorized extends Schema.TaggedError<Unauthorized>()("Unauthorized", fields, { httpApiStatus: 401 }) {}
/** 10403: a valid credential for something it does not own. */
export class Forbidden extends Schema.TaggedError<Forbidden>()("Forbidden", fields, { httpApiStatus: 403 }) {}
/** 10404: unknown action or resource. */
export class NotFound extends Schema.TaggedError<NotFound>()("NotFound", fields, { httpApiStatus: 404 }) {}
/** 10429: rate limited or the service is shedding load. */
export class RateLimited extends Schema.TaggedError<RateLimited>()("RateLimited", fields, { httpApiStatus: 429 }) {}
/** 10500: unexpected failure; the message never carries internals. */
export class InternalError extends Schema.TaggedError<InternalError>()("InternalError", fields, {
  httpApiStatus: 500
}) {}

/** The one table of error codes: tag → [code, HTTP status]. */
export const errorCodes = {
  InvalidRequest: [10001, 400],
  BalanceNotEnough: [10002, 400],
  SameAccounts: [10008, 400],
  InvalidAmount: [10014, 400],
  MaxActiveOrdersExceeded: [10094, 400],
  NonceExists: [10130, 400],
  UnknownCurrency: [10020, 400],
  TooManyDecimals: [10021, 400],
  CurrencyNotEnabled: [10022, 400],
  WalletNotFound: [10030, 404],
  WalletBlocked: [10031, 400],
  FieldRuleViolated: [10032, 400],
  TerminalNotFound: [10040, 404],
  BaseTerminalExists: [10041, 400],
  TerminalReadOnly: [10042, 400],
  RateNotFound: [10050, 404],
  ExternalIdConflict: [10060, 400],
  TooManyItems: [10070, 400],
  ConfirmationFailed: [10080, 400],
  ConfirmationExpired: [10081, 400],
  TransactionNotPending: [10082, 400],
  TransactionNotFound: [10083, 404],
  WrongSide: [10084, 400],
  OrderWouldMatch: [10090, 400],
  OrderNotFound: [10091, 404],
  OrderNotActive: [10092, 400],
  RoomNotFound: [10093, 404],
  MaxRoomsExceeded: [10095, 400],
  NotRoomOwner: [10096, 403],
  SwapDrift: [10097, 400],
  InvestmentAmountZero: [10150, 400],
  InvestmentStateNotAllowed: [10151, 400],
  InvestmentTypeUnknown: [10152, 400],
  InvestmentFlagsUnknown: [10153, 400],
  InvestmentRateInvalid: [10154, 400],
  InvestmentTermInvalid: [10155, 400],
  InvestmentNotFound: [10156, 404],
  InvestmentStateConflict: [10157, 400],
  EarlyCloseNotAllowed: [10158, 400],
  ManagedProfitMode: [10159, 400],
  ProfitBelowCredited: [10160, 400],
  TooManyOpenInvestments: [10161, 400],
  NotACryptoTerminal: [10200, 400],
  TerminalNotAllowed: [10201, 400],
  AddressesUnavailable: [10202, 400],
  AddressLimitReached: [10203, 400],
  InvalidAddress: [10204, 400],
  BlockHeightGap: [10205, 400],
  BlockNotConnected: [10206, 400],
  BlockTooOld: [10207, 400],
  DuplicateItem: [10208, 400],
  WithdrawalHandedOff: [10210, 400],
  SourceTransferNotSupported: [10211, 400],
  SourceAddressRefused: [10212, 400],
  SendReportRefused: [10213, 400],
  NotUnattributed: [10220, 400],
  PartnerInfoNotRequired: [10230, 400],
  PartnerInfoSealed: [10231, 400],
  IncomeNotRefundable: [10232, 400],
  RefundBelowNetworkFee: [10233, 400],
  PartnerNotFound: [10170, 404],
  FederationSignatureInvalid: [10171, 401],
  PartnerCapabilityMissing: [10172, 403],
  PartnerCurrencyNotAllowed: [10173, 400],
  PartnerEventMismatch: [10174, 400],
  PartnerOrderNotFound: [10175, 404],
  PartnerRefused: [10176, 400],
  PartnerUnavailable: [10177, 400],
  PaymentOrderNotFound: [10300, 404],
  PaymentOrderExpired: [10301, 400],
  PaymentOrderNotPayable: [10302, 400],
  TerminalNotAvailable: [10303, 400],
  TerminalLocked: [10304, 400],
  PayAmountNeedsTerminal: [10305, 400],
  NoPaymentInProgress: [10306, 400],
  WrongOrderKind: [10307, 400],
  AppNotFound: [10308, 404],
  PaymentPending: [10309, 400],
  AcquiringSessionNotFound: [10310, 404],
  AcquiringSessionClosed: [10311, 400],
  WebhookSignatureInvalid: [10313, 401],
  WebhookMismatch: [10314, 400],
  RefundNotAllowed: [10320, 400],
  RefundExceedsPaid: [10321, 400],
  RefundNotFound: [10322, 404],
  RefundAddressRequired: [10323, 400],
  TooManyRefunds: [10324, 400],
  StatsRangeInvalid: [10330, 400],
  WebhookUrlRejected: [10340, 400],
  WebhookDeliveryNotFound: [10341, 404],
  Unauthorized: [10401, 401],
  Forbidden: [10403, 403],
  NotFound: [10404, 404],
  // C19 at the edge (schema/EdgeErrors.ts).
  KeyScope: [10405, 403],
  CrossSiteRequest: [10406, 403],
  UnsupportedMediaType: [10407, 415],
  RateLimitExceeded: [10408, 429],
  TooManyWaiters: [10409, 429],
  RequestTimeout: [10410, 503],
  AppDisabled: [10411, 403],
  AppDisabledOrder: [10411, 400],
  // C19 §1, §9 (schema/RailErrors.ts).
  TooManyOrderAddresses: [10412, 400],
  WithdrawalBroadcast: [10413, 400],
  SandboxOff: [10414, 400],
  RateLimited: [10429, 429],
  InternalError: [10500, 500]
} as const satisfies Record<string, readonly [number, number]>

export type ErrorTag = keyof typeof errorCodes

export const codeOf = (tag: string): number | undefined =>
  (errorCodes as Record<string, readonly [number, number]>)[tag]?.[0]

/** The errors every authenticated endpoint may answer besides its own. */
export const AuthErrors = [Unauthorized, Forbidden] as const
