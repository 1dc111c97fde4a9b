/**
 * The few calls the benchmarks make to set a service up (private actions with its service key, and
 * session calls with a cookie), each answering the HTTP status and the parsed envelope.
 */
import type { RunningService } from "./Service.ts"

export interface Reply {
  readonly status: number
  readonly body: { result: any; error: { code: number; message: string } | null } & Record<string, any>
}

export const makeClient = (service: RunningService) => {
  const call = async (
    method: string,
    path: string,
    options: { readonly body?: unknown; readonly sid?: string; readonly bearer?: string } = {}
  ): Promise<Reply> => {
    const headers: Record<string, string> = {}
    if (options.sid !== undefined) headers.cookie = `sid=${options.sid}`
    if (options.bearer !== undefined) headers.authorization = `Bearer ${options.bearer}`
    if (options.body !== undefined) headers["content-type"] = "application/json"
    const response = await fetch(service.base + path, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body)
    })
    const text = await response.text()
    let body: any
    try {
      body = JSON.parse(text)
    } catch {
      body = { raw: text }
    }
    return { status: response.status, body }
  }
  const priv = (method: string, action: string, body?: unknown) =>
    call(method, `/private/v1/${action}`, { bearer: service.key, body })
  /** A successful private action's result; anything else throws, naming the action. */
  const privResult = async (action: string, body?: unknown) => {
    const reply = await priv(body === undefined ? "GET" : "POST", action, body)
    if (reply.status !== 200 || reply.body.error !== null)
      throw new Error(`${action}: ${reply.status} ${JSON.stringify(reply.body).slice(0, 500)}`)
    return reply.body.result
  }
  const createWallet = async (clientId: string, extra: Record<string, unknown> = {}): Promise<{ id: string }> =>
    privResult("create_wallet", { clientId, ...extra })
  const createSession = async (walletId: string): Promise<string> =>
    (await privResult("create_session", { walletId })).sid
  let funded = 0
  /** A treasury credit of `amount` (a decimal string) in `currency`. */
  const fund = async (walletId: string, currency: string, amount: string): Promise<void> => {
    const [item] = await privResult("execute_transactions", [
      {
        externalId: `bench-fund-${Date.now()}-${funded++}-${Math.random()}`,
        walletId,
        currency,
        amount,
        direction: "credit"
      }
    ])
    if (item.error !== null) throw new Error(`fund: ${JSON.stringify(item)}`)
  }
  return { call, priv, privResult, createWallet, createSession, fund }
}

export type Client = ReturnType<typeof makeClient>
