/**
 * The seeded stream of the exchange-invariants test (test/integration/exchange-invariants-stream):
 * the wallets, the regime of a stream, and the stream itself against the order model of
 * ExchangeStreamModel.ts, with every check of ExchangeStreamChecks.ts after every step.
 */
import { assert } from "@effect/vitest"
import type { TestClient } from "./Client.ts"
import { roomHelpers, type Wallet } from "./ExchangeInvariants.ts"
import { ceilDiv, cost, errorCode, exchangeReads, SAT, shownPrice, toMinor, toText, within } from "./ExchangeReads.ts"
import { streamChecks } from "./ExchangeStreamChecks.ts"
import {
  assertOrderMatches,
  fromOf,
  makeModel,
  type Model,
  type ModelOrder,
  type OrderInput,
  type Side,
  walletCount
} from "./ExchangeStreamModel.ts"
import { seeded } from "../unit/Random.ts"

const fullCheckEvery = 10
// ---------------------------------------------------------------------------------------------
// The stream

export interface Regime {
  readonly name: string
  readonly seed: number
  readonly steps: number
  /** Mid price and price grid, in ticks (10^-6 USDT per BTC). */
  readonly mid: bigint
  readonly grid: bigint
  readonly clientIdBase: number
  /** Streams other than the public room's run in a private room of their own wallets. */
  readonly privateRoom: boolean
}

/** The stream runner of the file's client. */
export const streamRunner = (client: TestClient) => {
  const { readOrders, readFills } = exchangeReads(() => client)
  const { privateRoom } = roomHelpers(client)

  const makeWallets = async (base: number, btc: bigint, usdt: bigint, model?: Model): Promise<Array<Wallet>> => {
    const wallets: Array<Wallet> = []
    for (let i = 0; i < walletCount; i++) {
      const created = await client.walletWithSession(String(base + i))
      wallets.push(created)
      await client.fund(created.id, "BTC", toText(btc, 8))
      await client.fund(created.id, "USDT", toText(usdt, 6))
      if (model !== undefined) {
        model.balances[i].BTC.free += btc
        model.balances[i].USDT.free += usdt
        model.funded.BTC += btc
        model.funded.USDT += usdt
      }
    }
    return wallets
  }

  const runStream = async (regime: Regime) => {
    const { seed, steps } = regime
    const MID = regime.mid,
      GRID = regime.grid
    const random = seeded(seed)
    const model = makeModel()
    const fundedEach = { BTC: 300_000_000n, USDT: 150_000_000_000n }
    const wallets = await makeWallets(regime.clientIdBase + (seed % 1000) * 10, fundedEach.BTC, fundedEach.USDT, model)
    const roomKey = regime.privateRoom ? await privateRoom(wallets[0], wallets.slice(1)) : "0"
    let nonce = 1
    const pick = <A>(items: ReadonlyArray<A>): A => items[random.int(0, items.length - 1)]
    const seen = new Map<string, number>()
    const saw = (what: string) => seen.set(what, (seen.get(what) ?? 0) + 1)

    /** A limit / post-only order near `ticks`: whole grid multiples, or odd satoshis at an odd price. */
    const limitInput = (wallet: number, side: Side, kind: "limit" | "post", targetTicks: bigint): OrderInput => {
      const exact = random.next() < 0.65
      const ticks = exact ? targetTicks : targetTicks + BigInt(random.int(0, Number(GRID) - 1))
      let lots = exact ? BigInt(random.int(1, 2000)) * 10_000n : BigInt(random.int(1, 20_000_000))
      // Mostly fit the free balance; sometimes not (then 10002 is the expected answer).
      const free = model.balances[wallet][fromOf(side)].free
      const need = (l: bigint) => (side === "sell" ? l : ceilDiv(ticks * l, SAT))
      if (need(lots) > free && random.next() < 0.85) {
        lots = side === "sell" ? free : (free * SAT) / ticks
        if (exact) lots = (lots / 10_000n) * 10_000n
      }
      if (lots <= 0n) lots = 10_000n
      if (side === "sell") {
        const to = cost(ticks, lots) > 0n ? cost(ticks, lots) : 1n
        return {
          wallet,
          side,
          kind,
          fromAmount: lots,
          toAmount: to,
          body: {
            fromCurrency: "BTC",
            toCurrency: "USDT",
            fromAmount: toText(lots, 8),
            toAmount: toText(to, 6),
            postOnly: kind === "post"
          }
        }
      }
      const from = ceilDiv(ticks * lots, SAT)
      return {
        wallet,
        side,
        kind,
        fromAmount: from,
        toAmount: lots,
        body: {
          fromCurrency: "USDT",
          toCurrency: "BTC",
          fromAmount: toText(from, 6),
          toAmount: toText(lots, 8),
          postOnly: kind === "post"
        }
      }
    }

    const marketInput = (wallet: number, side: Side): OrderInput => {
      const free = model.balances[wallet][fromOf(side)].free
      if (side === "sell") {
        let lots = BigInt(random.int(1, 30_000_000))
        if (lots > free && free > 0n) lots = free
        return {
          wallet,
          side,
          kind: "market",
          fromAmount: lots,
          toAmount: null,
          body: { fromCurrency: "BTC", toCurrency: "USDT", fromAmount: toText(lots, 8), isLimit: false }
        }
      }
      let budget = cost(MID, BigInt(random.int(1, 30_000_000))) + 1n
      if (budget > free && free > 0n) budget = free
      const body: Record<string, unknown> = {
        fromCurrency: "USDT",
        toCurrency: "BTC",
        fromAmount: toText(budget, 6),
        isLimit: false
      }
      // A toAmount does not bound a market buy (C14: it gives its fromAmount at most, at the makers' prices).
      const toAmount = random.next() < 0.4 ? BigInt(random.int(1, 10_000_000)) : null
      if (toAmount !== null) body.toAmount = toText(toAmount, 8)
      return { wallet, side, kind: "market", fromAmount: budget, toAmount, body }
    }

    /**
     * The same price written the other way round (C14 "Same price, same trade"): an order whose exact
     * ratio equals a resting opposite order's, in whole multiples of that ratio — it must trade.
     * Any wallet may write it, its own included (then self-trade prevention cancels the resting one).
     */
    const mirrorInput = (wallet: number): OrderInput | undefined => {
      const resting = [...model.orders.values()].filter((o) => o.state === "Active" && o.ratio !== null)
      if (resting.length === 0) return undefined
      const target = pick(resting)
      const { n, d } = target.ratio!
      const k = BigInt(random.int(1, 3))
      if (target.side === "buy") {
        const body = {
          fromCurrency: "BTC",
          toCurrency: "USDT",
          fromAmount: toText(d * k, 8),
          toAmount: toText(n * k, 6)
        }
        return { wallet, side: "sell", kind: "limit", fromAmount: d * k, toAmount: n * k, body }
      }
      const body = { fromCurrency: "USDT", toCurrency: "BTC", fromAmount: toText(n * k, 6), toAmount: toText(d * k, 8) }
      return { wallet, side: "buy", kind: "limit", fromAmount: n * k, toAmount: d * k, body }
    }

    const placeOrder = async (input: OrderInput, where: string, mirror = false) => {
      const expected = model.plan(input)
      const reply = await within(
        client.call("POST", "/core/v1/market/create_order", {
          sid: wallets[input.wallet].sid,
          body: { ...input.body, roomKey, clientNonce: nonce++ }
        }),
        where
      )
      if (expected.error === 10002 || expected.error === 10094) {
        assert.strictEqual(errorCode(reply), expected.error, `${where}: ${JSON.stringify(reply.body)}`)
        saw(`refused ${expected.error}`)
        return
      }
      if (expected.error === 10090) {
        assert.strictEqual(errorCode(reply), 10090, `${where}: ${JSON.stringify(reply.body)}`)
        // The refused post-only order exists, Canceled, with nothing given and nothing locked.
        const [newest] = await readOrders(wallets[input.wallet].sid).then((all) => all.slice(0, 1))
        assert.isFalse(model.orders.has(newest.id), `${where}: a 10090 refusal leaves its own Canceled order`)
        assertOrderMatches(newest, model.apply(newest.id, input, expected), where)
        saw("post-only refused 10090")
        return
      }
      assert.strictEqual(reply.status, 200, `${where}: ${JSON.stringify(reply.body)}`)
      const order = model.apply(reply.body.result.id, input, expected)
      assertOrderMatches(reply.body.result, order, where)
      // The taker's fills: best price first, at the makers' exact ratios, each rounded in the maker's favour.
      const fills = expected.result!.fills
      const [info] = await readFills(wallets[input.wallet].sid, [order.id])
      const takerFills = info.fills
        .filter((f: any) => f.role === "taker")
        .map((f: any) => `${f.price}×${toMinor(f.amount, 8)}=${toMinor(f.total, 6)}`)
      const wantFills = fills.map((f) => `${shownPrice(f.price.n, f.price.d)}×${f.lots}=${f.quote}`)
      assert.deepStrictEqual(takerFills, wantFills, `${where}: taker fills`)
      assert.strictEqual(info.fills.length, fills.length, `${where}: a new order has no maker fills yet`)
      saw(`${input.side} ${input.kind} ${order.state}${fills.length > 0 ? " with fills" : ""}`)
      for (const [, , reason] of expected.result!.removed)
        saw(reason === "selfTrade" ? "self-trade cancelled a maker" : "dust maker left")
      if (expected.result!.takerDust) saw("dust taker released")
      if (mirror && fills.length > 0) saw("a mirrored ratio traded")
    }

    const cancelOrder = async (wallet: number, target: string, expected: ModelOrder | 10091 | 10092, where: string) => {
      const reply = await within(
        client.call("POST", `/core/v1/market/cancel_order?id=${target}`, { sid: wallets[wallet].sid }),
        where
      )
      if (typeof expected === "number") {
        assert.strictEqual(errorCode(reply), expected, `${where}: ${JSON.stringify(reply.body)}`)
        saw(`cancel refused ${expected}`)
        return
      }
      assert.strictEqual(reply.status, 200, `${where}: ${JSON.stringify(reply.body)}`)
      model.cancel(expected)
      assertOrderMatches(reply.body.result, expected, where)
      saw("cancel")
    }

    const step = async (index: number) => {
      const wallet = random.int(0, walletCount - 1)
      const where = `step ${index} (seed ${seed})`
      const r = random.next()
      if (r < 0.2) {
        const open = model.activeOf(wallet)
        if (open.length > 0) {
          const target = pick(open)
          return cancelOrder(wallet, target.id, target, where)
        }
      } else if (r < 0.22) {
        const closed = [...model.orders.values()].filter((o) => o.wallet === wallet && o.state !== "Active")
        if (closed.length > 0) return cancelOrder(wallet, pick(closed).id, 10092, where)
      } else if (r < 0.23) {
        const foreign = [...model.orders.values()].filter((o) => o.wallet !== wallet && o.state === "Active")
        if (foreign.length > 0) return cancelOrder(wallet, pick(foreign).id, 10091, where)
      } else if (r < 0.27) {
        // Beyond the free balance: always 10002, nothing locked.
        const side: Side = random.next() < 0.5 ? "sell" : "buy"
        const free = model.balances[wallet][fromOf(side)].free
        const over = free + BigInt(random.int(1, 5_000_000))
        const body =
          side === "sell"
            ? {
                fromCurrency: "BTC",
                toCurrency: "USDT",
                fromAmount: toText(over, 8),
                toAmount: toText(cost(MID * 2n, over) + 1n, 6)
              }
            : {
                fromCurrency: "USDT",
                toCurrency: "BTC",
                fromAmount: toText(over, 6),
                toAmount: toText((over * SAT) / MID + 1n, 8)
              }
        return placeOrder(
          { wallet, side, kind: "limit", fromAmount: over, toAmount: null, body },
          `${where} over balance`
        )
      } else if (r < 0.33) {
        const mirror = mirrorInput(wallet)
        if (mirror !== undefined) return placeOrder(mirror, `${where} mirror`, true)
      }
      const side: Side = random.next() < 0.5 ? "sell" : "buy"
      const away = side === "sell" ? 1n : -1n
      const k = random.next()
      if (k < 0.5) {
        // Passive: on its own side of the mid (it may still meet an aggressive order resting there).
        return placeOrder(limitInput(wallet, side, "limit", MID + away * GRID * BigInt(random.int(0, 15))), where)
      }
      if (k < 0.72) {
        // Crossing: priced into the other side, so it takes liquidity before it rests (if it rests).
        return placeOrder(limitInput(wallet, side, "limit", MID - away * GRID * BigInt(random.int(0, 12))), where)
      }
      if (k < 0.87)
        return placeOrder(limitInput(wallet, side, "post", MID + away * GRID * BigInt(random.int(-4, 10))), where)
      return placeOrder(marketInput(wallet, side), where)
    }
    const { checkEveryStep, checkEverything } = streamChecks(client, wallets, roomKey, model, fundedEach)

    const started = Date.now()
    const deepest = { buy: 0, sell: 0 }
    for (let i = 0; i < steps; i++) {
      await step(i)
      await checkEveryStep(`after step ${i} (seed ${seed})`)
      deepest.buy = Math.max(deepest.buy, model.levels("buy").length)
      deepest.sell = Math.max(deepest.sell, model.levels("sell").length)
      if ((i + 1) % fullCheckEvery === 0) await checkEverything(`full check after step ${i} (seed ${seed})`)
    }
    await checkEverything(`final (seed ${seed})`)
    const summary = [...seen.entries()]
      .sort()
      .map(([k, v]) => `${k}: ${v}`)
      .join(", ")
    console.log(
      `exchange stream ${regime.name}, seed ${seed}: ${steps} steps in ${((Date.now() - started) / 1000).toFixed(1)} s; ${summary}`
    )
    // A full-length stream must have reached the interesting paths (a short EXCHANGE_STEPS run is a smoke run).
    if (steps < 150) return
    for (const path of [
      "refused 10002",
      "post-only refused 10090",
      "cancel",
      "cancel refused 10092",
      "self-trade cancelled a maker",
      "a mirrored ratio traded"
    ]) {
      assert.isTrue(seen.has(path), `stream never hit: ${path}`)
    }
    assert.isTrue(
      [...seen.keys()].some((k) => k.startsWith("sell limit Active with fills")),
      "a partially filled sell that rests"
    )
    assert.isTrue(
      [...seen.keys()].some((k) => k.startsWith("buy limit Completed with fills")),
      "a buy that completes"
    )
    assert.isTrue(
      [...seen.keys()].some((k) => k.startsWith("buy market")),
      "market buys"
    )
    assert.isTrue(
      deepest.buy > 3 && deepest.sell > 3,
      `a book with depth on both sides at some point: ${JSON.stringify(deepest)}`
    )
  }

  return runStream
}
