/**
 * The response envelope of SPEC (ApiResponse<T>): `{ result, error, id, cursor? }`. Handlers
 * return envelopes for successes; the envelope middleware turns every failure (declared
 * errors, decode failures, unknown routes, defects) into one with `result: null`.
 */
import { Context, Effect, Schema } from "effect"

export const ErrorBody = Schema.Struct({
  code: Schema.Int.annotate({ description: "Stable error code (see the error table)" }),
  message: Schema.String
})

export const Envelope = <S extends Schema.Top>(result: S) =>
  Schema.Struct({
    result,
    error: Schema.Null,
    id: Schema.Int.annotate({ description: "Request number, unique within the process; also the X-Request-Id header" })
  })

export const CursorEnvelope = <S extends Schema.Top>(result: S) =>
  Schema.Struct({
    result,
    error: Schema.Null,
    id: Schema.Int,
    cursor: Schema.String.annotate({ description: "Next watermark (int64 as a decimal string)" })
  })

export const ErrorEnvelope = Schema.Struct({
  result: Schema.Null,
  error: ErrorBody,
  id: Schema.Int
}).annotate({ identifier: "ErrorEnvelope" })

/** The request number of the request being served (set by the envelope middleware). */
export const RequestId = Context.Reference<number>("core/RequestId", { defaultValue: () => 0 })

export const ok = <A>(result: A): Effect.Effect<{ result: A; error: null; id: number }> =>
  RequestId.useSync((id) => ({ result, error: null, id }))

export const okCursor = <A>(
  result: A,
  cursor: string
): Effect.Effect<{ result: A; error: null; id: number; cursor: string }> =>
  RequestId.useSync((id) => ({ result, error: null, id, cursor }))
