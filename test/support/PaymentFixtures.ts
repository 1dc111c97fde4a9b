/**
 * Fixtures of the payment engine tests: currencies, rates, terminals and their offers (quoted with the
 * engine's quotePayAmount), the parties, and the engine's order record seen in the model's shape.
 */
import * as E from "../../actors/payment/Engine.ts"
import { FEES, type Method, type ModelOffer, type ModelOrder, type StateName } from "./PaymentModel.ts"

/** C16's stateCode of each state name, as the contract's table lists them. */
export const codeOfState: Record<StateName, number> = {
  Created: 1,
  Started: 2,
  Processing: 3,
  Paid: 8,
  PartiallyRefunded: 9,
  Refunded: 10,
  Expired: 16,
  Canceled: 17,
  Failed: 18
}

export const decimals: Record<string, number> = { EUR: 2, USD: 2, USDT: 6, BTC: 8 }
export const rates: Record<string, string> = {
  "EUR>USD": "1.0834",
  "USD>EUR": "0.923",
  "EUR>USDT": "1.0851",
  "USD>USDT": "1.0003",
  "EUR>BTC": "0.0000113",
  "USD>BTC": "0.0000104",
  "USDT>EUR": "0.9215",
  "USDT>USD": "0.9997",
  "USDT>BTC": "0.0000105"
}
export const terminals: ReadonlyArray<{ id: bigint; method: Method; cur: string | null }> = [
  { id: 1n, method: "InternalPayment", cur: null }, // the built-in terminal: the order's currency
  { id: 2n, method: "CardAcquiring", cur: "EUR" },
  { id: 3n, method: "CardAcquiring", cur: "USD" },
  { id: 4n, method: "CryptoTransfer", cur: "USDT" },
  { id: 5n, method: "CryptoTransfer", cur: "BTC" }
]
export const merchants = [100n, 101n]
export const payers = [200n, 201n, 202n, 203n]
export const ALT_PROFIT = 300n

export const offerFor = (
  t: (typeof terminals)[number],
  currency: string,
  orderAmount: bigint,
  fee: bigint,
  available: boolean,
  profit: bigint = FEES
): E.TerminalOffer => {
  const payCurrency = t.cur ?? currency
  const payAmount =
    payCurrency === currency
      ? orderAmount
      : E.quotePayAmount(
          orderAmount,
          decimals[currency],
          rates[`${currency}>${payCurrency}`],
          "1",
          decimals[payCurrency]
        )
  return {
    terminal: {
      terminalId: t.id,
      method: t.method,
      rate: payCurrency === currency ? "1" : rates[`${currency}>${payCurrency}`],
      spreadPct: payCurrency === currency ? "0" : "1"
    },
    payCurrency,
    payAmount,
    fee,
    profitWallet: profit,
    available
  }
}
export const toModelOffer = (o: E.TerminalOffer): ModelOffer => ({
  id: o.terminal.terminalId,
  method: o.terminal.method,
  payCur: o.payCurrency,
  payAmt: o.payAmount,
  fee: o.fee,
  profit: o.profitWallet,
  available: o.available
})

/** The engine's record in the model's shape. */
export const view = (s: E.OrderState) => ({
  kind: s.kind,
  st: E.stateName(s.stateCode),
  txState: s.txState,
  cur: s.currency,
  amt: s.orderAmount,
  payCur: s.payCurrency,
  payAmt: s.payAmount,
  fee: s.fee,
  profit: s.profitWallet,
  merchant: s.merchantWallet,
  term: s.terminal === null ? null : { id: s.terminal.terminalId, method: s.terminal.method },
  exp: s.expiresAt,
  paid: s.paidAmount,
  refunded: s.refundedAmount,
  pending: s.pendingRefunds,
  count: s.refundCount,
  payer: s.payerWalletId,
  card: s.cardSessionPending,
  seen: s.incomeSeen,
  fin: s.incomeFinal
})
export const modelView = (o: ModelOrder) => {
  const code = codeOfState[o.st]
  return { ...o, term: o.term === null ? null : { ...o.term }, txState: code <= 3 ? 1 : code <= 10 ? 8 : 16 }
}
