/**
 * What the exchange order test files (exchange-orders-and-fees, exchange-rejections-and-reads)
 * share: the file's service (no after-each audit of serviceForFile: each test first cancels what it
 * left in the book, then the ledger audit runs), the exchange helpers bound to its client, and the
 * error codes the files expect.
 */
import { afterEach } from "@effect/vitest"
import { makeExchange } from "./Exchange.ts"
import { serviceForFile } from "./Fixtures.ts"

export const E = {
  InvalidRequest: 10001,
  BalanceNotEnough: 10002,
  InvalidAmount: 10014,
  UnknownCurrency: 10020,
  TooManyDecimals: 10021,
  CurrencyNotEnabled: 10022,
  WalletBlocked: 10031,
  OrderWouldMatch: 10090,
  OrderNotFound: 10091,
  OrderNotActive: 10092,
  MaxActiveOrders: 10094,
  NonceExists: 10130
} as const

/** Starts the file's service; answers its client and the exchange helpers bound to it. */
export const exchangeOrdersFile = () => {
  const { client } = serviceForFile({ audit: false })
  const exchange = makeExchange(() => client, 810_000)
  afterEach(async () => {
    await exchange.cleanup()
    await client.assertLedgerSound()
  })
  return { client, ...exchange }
}
