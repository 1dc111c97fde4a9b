/**
 * The shop behind the offers tests (payments-offers, payments-preselection): a merchant in wallet group 3
 * with its app and fee wallet, Payment tariffs in USDT (for any group, for group 3, for another group),
 * BTC and EUR, terminals (internal, BTC, ETH, a EUR card, USDC, and three that are not offered: Hidden,
 * Withdraw-only, a bank wire) and C14 rates USDT→BTC and USDT→EUR; plus the independent price and fee
 * rules the quotes are checked against.
 */
import { assert } from "@effect/vitest"
import { BigNumber } from "bignumber.js"
import type { Party, TestClient } from "./Client.ts"
import { merchantOf } from "./Merchant.ts"

export const SPREAD = "1" // PAYMENT_FX_SPREAD_PCT default
export const USDT_BTC = "0.00001536"
export const USDT_EUR = "0.92"

/** The independent price rule: amount × rate × (1 + spread/100), rounded up to the pay decimals. */
export const expectedPay = (amount: string, rate: string, spread: string, decimals: number) =>
  new BigNumber(amount)
    .times(rate)
    .times(new BigNumber(100).plus(spread).div(100))
    .decimalPlaces(decimals, BigNumber.ROUND_CEIL)
/** fee = fixed + pay × percent / 100, rounded up. */
export const expectedFee = (pay: BigNumber, fixed: string, percent: string, decimals: number) =>
  new BigNumber(fixed).plus(pay.times(percent).div(100)).decimalPlaces(decimals, BigNumber.ROUND_CEIL)

export const offersShop = (client: TestClient) => {
  const shop = merchantOf(client)

  let merchant: Party
  let fees: Party
  let app: { appId: string; pkey: string }
  const t: Record<string, string> = {}
  let next = 0

  const addNetwork = async (body: Record<string, unknown>) => {
    const reply = await client.priv("POST", "add_network", {
      addressContract: null,
      defaultHotAddress: null,
      defaultSystemWalletId: null,
      walletGroups: [],
      ...body
    })
    assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
    return String(reply.body.result.id)
  }

  const setRates = async (rates: Array<{ from: string; to: string; rate: string }>) => {
    const reply = await client.priv("POST", "set_rates", rates)
    assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
  }

  const setup = async () => {
    if (merchant !== undefined) return
    ;({ merchant, fees, app } = await shop.open("Offers shop", { extra: { walletGroup: 3 } }))
    await client.setTariffs([
      // Any group: 0.5 fixed, 1–500 USDT.
      {
        txClass: "Payment",
        currency: "USDT",
        feeFixed: "0.5",
        feePercent: "0",
        minAmount: "1",
        maxAmount: "500",
        profitWalletId: fees.id
      },
      // The merchant's group 3 (more specific): 0.2 + 1 %, 5–1000 USDT.
      {
        txClass: "Payment",
        currency: "USDT",
        walletGroup: 3,
        feeFixed: "0.2",
        feePercent: "1",
        minAmount: "5",
        maxAmount: "1000",
        profitWalletId: fees.id
      },
      // Another group: must not count for this merchant (its bounds would widen the range).
      {
        txClass: "Payment",
        currency: "USDT",
        walletGroup: 7,
        feeFixed: "9",
        feePercent: "0",
        minAmount: "0.01",
        maxAmount: "100000"
      },
      // Another class: ignored.
      { txClass: "Withdraw", currency: "BTC", feeFixed: "0.1", feePercent: "0", minAmount: "0.5" },
      { txClass: "Payment", currency: "BTC", feeFixed: "0.00001", feePercent: "0.5", profitWalletId: fees.id },
      {
        txClass: "Payment",
        currency: "EUR",
        feeFixed: "0.3",
        feePercent: "2.5",
        minAmount: "1",
        maxAmount: "10000",
        profitWalletId: fees.id
      }
    ])
    const networks = await client.priv("GET", "tokens_networks")
    t.internal = String((networks.body.result as Array<any>).find((x) => x.typeNetwork === 240).id)
    t.btc = await addNetwork({
      typeNetwork: 1,
      typeContract: 0,
      currencyId: "BTC",
      decimals: 8,
      flags: 3,
      displayName: "Bitcoin",
      iconCode: "btc",
      priority: 30
    })
    t.eth = await addNetwork({
      typeNetwork: 2,
      typeContract: 0,
      currencyId: "ETH",
      decimals: 18,
      flags: 1,
      displayName: "Ether",
      priority: 20
    })
    t.card = await addNetwork({
      typeNetwork: 100,
      typeContract: 0,
      currencyId: "EUR",
      decimals: 2,
      flags: 1,
      displayName: "Card",
      iconCode: "card",
      priority: 10
    })
    t.usdc = await addNetwork({
      typeNetwork: 5,
      typeContract: 0,
      currencyId: "USDC",
      decimals: 6,
      flags: 1,
      displayName: "USDC on Solana",
      // A memo network pays to the terminal's hot address plus the order's memo (C15): without one it is unavailable.
      defaultHotAddress: "11111111111111111111111111111111"
    })
    // Not offered for payments: Hidden, Withdraw-only, a bank wire.
    t.hidden = await addNetwork({ typeNetwork: 3, typeContract: 0, currencyId: "USDT", decimals: 6, flags: 5 })
    t.withdrawOnly = await addNetwork({ typeNetwork: 4, typeContract: 0, currencyId: "USDT", decimals: 6, flags: 2 })
    t.wire = await addNetwork({ typeNetwork: 101, typeContract: 0, currencyId: "EUR", decimals: 2, flags: 1 })
    await setRates([
      { from: "USDT", to: "BTC", rate: USDT_BTC },
      { from: "USDT", to: "EUR", rate: USDT_EUR }
    ])
  }

  const merchantCall = (method: string, action: string, body?: unknown) => shop.call(app, method, action, body)

  const put = async (body: Record<string, unknown> = {}) => {
    await setup()
    return merchantCall("POST", "put_payment_order", {
      currency: "USDT",
      orderAmount: "10",
      externalId: `offer-${next++}`,
      ...body
    })
  }

  const newOrder = async (body: Record<string, unknown> = {}) => shop.ok(await put(body))

  const gate = shop.gate

  const offersOf = async (code: string) => {
    const reply = await gate("GET", "get_terminals", code)
    assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
    return reply.body.result as Array<any>
  }
  const byId = (offers: Array<any>, id: string) => offers.find((o) => o.id === id)

  return {
    get merchant(): Party {
      return merchant
    },
    get fees(): Party {
      return fees
    },
    get app() {
      return app
    },
    nextId: () => next++,
    t,
    addNetwork,
    setRates,
    setup,
    merchantCall,
    put,
    newOrder,
    gate,
    offersOf,
    byId,
    shop
  }
}
