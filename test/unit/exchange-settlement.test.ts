/**
 * The exchange's pure money arithmetic against brute-force models (seeded property tests):
 * - Pair units: a fill's quote value rounds down; `lotsAtPrice` is the largest quantity a budget pays
 *   for; `affordableLots` never exceeds the budget and is maximal over a walk of levels.
 * - Settlement of random matches: every transaction's postings sum to zero per currency, the Broker
 *   holds nothing after a match, no order spends more than it locked, the taker gives exactly what its
 *   makers receive (before fees), and an order that ends releases all of its remaining lock.
 */
import { describe, expect, it } from "vitest"
import { affordableLots, baseMinorOf, lotsAtPrice, makePair, quoteMinorOf } from "../../actors/room/Pair.ts"
import { type BookOrder, BROKER_WALLET_ID, OrderState, settleMatch, SIDE_BUY, SIDE_SELL } from "../../actors/room/Settlement.ts"
import type { LedgerOperation } from "../../sql/Ledger.ts"
import { Trades } from "../../sql/rows/ExchangeRows.ts"
import { seeded } from "./Random.ts"

const pairs = [
  makePair("BTC", "USDT", 8, 6), // quote finer than needed: shift -8
  makePair("ETH", "BTC", 18, 8), // 18-decimal base trades in 1e-8 lots
  makePair("BTC", "EUR", 8, 2),
  makePair("USDC", "USDT", 6, 6)
]

describe("pair arithmetic", () => {
  it("lotsAtPrice is the largest quantity whose rounded-down value fits the budget", () => {
    const r = seeded(5)
    for (let i = 0; i < 5000; i++) {
      const pair = pairs[i % pairs.length]
      const ticks = BigInt(r.int(1, 10_000_000))
      const budget = BigInt(r.int(0, 1_000_000_000))
      const q = lotsAtPrice(pair, ticks, budget)
      expect(quoteMinorOf(pair, ticks, q) <= budget).toBe(true)
      expect(quoteMinorOf(pair, ticks, q + 1n) > budget).toBe(true)
    }
  })

  it("affordableLots stays within budget and is maximal over the walked levels", () => {
    const r = seeded(7)
    for (let i = 0; i < 2000; i++) {
      const pair = pairs[i % pairs.length]
      const levels = Array.from({ length: r.int(0, 6) }, (_, k) => [1000 + k * r.int(1, 50), r.int(1, 500)] as const)
      const budget = BigInt(r.int(0, 2_000_000))
      const maxTicks = r.int(0, 1) === 0 ? null : BigInt(r.int(900, 1300))
      const walk = (visit: (p: number, t: number) => boolean) => { for (const [p, t] of levels) if (!visit(p, t)) return }
      const q = affordableLots(pair, budget, null, walk, maxTicks)
      // Brute force: exact cost of buying q lots best-first (rational, no rounding).
      const cost = (lots: bigint) => {
        let left = lots, num = 0n
        for (const [p, t] of levels) {
          if (maxTicks !== null && BigInt(p) > maxTicks) break
          const take = left < BigInt(t) ? left : BigInt(t)
          num += BigInt(p) * take
          left -= take
        }
        return left > 0n ? null : num
      }
      const value = (num: bigint) => quoteMinorOf(pair, num, 1n) // p·q summed, same scale as one tick·lot
      const c = cost(q)
      expect(c).not.toBeNull()
      expect(value(c!) <= budget).toBe(true)
      const next = cost(q + 1n)
      // One more lot either does not exist within the limit or exceeds the budget (up to per-level rounding).
      if (next !== null) expect(value(next) + BigInt(levels.length) > budget).toBe(true)
    }
  })
})

const sumsByTxAndCurrency = (op: LedgerOperation) => {
  for (const part of [op, ...(op.extra ?? [])]) {
    const sums = new Map<string, bigint>()
    for (const p of part.postings) sums.set(p.currency, (sums.get(p.currency) ?? 0n) + p.delta)
    for (const [, s] of sums) expect(s).toBe(0n)
  }
}

describe("settlement of random matches", () => {
  it("conserves money per transaction, leaves the Broker flat, never overspends a lock", () => {
    const r = seeded(11)
    for (let round = 0; round < 1500; round++) {
      const pair = pairs[round % pairs.length]
      const takerSide = r.int(0, 1) === 0 ? SIDE_BUY : SIDE_SELL
      const makerSide = takerSide === SIDE_BUY ? SIDE_SELL : SIDE_BUY
      const order = (id: number, side: number, lots: bigint, ticks: bigint): BookOrder => {
        const locked = side === SIDE_SELL ? baseMinorOf(pair, lots) : quoteMinorOf(pair, ticks, lots) + BigInt(r.int(0, 3))
        return {
          id: BigInt(id), walletId: BigInt(100 + id), walletGroup: 0, side, typeTx: side === SIDE_SELL ? 16 : 17,
          fromCurrency: side === SIDE_SELL ? pair.base : pair.quote, toCurrency: side === SIDE_SELL ? pair.quote : pair.base,
          seq: id, remainingLots: lots, locked, given: 0n, received: 0n, fee: 0n, state: OrderState.Active,
          persisted: { remainingLots: lots, seq: null }
        }
      }
      // Trades execute at the maker's own price, which its lock was computed at.
      const priced = Array.from({ length: r.int(1, 4) }, (_, k) => {
        const ticks = BigInt(r.int(1000, 2000))
        return { maker: order(k + 1, makerSide, BigInt(r.int(1, 1000)), ticks), ticks }
      })
      const makers = priced.map((p) => p.maker)
      const fills = priced.map(({ maker, ticks }) => ({ maker, ticks, lots: BigInt(r.int(1, Number(maker.remainingLots))) }))
      const filledLots = fills.reduce((n, f) => n + f.lots, 0n)
      const takerLots = filledLots + BigInt(r.int(0, 5))
      // The taker's lock covers its fills at the prices it actually trades at.
      const taker = order(99, takerSide, takerLots, 2000n)
      const makerLocked = new Map(makers.map((m) => [m, m.locked]))
      const takerLocked = taker.locked
      taker.remainingLots = takerLots - filledLots
      const rested = taker.remainingLots > 0n && r.int(0, 1) === 0
      if (!rested) taker.remainingLots = 0n
      const feePct = BigInt(r.int(0, 30)) // per mille
      const op = settleMatch({
        pair, roomKey: 0n, taker, fills, outcome: rested ? "rested" : "filled",
        feeOf: (_o, gross) => ({ fee: (gross * feePct) / 1000n, profitWalletId: -2n }), nextTradeId: (() => { let t = 1n; return () => t++ })()
      })
      sumsByTxAndCurrency(op)
      // The Broker nets to zero across the whole match.
      const broker = new Map<string, bigint>()
      for (const part of [op, ...(op.extra ?? [])]) {
        for (const p of part.postings) if (p.walletId === BROKER_WALLET_ID) broker.set(p.currency, (broker.get(p.currency) ?? 0n) + p.delta)
      }
      for (const [, d] of broker) expect(d).toBe(0n)
      // Locks: spent ≤ locked; an order that ends keeps nothing locked.
      for (const m of makers) {
        expect(m.given <= makerLocked.get(m)!).toBe(true)
        if (m.state !== OrderState.Active) expect(m.locked).toBe(0n)
        else expect(m.locked).toBe(makerLocked.get(m)! - m.given)
      }
      expect(taker.given <= takerLocked).toBe(true)
      if (!rested) expect(taker.locked).toBe(0n)
      // What the taker gives, its makers receive gross (fees come out of what each receives).
      const makersGross = makers.reduce((n, m) => n + m.received + m.fee, 0n)
      expect(makersGross).toBe(taker.given)
      expect(taker.received + taker.fee).toBe(makers.reduce((n, m) => n + m.given, 0n))
      expect(op.rows?.find((r) => r.kind === Trades)?.rows.length).toBe(fills.length)
    }
  })
})
