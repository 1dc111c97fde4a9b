/**
 * What the exchange-invariants files (exchange-invariants-stream, exchange-invariants-races) share:
 * their service with its Exchange tariffs, and private BTC/USDT rooms of the file's client.
 */
import { assert } from "@effect/vitest"
import type { TestClient } from "./Client.ts"
import { serviceForFile } from "./Fixtures.ts"
import { within } from "./ExchangeReads.ts"

/**
 * Starts the exchange-invariants file's service (no ledger audit after each test, as before the split:
 * the stream checks it itself) with the Exchange tariffs of ExchangeStreamModel.ts.
 */
export const exchangeInvariantsFile = () =>
  serviceForFile({
    audit: false,
    setup: async (client) => {
      const reply = await client.priv("POST", "set_tariffs", [
        { txClass: "Exchange", currency: "USDT", feeFixed: "0.01", feePercent: "0.1" },
        { txClass: "Exchange", currency: "BTC", feeFixed: "0", feePercent: "0.25" }
      ])
      assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
    }
  })

// ---------------------------------------------------------------------------------------------
// The stream

export interface Wallet {
  readonly id: string
  readonly sid: string
}

/**
 * Private BTC/USDT rooms of the file's client: a new wallet with a session, a room of an owner that
 * its members join by the share code, and create_order with a fresh client nonce (bounded by `within`).
 */
export const roomHelpers = (client: TestClient) => {
  let extraWallets = 0
  const wallet = (): Promise<Wallet> => client.walletWithSession(String(649_000 + extraWallets++))
  let extraNonce = 1_000_000
  const privateRoom = async (owner: Wallet, members: ReadonlyArray<Wallet>): Promise<string> => {
    const created = await client.call("POST", "/core/v1/market/create_room", {
      sid: owner.sid,
      body: { currency1: "BTC", currency2: "USDT" }
    })
    assert.strictEqual(created.status, 200, JSON.stringify(created.body))
    for (const member of members) {
      const joined = await client.call(
        "POST",
        `/core/v1/apply_code?code=${created.body.result.shareCode}&client_nonce=${extraNonce++}`,
        { sid: member.sid }
      )
      assert.strictEqual(joined.status, 200, JSON.stringify(joined.body))
    }
    return created.body.result.roomKey
  }
  const create = (w: Wallet, body: Record<string, unknown>, what = "create_order") =>
    within(
      client.call("POST", "/core/v1/market/create_order", { sid: w.sid, body: { clientNonce: extraNonce++, ...body } }),
      what
    )
  return { wallet, privateRoom, create }
}
