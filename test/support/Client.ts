/** A small HTTP client for tests: the envelope, credentials of every kind, and bootstrap helpers. */
import { afterAll, assert } from "@effect/vitest"
import { Agent, fetch as fetchFrom } from "undici"
import { assertAuditSound } from "./Audit.ts"
import { type RunningService, startService } from "./Service.ts"

export interface Reply<T = any> {
  readonly status: number
  readonly body: { result: T; error: { code: number; message: string } | null; id: number; cursor?: string } & Record<
    string,
    any
  >
  readonly headers: Headers
}

/** A wallet with its own session (`party`). */
export interface Party {
  readonly clientId: string
  readonly id: string
  readonly address: string
  readonly flags: number
  readonly sid: string
}

/** A balance row's buckets as numbers (the wire's JSON numbers). */
export interface Buckets {
  readonly free: number
  readonly lockOut: number
  readonly lockIn: number
  readonly lockOrders: number
}

/** An item of the private events feed. */
export interface EventItem {
  readonly id: string
  readonly kind: string
  readonly walletId: string
  readonly payload: any
  readonly dateUTC: string
}

export interface CallOptions {
  readonly body?: unknown
  readonly raw?: string
  readonly sid?: string
  readonly bearer?: string
  readonly pkey?: string
  readonly headers?: Record<string, string>
  /** The client address to send from (a loopback address such as 127.0.0.2): another caller for the edge's limits. */
  readonly from?: string
}

const agents = new Map<string, Agent>()
/** A keep-alive agent whose connections leave from `address`. */
export const agentFrom = (address: string): Agent => {
  let agent = agents.get(address)
  if (agent === undefined) agents.set(address, (agent = new Agent({ localAddress: address })))
  return agent
}

/** A client of one service; a thunk binds it before the service has started (`serviceForFile`). */
export const makeClient = (running: RunningService | (() => RunningService)) => {
  const service = () => (typeof running === "function" ? running() : running)
  const call = async <T = any>(method: string, path: string, options: CallOptions = {}): Promise<Reply<T>> => {
    const headers: Record<string, string> = { ...options.headers }
    if (options.sid !== undefined) headers.cookie = `sid=${options.sid}`
    if (options.bearer !== undefined) headers.authorization = `Bearer ${options.bearer}`
    if (options.pkey !== undefined) headers.pkey = options.pkey
    const hasBody = options.body !== undefined || options.raw !== undefined
    if (hasBody) headers["content-type"] = "application/json"
    const init = {
      method,
      headers,
      body: options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body))
    }
    const response =
      options.from === undefined
        ? await fetch(service().base + path, init)
        : await fetchFrom(service().base + path, { ...init, dispatcher: agentFrom(options.from) })
    const text = await response.text()
    let body: any
    try {
      body = JSON.parse(text)
    } catch {
      body = { raw: text }
    }
    return { status: response.status, body, headers: response.headers }
  }
  const priv = <T = any>(method: string, action: string, body?: unknown) =>
    call<T>(method, `/private/v1/${action}`, { bearer: service().key, body })

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
    const reply = await priv("POST", "execute_transactions", [
      {
        externalId: `fund-${Date.now()}-${externalCounter++}-${Math.random()}`,
        walletId,
        currency,
        amount,
        direction
      }
    ])
    if (reply.status !== 200 || reply.body.result[0].error !== null)
      throw new Error(`fund: ${JSON.stringify(reply.body)}`)
    return reply.body.result[0].txId as string
  }
  const balance = async (sid: string, currency: string) => {
    const reply = await call("GET", "/core/v1/wallet/get_balance", { sid })
    return (reply.body.result as Array<any>).find((row) => row.currency === currency)
  }
  /** internal_transfer: step one without `query`, step two with the confirmation in it. */
  const transfer = (
    sid: string,
    body: Record<string, unknown>,
    options: { query?: Record<string, string>; headers?: Record<string, string> } = {}
  ) =>
    call(
      "POST",
      `/core/v1/wallet/internal_transfer${options.query === undefined ? "" : "?" + new URLSearchParams(options.query)}`,
      { sid, body, headers: options.headers }
    )
  /** Step two with a code. */
  const confirmTransfer = (
    sid: string,
    body: Record<string, unknown>,
    txId: string,
    code: string,
    headers?: Record<string, string>
  ) => transfer(sid, body, { query: { confirmationTimetick: txId, confirmationCode: code }, headers })
  /** The sender's cancel of a pending transfer. */
  const cancelTx = (sid: string, txId: string) => call("POST", `/core/v1/wallet/cancel_tx?id=${txId}`, { sid })
  /** A new client id (a file's own database: unique within it). */
  let nextClient = 700_000
  const newClientId = () => String(nextClient++)
  /**
   * A party: a wallet (of `clientId`, else a new client) with its own session, funded with `fund`
   * (a USDT amount, or amounts per currency; none by default).
   */
  const party = async (
    options: { clientId?: string; fund?: string | Record<string, string>; extra?: Record<string, unknown> } = {}
  ): Promise<Party> => {
    const clientId = options.clientId ?? newClientId()
    const wallet = await createWallet(clientId, options.extra ?? {})
    const sid = await createSession(wallet.id)
    const funds = typeof options.fund === "string" ? { USDT: options.fund } : (options.fund ?? {})
    for (const [currency, amount] of Object.entries(funds)) if (amount !== "0") await fund(wallet.id, currency, amount)
    return { clientId, id: wallet.id, address: wallet.address, flags: wallet.flags, sid }
  }
  /** A party's buckets of one currency as its own session reads them (zeros when it holds none). */
  const bucketsOf = async (who: { readonly sid: string }, currency = "USDT"): Promise<Buckets> => {
    const row = await balance(who.sid, currency)
    return row === undefined
      ? { free: 0, lockOut: 0, lockIn: 0, lockOrders: 0 }
      : { free: row.freeBalance, lockOut: row.lockOutBalance, lockIn: row.lockInBalance, lockOrders: row.lockOrders }
  }
  /** Replaces the tariff rules (set_tariffs) and checks they were taken. */
  const setTariffs = async (rules: ReadonlyArray<Record<string, unknown>>) => {
    const reply = await priv("POST", "set_tariffs", rules)
    assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
  }
  /** Every item of the private events feed so far, paged from the start. */
  const allEvents = async (): Promise<Array<EventItem>> => {
    const items: Array<EventItem> = []
    let cursor = "0"
    for (;;) {
      const reply = await priv("GET", `events?cursor=${cursor}&limit=1000`)
      assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
      const page = reply.body.result as Array<EventItem>
      items.push(...page)
      if (page.length === 0 || reply.body.cursor === cursor) return items
      cursor = reply.body.cursor!
    }
  }
  /** The operator audit (CONTRACT C6): every currency sums to "0" and no user bucket is negative. */
  const assertLedgerSound = async (where = "ledger") => {
    const reply = await priv("GET", "ledger_audit")
    assert.strictEqual(reply.status, 200, `${where}: ${JSON.stringify(reply.body)}`)
    assertAuditSound(reply.body.result, where)
  }
  return {
    call,
    priv,
    createWallet,
    createSession,
    walletWithSession,
    fund,
    balance,
    assertLedgerSound,
    newClientId,
    party,
    bucketsOf,
    setTariffs,
    allEvents,
    transfer,
    confirmTransfer,
    cancelTx
  }
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
