/**
 * The service over plain HTTP with a scoped service key (C19 §2), as any third-party scanner or
 * signer would call it: JSON in, the envelope `{ result, error, id, cursor }` out. A refusal with an
 * error code is a ServiceRefusal (the caller decides); anything else that is not an answer (no
 * connection, a 5xx without a code, a body that is not the envelope) is a ServiceDown, which the
 * loops back off on.
 */
export interface Envelope<T> {
  readonly result: T
  readonly error: { readonly code: number; readonly message: string } | null
  readonly cursor?: string
}

export interface Answer<T> {
  readonly status: number
  readonly result: T
  readonly cursor: string | undefined
}

/** The service answered with an error code (a 4xx, or a 5xx that names one). */
export class ServiceRefusal extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    readonly detail: string,
    readonly action: string
  ) {
    super(`${action}: ${status} ${code} ${detail}`)
  }
}

/** The service could not be reached or did not answer with its envelope. */
export class ServiceDown extends Error {}

export interface ServiceClient {
  readonly get: <T>(action: string, query: Record<string, string | number | undefined>) => Promise<Answer<T>>
  readonly post: <T>(action: string, body: unknown) => Promise<Answer<T>>
}

export const makeServiceClient = (baseUrl: string, key: string, timeoutMs = 60_000): ServiceClient => {
  const base = baseUrl.replace(/\/+$/, "")
  const call = async <T>(method: "GET" | "POST", action: string, path: string, body?: unknown) => {
    let response: Response
    try {
      response = await fetch(`${base}/private/v1/${path}`, {
        method,
        headers: {
          authorization: `Bearer ${key}`,
          ...(body === undefined ? {} : { "content-type": "application/json" })
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs)
      })
    } catch (cause) {
      throw new ServiceDown(`${action}: the service did not answer (${(cause as Error).message})`)
    }
    const text = await response.text()
    let envelope: Envelope<T>
    try {
      envelope = JSON.parse(text) as Envelope<T>
    } catch {
      // An action this service does not have: a 404 that is not its envelope.
      if (response.status === 404) throw new ServiceRefusal(404, 0, text.slice(0, 200), action)
      throw new ServiceDown(`${action}: ${response.status} without the envelope: ${text.slice(0, 200)}`)
    }
    if (envelope.error != null) {
      if (response.status >= 500 || response.status === 429)
        throw new ServiceDown(`${action}: ${response.status} ${envelope.error.code} ${envelope.error.message}`)
      throw new ServiceRefusal(response.status, envelope.error.code, envelope.error.message, action)
    }
    if (response.status >= 400 || !("result" in envelope))
      throw new ServiceDown(`${action}: ${response.status} ${text.slice(0, 200)}`)
    return { status: response.status, result: envelope.result, cursor: envelope.cursor }
  }
  return {
    get: (action, query) => {
      const params = new URLSearchParams(
        Object.entries(query)
          .filter(([, v]) => v !== undefined)
          .map(([k, v]): [string, string] => [k, String(v)])
      ).toString()
      return call("GET", action, params === "" ? action : `${action}?${params}`)
    },
    post: (action, body) => call("POST", action, action, body)
  }
}
