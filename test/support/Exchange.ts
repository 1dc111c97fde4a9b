/**
 * Exchange helpers for the integration tests: funded wallets with sessions, orders, the book view,
 * free / lock_orders balances, OrderOut assertions, and a cleanup that cancels every open order the
 * test's wallets left, so that no public book carries over from one test to the next.
 */
import { assert } from "@effect/vitest"
import type { Reply, TestClient } from "./Client.ts"

export interface Party {
  readonly id: string
  readonly sid: string
}

export const assertRejected = (reply: Reply, status: number, code: number, label = "") => {
  assert.strictEqual(reply.status, status, `${label} ${JSON.stringify(reply.body)}`)
  assert.isNull(reply.body.result, label)
  assert.strictEqual(reply.body.error?.code, code, `${label} ${JSON.stringify(reply.body)}`)
}

/** Asserts the listed fields of a result (an OrderOut, a transaction). */
export const assertOrder = (order: any, expected: Record<string, unknown>, label = "") => {
  for (const [key, value] of Object.entries(expected))
    assert.strictEqual(order[key], value, `${label} ${key}: ${JSON.stringify(order)}`)
}
export const ACTIVE = { state: "Active", stateCode: 1 } as const
export const COMPLETED = { state: "Completed", stateCode: 198, locked: "0" } as const
export const CANCELED = { state: "Canceled", stateCode: 199, locked: "0" } as const

/** The levels of a book side as [price, amount, total] triples. */
export const levels = (side: ReadonlyArray<{ price: string; amount: string; total: string }>) =>
  side.map((l) => [l.price, l.amount, l.total])

/** `client` is read on each call (it exists only once the service runs); client ids start at `firstClientId`. */
export const makeExchange = (client: () => TestClient, firstClientId: number) => {
  let parties: Array<Party> = []
  let nextClient = firstClientId
  let nonce = 1

  const party = async (funds: Record<string, string> = {}): Promise<Party> => {
    const wallet = await client().createWallet(String(nextClient++))
    const who = { id: wallet.id, sid: await client().createSession(wallet.id) }
    for (const [currency, amount] of Object.entries(funds)) await client().fund(wallet.id, currency, amount)
    parties.push(who)
    return who
  }
  const nextNonce = () => nonce++
  const createOrder = (who: Party, body: Record<string, unknown>) =>
    client().call("POST", "/core/v1/market/create_order", { sid: who.sid, body: { clientNonce: nonce++, ...body } })
  /** Places an order that must be accepted. */
  const place = async (
    who: Party,
    from: string,
    to: string,
    fromAmount: string,
    toAmount: string | null,
    extra: Record<string, unknown> = {}
  ) => {
    const reply = await createOrder(who, {
      fromCurrency: from,
      toCurrency: to,
      fromAmount,
      ...(toAmount === null ? {} : { toAmount }),
      ...extra
    })
    assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
    return reply.body.result
  }
  const market = (who: Party, from: string, to: string, fromAmount: string) =>
    place(who, from, to, fromAmount, null, { isLimit: false })
  const cancel = (who: Party, id: string) =>
    client().call("POST", `/core/v1/market/cancel_order?id=${id}`, { sid: who.sid })
  const get = async (who: Party, path: string) => {
    const reply = await client().call("GET", path, { sid: who.sid })
    assert.strictEqual(reply.status, 200, `${path} ${JSON.stringify(reply.body)}`)
    return reply.body.result
  }
  const orders = (who: Party, query = "") => get(who, `/core/v1/market/get_orders${query === "" ? "" : "?" + query}`)
  const book = (who: Party, from: string, to: string, roomKey = "0") =>
    get(who, `/core/v1/market/get_trade_info?currency_from=${from}&currency_to=${to}&room_key=${roomKey}`)

  /** free and lock_orders of one currency (JSON numbers, as get_balance answers). */
  const bal = async (who: Party, currency: string) => {
    const row = await client().balance(who.sid, currency)
    return row === undefined ? { free: 0, orders: 0 } : { free: row.freeBalance, orders: row.lockOrders }
  }
  const assertBal = async (who: Party, currency: string, free: number, orders: number, label = "") =>
    assert.deepStrictEqual(await bal(who, currency), { free, orders }, `${label} ${currency}`)

  /** Cancels every open order of the wallets made since the last cleanup. */
  const cleanup = async () => {
    for (const who of parties) {
      for (const order of await orders(who, "ord_states=Active&limit=100")) {
        const reply = await cancel(who, order.id)
        assert.strictEqual(reply.status, 200, `cleanup ${JSON.stringify(reply.body)}`)
      }
    }
    parties = []
  }

  return { party, nextNonce, createOrder, place, market, cancel, get, orders, book, bal, assertBal, cleanup }
}
