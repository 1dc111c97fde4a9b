/**
 * What every integration test file shares: one service per file (started before its tests, the
 * ledger audit after each test, stopped after all), the rejection assertion, and the wire constants
 * of schema/ (flags, transaction types and states, code states, error codes) so no file copies them.
 */
import { afterAll, afterEach, assert, beforeAll } from "@effect/vitest"
import { errorCodes, type ErrorTag } from "../../schema/Errors.ts"
import { makeClient, type Reply, type TestClient } from "./Client.ts"
import { type RunningService, startService, type StartOptions } from "./Service.ts"

export { CodeStateCode, CodeType } from "../../schema/Code.ts"
export { TxState, TxType } from "../../schema/Transfer.ts"
export { WalletFlag } from "../../schema/Wallet.ts"

/** Each error's wire code by its name in schema/Errors.ts (`errorCode.BalanceNotEnough` is 10002). */
export const errorCode = Object.fromEntries(Object.entries(errorCodes).map(([tag, [code]]) => [tag, code])) as {
  readonly [K in ErrorTag]: number
}

export interface FileService {
  /** The running service (after the file's beforeAll). */
  readonly service: () => RunningService
  /** Its client, usable from the start (calls go to the service once it runs). */
  readonly client: TestClient
}

/**
 * Starts one service for this test file. `setup` runs once it answers (tariffs, rates); after each
 * test the ledger audit must be sound (`audit: false` only for files that plant unsound rows).
 */
export const serviceForFile = (
  options: StartOptions & {
    readonly setup?: (client: TestClient) => Promise<void>
    readonly audit?: boolean
    /** false: no service for this run (a file whose every test needs a real server, without one). */
    readonly enabled?: boolean
  } = {}
): FileService => {
  let running: RunningService | undefined
  const service = () => {
    if (running === undefined) throw new Error("the file's service has not started")
    return running
  }
  const client = makeClient(service)
  const enabled = options.enabled ?? true
  beforeAll(async () => {
    if (!enabled) return
    running = await startService(options)
    await options.setup?.(client)
  }, 120_000)
  if (enabled && options.audit !== false) afterEach(() => client.assertLedgerSound())
  afterAll(async () => {
    await running?.stop()
  })
  return { service, client }
}

/**
 * A rejection: the HTTP status, the error code in the envelope (null result), and when given the
 * field the message names first (`amount: …`).
 */
export const assertRejected = (reply: Reply, status: number, code: number, label = "", field?: string): void => {
  assert.strictEqual(reply.status, status, `${label} ${JSON.stringify(reply.body)}`)
  assert.isNull(reply.body.result, label)
  assert.strictEqual(reply.body.error?.code, code, `${label} ${JSON.stringify(reply.body)}`)
  if (field !== undefined)
    assert.isTrue(
      reply.body.error!.message.startsWith(`${field}:`),
      `${label}: names ${field}: ${reply.body.error!.message}`
    )
}

/** Expected figures are written as sums; the service answers the exact decimal as a JSON number. */
export const exact = (n: number, decimals = 6): number => Math.round(n * 10 ** decimals) / 10 ** decimals

/** A query string of the defined entries. */
export const qs = (query: Record<string, string | number | undefined>): string =>
  new URLSearchParams(
    Object.entries(query)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]): [string, string] => [k, String(v)])
  ).toString()
