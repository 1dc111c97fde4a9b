/**
 * What the ledger-feed test files (ledger-feed-followers, ledger-feed-small-rules) share: new
 * wallets with sessions, the journal's row, a page of list_last_updated_txs and transact_get.
 */
import { assert } from "@effect/vitest"
import type { TestClient } from "./Client.ts"

/** New wallets with a session each, on the file's client. */
export const feedWallets = (client: TestClient) => {
  let unique = 0
  return () => client.walletWithSession(String(990_000 + unique++))
}
export type Wallet = Awaited<ReturnType<ReturnType<typeof feedWallets>>>

export interface Row {
  readonly id: string
  readonly idUpdate: string
  readonly txState: number
  readonly walletFrom: string
  readonly walletTo: string
}

export const journalPage = async (on: TestClient, since: string, limit: number) => {
  const reply = await on.priv("POST", "list_last_updated_txs", { since, limit })
  assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
  assert.isString(reply.body.cursor)
  assert.match(reply.body.cursor!, /^[0-9]+$/)
  return { rows: reply.body.result as Array<Row>, cursor: reply.body.cursor! }
}

export const transactGet = async (on: TestClient, id: string): Promise<Row | null> => {
  const reply = await on.priv("GET", `transact_get?timetick=${id}`)
  assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
  return reply.body.result
}
