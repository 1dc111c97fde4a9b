/**
 * How a command answers (issue #28 item 2): the call's `result` as indented JSON (one compact line with
 * `--json`, for scripts), exit code 0; a refusal on stderr as `refused: <Tag>: <message>` (with `--json`
 * the line `{"error":{"tag","message"}}` on stdout), exit code 1; a service that cannot be reached, exit
 * code 3. A usage error (unknown command, missing argument) is effect/cli's: its message and exit code 1.
 */
import { Console, Effect } from "effect"

export const exitCodes = { ok: 0, refused: 1, unreachable: 3 } as const

const print = (json: boolean, value: unknown) =>
  Console.log(json ? JSON.stringify(value) : JSON.stringify(value, null, 2))

/** Runs one API call and prints its answer (the envelope's `result`, and `cursor` when it has one). */
export const answer = <A extends { readonly result: unknown; readonly cursor?: unknown }, E, R>(
  json: boolean,
  call: Effect.Effect<A, E, R>
) =>
  call.pipe(
    Effect.flatMap((envelope) =>
      print(
        json,
        envelope.cursor === undefined ? envelope.result : { result: envelope.result, cursor: envelope.cursor }
      )
    ),
    Effect.catch((error: unknown) => refused(json, error))
  )

export const refused = (json: boolean, error: unknown) =>
  Effect.gen(function* () {
    const tag = (error as { _tag?: string })?._tag ?? "Error"
    const message = (error as { message?: string })?.message ?? String(error)
    if (tag === "HttpClientError" || tag === "TransportError" || /ECONNREFUSED|fetch failed/.test(message)) {
      yield* Console.error(`cannot reach the service: ${message}`)
      process.exitCode = exitCodes.unreachable
      return
    }
    if (json) yield* Console.log(JSON.stringify({ error: { tag, message } }))
    else yield* Console.error(`refused: ${tag}: ${message}`)
    process.exitCode = exitCodes.refused
  })
