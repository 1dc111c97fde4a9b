/**
 * The edge's rejections (CONTRACT C19 §2, §3, §5, §7, §8: codes 10405-10411); their codes are in the one table
 * of schema/Errors.ts. They are answered before a handler runs (the credential middleware, the HTTP
 * middleware of src/http/EdgeRules.ts) or while a long-poll would park.
 */
import { Schema } from "effect"

const fields = { message: Schema.String }

/** 10405: a valid service key whose scope does not cover the action (or a named key acting as another operator). */
export class KeyScope extends Schema.TaggedError<KeyScope>()("KeyScope", fields, { httpApiStatus: 403 }) {}
/** 10406: a request with the `sid` cookie sent from another site. */
export class CrossSiteRequest extends Schema.TaggedError<CrossSiteRequest>()("CrossSiteRequest", fields, {
  httpApiStatus: 403
}) {}
/** 10407: a body (or a named Content-Type) that is not application/json. */
export class UnsupportedMediaType extends Schema.TaggedError<UnsupportedMediaType>()("UnsupportedMediaType", fields, {
  httpApiStatus: 415
}) {}
/** 10408: the caller's token bucket (its credential's, or its address's without one) is empty; see Retry-After. */
export class RateLimitExceeded extends Schema.TaggedError<RateLimitExceeded>()("RateLimitExceeded", fields, {
  httpApiStatus: 429
}) {}
/** 10409: the credential already holds LONGPOLL_MAX_PER_CREDENTIAL parked long-polls. */
export class TooManyWaiters extends Schema.TaggedError<TooManyWaiters>()("TooManyWaiters", fields, {
  httpApiStatus: 429
}) {}
/** 10410: no answer within REQUEST_TIMEOUT_SECONDS; the action may still complete (read it back). */
export class RequestTimeout extends Schema.TaggedError<RequestTimeout>()("RequestTimeout", fields, {
  httpApiStatus: 503
}) {}
/** 10411: a disabled merchant app's pkey (C19 §5, set_app_enabled). */
export class AppDisabled extends Schema.TaggedError<AppDisabled>()("AppDisabled", fields, { httpApiStatus: 403 }) {}
/** 10411 at the gate: order_start or a pay_* of a disabled app's order (reads still work). */
export class AppDisabledOrder extends Schema.TaggedError<AppDisabledOrder>()("AppDisabledOrder", fields, {
  httpApiStatus: 400
}) {}
