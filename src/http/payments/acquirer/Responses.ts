/** Envelopes for the plain (non-HttpApi) routes of card acquiring: the same shapes HttpApi answers. */
import { Effect } from "effect"
import { HttpServerResponse } from "effect/http"
import { RequestId } from "../../../../schema/Envelope.ts"
import { errorCodes } from "../../../../schema/Errors.ts"

export const okResponse = (result: unknown) =>
  RequestId.useSync((id) => HttpServerResponse.jsonUnsafe({ result, error: null, id }))

/** A declared error (tag in schema/Errors.ts' table) as its error envelope and status. */
export const errorResponse = (error: { readonly _tag: string; readonly message: string }) =>
  RequestId.useSync((id) => {
    const [code, status] = (errorCodes as Record<string, readonly [number, number]>)[error._tag] ?? [10500, 500]
    return HttpServerResponse.jsonUnsafe({ result: null, error: { code, message: error.message }, id }, { status })
  })

/** Runs a route's effect: declared failures become their envelopes (defects stay for the envelope middleware). */
export const answer = <A, E extends { readonly _tag: string; readonly message: string }, R>(
  effect: Effect.Effect<A, E, R>
) => effect.pipe(Effect.flatMap(okResponse), Effect.catch(errorResponse))
