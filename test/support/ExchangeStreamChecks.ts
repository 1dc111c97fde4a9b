/**
 * The checks of the exchange-invariants stream (test/support/ExchangeStream.ts) against its order
 * model (ExchangeStreamModel.ts): after every step the book, the ledger, every wallet's locks,
 * Active orders and balances; every so often and at the end everything, fills and fees included.
 */
import { assert } from "@effect/vitest"
import type { TestClient } from "./Client.ts"
import type { Wallet } from "./ExchangeInvariants.ts"
import {
  assertFillsAddUp,
  assertNotCrossed,
  bookFromOrders,
  currencies,
  decimals,
  exchangeReads,
  levelText,
  toMinor
} from "./ExchangeReads.ts"
import { assertOrderMatches, type Model } from "./ExchangeStreamModel.ts"

/** The checks of one stream: its wallets (funded with `fundedEach`), its room and its model. */
export const streamChecks = (
  client: TestClient,
  wallets: ReadonlyArray<Wallet>,
  roomKey: string,
  model: Model,
  fundedEach: { readonly BTC: bigint; readonly USDT: bigint }
) => {
  const { readBook, readOrders, readFills, readBalances } = exchangeReads(() => client)

  const checkEveryStep = async (where: string) => {
    // (a) the book: never crossed, and exactly the model's levels.
    const book = await readBook(wallets[0].sid, roomKey)
    assertNotCrossed(book, where)
    assert.strictEqual(levelText(book.asks), levelText(model.levels("sell").slice(0, 100)), `${where}: asks`)
    assert.strictEqual(levelText(book.bids), levelText(model.levels("buy").slice(0, 100)), `${where}: bids`)
    // (b) the ledger.
    await client.assertLedgerSound(where)
    const totals = { BTC: 0n, USDT: 0n }
    for (const [i, w] of wallets.entries()) {
      const [balances, active] = await Promise.all([readBalances(w.sid), readOrders(w.sid, "&ord_states=Active")])
      // (c) lockOrders = Σ locked of the wallet's Active orders, per currency; the Active set is the model's.
      for (const c of currencies) {
        const locked = active
          .filter((o) => o.fromCurrency === c)
          .reduce((s, o) => s + toMinor(o.locked, decimals[c]), 0n)
        assert.strictEqual(
          balances[c].lock,
          locked,
          `${where}: wallet ${i} ${c} lockOrders = Σ locked of Active orders`
        )
        totals[c] += balances[c].free + balances[c].lock
      }
      for (const o of active) assert.strictEqual(o.state, "Active", `${where}: ord_states=Active filter`)
      assert.deepStrictEqual(
        active.map((o) => o.id).sort(),
        model
          .activeOf(i)
          .map((o) => o.id)
          .sort(),
        `${where}: wallet ${i} Active orders`
      )
      // (d) balances are the model's.
      assert.deepStrictEqual(balances, model.balances[i], `${where}: wallet ${i} balances`)
    }
    // (d) conservation in aggregate: what users hold plus the fees collected is what was funded.
    for (const c of currencies)
      assert.strictEqual(totals[c] + model.fees[c], model.funded[c], `${where}: Σ ${c} users + fees = funded`)
  }

  const checkEverything = async (where: string) => {
    const activeWithFills: Array<any> = []
    const fees = { BTC: 0n, USDT: 0n }
    let takerFills = 0,
      makerFills = 0,
      takerAmount = 0n,
      makerAmount = 0n
    for (const [i, w] of wallets.entries()) {
      const orders = await readOrders(w.sid)
      assert.deepStrictEqual(
        orders.map((o) => o.id).sort(),
        [...model.orders.values()]
          .filter((o) => o.wallet === i)
          .map((o) => o.id)
          .sort(),
        `${where}: wallet ${i} orders (a refusal other than 10090 creates none)`
      )
      for (const o of orders) assertOrderMatches(o, model.orders.get(o.id)!, where)
      // Per wallet, from the service's own figures: free + lockOrders = funded − Σ given + Σ received.
      const balances = await readBalances(w.sid)
      for (const c of currencies) {
        const given = orders.filter((o) => o.fromCurrency === c).reduce((s, o) => s + toMinor(o.given, decimals[c]), 0n)
        const received = orders
          .filter((o) => o.toCurrency === c)
          .reduce((s, o) => s + toMinor(o.received, decimals[c]), 0n)
        fees[c] += orders.filter((o) => o.toCurrency === c).reduce((s, o) => s + toMinor(o.fee, decimals[c]), 0n)
        assert.strictEqual(
          balances[c].free + balances[c].lock,
          fundedEach[c] - given + received,
          `${where}: wallet ${i} ${c} conservation`
        )
      }
      for (const info of await readFills(
        w.sid,
        orders.map((o) => o.id)
      )) {
        assertFillsAddUp(info, where)
        for (const f of info.fills) {
          if (f.role === "taker") (takerFills++, (takerAmount += toMinor(f.amount, 8)))
          else (makerFills++, (makerAmount += toMinor(f.amount, 8)))
        }
        if (info.state === "Active") activeWithFills.push(info)
      }
    }
    assert.strictEqual(takerFills, makerFills, `${where}: every trade once as taker, once as maker`)
    assert.strictEqual(takerAmount, makerAmount, `${where}: Σ taker fills = Σ maker fills`)
    assert.deepStrictEqual(fees, model.fees, `${where}: Σ order fees = the model's`)
    const derived = bookFromOrders(activeWithFills)
    const book = await readBook(wallets[0].sid, roomKey)
    assert.strictEqual(levelText(book.asks), levelText(derived.asks.slice(0, 100)), `${where}: asks = Active sells`)
    assert.strictEqual(levelText(book.bids), levelText(derived.bids.slice(0, 100)), `${where}: bids = Active buys`)
  }

  return { checkEveryStep, checkEverything }
}
