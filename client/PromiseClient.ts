/**
 * The typed client for callers who do not use Effect: the same groups and methods as CoreClient, each
 * returning a Promise of the decoded answer and rejecting with the endpoint's typed error (an `Error`
 * whose `_tag` names the rule, e.g. `BalanceNotEnough`, with the server's message).
 *
 *   const core = createClient({ baseUrl: "http://127.0.0.1:8080", sid })
 *   const balance = await core.wallet.get_balance()      // { result, error: null, id }
 *   await core.close()
 */
import { Effect, ManagedRuntime } from "effect"
import type { HttpApiClient, HttpApiEndpoint } from "effect/http-api"
import { type ClientOptions, CoreClient, type CoreApi } from "./CoreClient.ts"

/** One endpoint's method, answering its decoded success (the default response mode) as a Promise. */
type PromiseMethod<Ep extends HttpApiEndpoint.ConstraintRequest> = (
  request: HttpApiEndpoint.ClientRequest<
    Ep["~Params"],
    Ep["~Query"],
    Ep["~Payload"],
    Ep["~Headers"],
    "decoded-only",
    never
  >
) => Promise<Effect.Success<HttpApiClient.Client.MethodReturn<Ep, never, never, "decoded-only", never>>>

/** Every endpoint of CoreApi with its Effect turned into a Promise of the same success. */
export type PromiseApi = {
  readonly [G in keyof CoreApi]: {
    readonly [E in keyof CoreApi[G]]: CoreApi[G][E] extends HttpApiClient.Client.Method<infer Ep, any, any>
      ? PromiseMethod<Ep>
      : never
  }
} & {
  /** Releases the client's resources; later calls reject. */
  readonly close: () => Promise<void>
}

export const createClient = (options: ClientOptions): PromiseApi => {
  const runtime = ManagedRuntime.make(CoreClient.layer(options))
  const call = (group: string, endpoint: string, args: Array<unknown>) =>
    runtime.runPromise(CoreClient.use((client) => (client as any)[group][endpoint](...args) as Effect.Effect<unknown>))
  const groups = new Map<string, object>()
  const groupOf = (group: string) => {
    let methods = groups.get(group)
    if (methods === undefined) {
      methods = new Proxy(
        {},
        {
          get:
            (_, endpoint) =>
            (...args: Array<unknown>) =>
              call(group, String(endpoint), args)
        }
      )
      groups.set(group, methods)
    }
    return methods
  }
  const close = () => runtime.dispose()
  return new Proxy({} as PromiseApi, {
    get: (_, name) => (name === "close" ? close : name === "then" ? undefined : groupOf(String(name)))
  })
}
