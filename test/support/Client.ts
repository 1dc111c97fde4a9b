/** A small HTTP client for tests: the envelope, credentials of every kind, and bootstrap helpers. */
import { afterAll, assert } from "@effect/vitest"
import { assertAuditSound } from "./Audit.ts"
import { type RunningService, startService } from "./Service.ts"

export interface Reply<T = any> {
  readonly status: number
  readonly body: { result: T; error: { code: number; message: string } | null; id: number; cursor?: string } & Record<string, any>
  readonly headers: Headers
}

export interface CallOptions {
  readonly body?: unknown
  readonly raw?: string
  readonly sid?: string
  readonly bearer?: string
  readonly pkey?: string
  readonly headers?: Record<string, string>
}

export const makeClient = (service: RunningService) => {
  const call = async <T = any>(method: string, path: string, options: CallOptions = {}): Promise<Reply<T>> => {
    const headers: Record<string, string> = { ...options.headers }
    if (options.sid !== undefined) headers.cookie = `sid=${options.sid}`
    if (options.bearer !== undefined) headers.authorization = `Bearer ${options.bearer}`
    if (options.pkey !== undefined) headers.pkey = options.pkey
    const hasBody = options.body !== undefined || options.raw !== undefined
    if (hasBody) headers["content-type"] = "application/json"
    const response = await fetch(service.base + path, {
      method,
      headers,
      body: options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body))
    })
    const text = await response.text()
    let body: any
    try { body = JSON.parse(text) } catch { body = { raw: text } }
    return { status: response.status, body, headers: response.headers }
  }
  const priv = <T = any>(method: string, action: string, body?: unknown) =>
    call<T>(method, `/private/v1/${action}`, { bearer: service.key, body })

  const createWallet = async (clientId: string, extra: Record<string, unknown> = {}) => {
    const reply = await priv("POST", "create_wallet", { clientId, ...extra })
    if (reply.status !== 200) throw new Error(`create_wallet: ${JSON.stringify(reply.body)}`)
    return reply.body.result as { id: string; client_id: string; flags: number; address: string } & Record<string, any>
  }
  const createSession = async (walletId: string) => {
    const reply = await priv("POST", "create_session", { walletId })
    if (reply.status !== 200) throw new Error(`create_session: ${JSON.stringify(reply.body)}`)
    return reply.body.result.sid as string
  }
  /** A new wallet for `clientId` and a session acting as it. */
  const walletWithSession = async (clientId: string) => {
    const created = await createWallet(clientId)
    return { id: created.id, sid: await createSession(created.id) }
  }
  let externalCounter = 0
  const fund = async (walletId: string, currency: string, amount: string, direction: "credit" | "debit" = "credit") => {
    const reply = await priv("POST", "execute_transactions", [{
      externalId: `fund-${Date.now()}-${externalCounter++}-${Math.random()}`, walletId, currency, amount, direction
    }])
    if (reply.status !== 200 || reply.body.result[0].error !== null) throw new Error(`fund: ${JSON.stringify(reply.body)}`)
    return reply.body.result[0].txId as string
  }
  const balance = async (sid: string, currency: string) => {
    const reply = await call("GET", "/core/v1/wallet/get_balance", { sid })
    return (reply.body.result as Array<any>).find((row) => row.currency === currency)
  }
  /** The operator audit (CONTRACT C6): every currency sums to "0" and no user bucket is negative. */
  const assertLedgerSound = async (where = "ledger") => {
    const reply = await priv("GET", "ledger_audit")
    assert.strictEqual(reply.status, 200, `${where}: ${JSON.stringify(reply.body)}`)
    assertAuditSound(reply.body.result, where)
  }
  return { call, priv, createWallet, createSession, walletWithSession, fund, balance, assertLedgerSound }
}

export type TestClient = ReturnType<typeof makeClient>

/** Asserts the envelope shape of any reply. */
export const isEnvelope = (body: any): boolean =>
  body !== null && typeof body === "object" && "result" in body && "error" in body && typeof body.id === "number"

/**
 * Clients of both processes on one database: the primary and a second service process started on
 * first use (only tests that need two processes pay for it) and stopped after the file's tests.
 */
export const twoProcessClients = (primary: () => RunningService): (() => Promise<[TestClient, TestClient]>) => {
  let peer: RunningService | undefined
  afterAll(async () => {
    await peer?.stop()
  })
  return async () => {
    peer ??= await startService({ databaseUrl: primary().databaseUrl })
    return [makeClient(primary()), makeClient(peer)]
  }
}
