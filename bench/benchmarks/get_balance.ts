/**
 * Measures a session's `GET /core/v1/wallet/get_balance` (cookie `sid`: session lookup, then the
 * wallet's sub-balances) against the bare node:http anchor, in req/s and server CPU µs/request.
 * The wallet is funded in several currencies first, so every answer carries several balances.
 */
import { getBenchmark } from "../support/HttpGet.ts"

const funding: ReadonlyArray<readonly [currency: string, amount: string]> = [
  ["USDT", "1000.5"],
  ["BTC", "0.75"],
  ["ETH", "12.125"],
  ["EUR", "5000.25"]
]

export const getBalance = getBenchmark({
  name: "get_balance",
  summary: "session GET /core/v1/wallet/get_balance (4 funded currencies) vs a bare node:http server",
  targetRatio: 0.3,
  route: async (_service, client) => {
    const wallet = await client.createWallet("900001", { name: "Bench" })
    for (const [currency, amount] of funding) await client.fund(wallet.id, currency, amount)
    const sid = await client.createSession(wallet.id)
    return { path: "/core/v1/wallet/get_balance", headers: { cookie: `sid=${sid}` } }
  }
})
