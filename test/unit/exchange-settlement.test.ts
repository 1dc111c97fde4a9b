/**
 * The exchange's pure money arithmetic against brute-force models (seeded property tests):
 * - Ratio arithmetic: mulDivFloor / mulDivCeil / cmpRatio agree with BigInt on figures on both sides
 *   of 2^53; prices are shown with at most 12 significant digits from the exact ratio.
 * - Settlement of random matches: every transaction's postings sum to zero per currency, the Broker
 *   holds nothing after a match, no order spends more than it locked, the taker gives exactly what its
 *   makers receive (before fees), an order that ends (filled, self-trade, dust) releases all of its
 *   remaining lock, and feeFixed is charged once per order (its first fill).
 */
import { describe, expect, it } from "vitest"
import { baseMinorOf, makePair, priceOfRatio, quoteMinorOfUnits } from "../../actors/room/Pair.ts"
import { cmpRatio, fillQuote, mulDivCeil, mulDivFloor, ratioText } from "../../actors/room/Ratio.ts"
import {
  type BookOrder,
  type Ended,
  type Fill,
  OrderState,
  settleMatch,
  SIDE_BUY,
  SIDE_SELL
} from "../../actors/room/Settlement.ts"
import { type LedgerOperation, SystemWallet } from "../../sql/Ledger.ts"
import { Trades } from "../../sql/rows/ExchangeRows.ts"
import { seeded } from "./Random.ts"

const pairs = [
  makePair("BTC", "USDT", 8, 6),
  makePair("ETH", "BTC", 18, 8), // 18-decimal base trades in 1e-8 lots
  makePair("BTC", "EUR", 8, 2),
  makePair("USDC", "USDT", 6, 6)
]

describe("ratio arithmetic", () => {
  it("mulDiv and cmpRatio are exact on both sides of 2^53", () => {
    const r = seeded(5)
    const pick = () => (r.next() < 0.5 ? r.int(1, 100_000) : r.int(1, 2 ** 31) * r.int(1, 2 ** 21) + r.int(0, 1000))
    for (let i = 0; i < 20_000; i++) {
      const a = pick(),
        b = pick(),
        c = pick(),
        d = pick()
      const exact = (BigInt(a) * BigInt(b)) / BigInt(c)
      const cap = (x: bigint) => (x > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(x))
      expect(mulDivFloor(a, b, c)).toBe(cap(exact))
      expect(mulDivCeil(a, b, c)).toBe(cap(exact + ((BigInt(a) * BigInt(b)) % BigInt(c) === 0n ? 0n : 1n)))
      const x = BigInt(a) * BigInt(d),
        y = BigInt(c) * BigInt(b)
      expect(cmpRatio(a, b, c, d)).toBe(x < y ? -1 : x > y ? 1 : 0)
      // Near-equal ratios (float approximations identical) are still told apart.
      if (a < 2 ** 50 && b < 2 ** 50) expect(cmpRatio(a * 3, b * 3 + 1, a, b)).toBe(-1)
    }
  })

  it("prices are shown with at most 12 significant digits, from the exact ratio", () => {
    expect(ratioText(9n, 10n, 0)).toBe("0.9")
    expect(ratioText(10n, 9n, 0)).toBe("1.11111111111")
    expect(ratioText(2n, 3n, 0)).toBe("0.666666666667")
    expect(ratioText(123456789n, 1n, 4)).toBe("1234567890000")
    expect(ratioText(1n, 3n, -9)).toBe("0.000000000333333333333")
    expect(ratioText(1n, 8n, 0, 2)).toBe("0.12") // half to even
    // EUR/USDT (USDT quote, 6 decimals; EUR base, 2): 10 USDT for 9 EUR = 10,000,000 units for 900 lots.
    const eur = makePair("EUR", "USDT", 2, 6)
    expect(priceOfRatio(eur, 10_000_000n, 900n)).toBe("1.11111111111")
    expect(priceOfRatio(eur, 10_000_000n, 900n, true)).toBe("0.9")
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
      const order = (id: number, side: number, lots: bigint, num: number, den: number): BookOrder => {
        const units = BigInt(fillQuote(false, Number(lots), num, den))
        const locked =
          side === SIDE_SELL ? baseMinorOf(pair, lots) : quoteMinorOfUnits(pair, units) + BigInt(r.int(0, 3))
        return {
          id: BigInt(id),
          walletId: BigInt(100 + id),
          walletGroup: 0,
          side,
          typeTx: side === SIDE_SELL ? 16 : 17,
          fromCurrency: side === SIDE_SELL ? pair.base : pair.quote,
          toCurrency: side === SIDE_SELL ? pair.quote : pair.base,
          seq: id,
          remainingLots: lots,
          locked,
          given: 0n,
          received: 0n,
          fee: 0n,
          state: OrderState.Active,
          persisted: { remainingLots: lots, seq: null }
        }
      }
      // Trades execute at the maker's own ratio, which its lock was computed at (a buy's rounded down).
      const priced = Array.from({ length: r.int(1, 4) }, (_, k) => {
        const num = r.int(1000, 2000),
          den = r.int(1, 7)
        return { maker: order(k + 1, makerSide, BigInt(r.int(1, 1000)), num, den), num, den }
      })
      const makers = priced.map((p) => p.maker)
      const fills: Array<Fill> = priced.map(({ maker, num, den }) => {
        const lots = r.int(1, Number(maker.remainingLots))
        return {
          maker,
          num: BigInt(num),
          den: BigInt(den),
          lots: BigInt(lots),
          quoteUnits: BigInt(fillQuote(makerSide === SIDE_SELL, lots, num, den))
        }
      })
      // Some makers leave the book as well: self-trade prevention (none of theirs filled) or dust.
      const ended: Array<Ended> = []
      const extraMaker = order(50, makerSide, BigInt(r.int(1, 100)), 1500, 1)
      if (r.int(0, 2) === 0) ended.push({ maker: extraMaker, reason: "selfTrade" })
      if (r.int(0, 2) === 0) ended.push({ maker: fills[0].maker, reason: "dust" })
      const extraLocked = extraMaker.locked
      const filledLots = fills.reduce((n, f) => n + f.lots, 0n)
      const takerLots = filledLots + BigInt(r.int(0, 5))
      // The taker's lock covers its fills at the prices it actually trades at.
      const taker = order(99, takerSide, takerLots * 2n, 2000, 1)
      const makerLocked = new Map(makers.map((m) => [m, m.locked]))
      const takerLocked = taker.locked
      taker.remainingLots = takerLots - filledLots
      const rested = taker.remainingLots > 0n && r.int(0, 1) === 0
      if (!rested) taker.remainingLots = 0n
      const feePct = BigInt(r.int(0, 30)) // per mille
      const op = settleMatch({
        pair,
        roomKey: 0n,
        taker,
        fills,
        ended,
        outcome: rested ? "rested" : "filled",
        feeOf: (_o, gross) => ({ fee: (gross * feePct) / 1000n, profitWalletId: -2n }),
        nextTradeId: (() => {
          let t = 1n
          return () => t++
        })()
      })
      if (ended.some((e) => e.reason === "selfTrade")) {
        expect(extraMaker.state).toBe(OrderState.Canceled)
        expect(extraMaker.locked).toBe(0n)
        expect(extraMaker.given).toBe(0n)
        expect(
          op.extra?.some((x) => x.postings.some((p) => p.walletId === extraMaker.walletId && p.delta === extraLocked))
        ).toBe(true)
      }
      if (ended.some((e) => e.reason === "dust")) expect(fills[0].maker.state).toBe(OrderState.Completed)
      sumsByTxAndCurrency(op)
      // The Broker nets to zero across the whole match.
      const broker = new Map<string, bigint>()
      for (const part of [op, ...(op.extra ?? [])]) {
        for (const p of part.postings)
          if (p.walletId === SystemWallet.Broker) broker.set(p.currency, (broker.get(p.currency) ?? 0n) + p.delta)
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
      for (const f of fills) expect(f.maker.given > 0n).toBe(true)
      expect(makersGross).toBe(taker.given)
      expect(taker.received + taker.fee).toBe(makers.reduce((n, m) => n + m.given, 0n))
      expect(op.rows?.find((r) => r.kind === Trades)?.rows.length).toBe(fills.length)
    }
  })
})

describe("exchange fees", () => {
  it("feeFixed once per order (its first fill), feePercent on every fill, never above what it receives", () => {
    const pair = makePair("BTC", "USDT", 8, 6)
    const mk = (id: number, side: number, lots: bigint, locked: bigint): BookOrder => ({
      id: BigInt(id),
      walletId: BigInt(100 + id),
      walletGroup: 0,
      side,
      typeTx: side === SIDE_SELL ? 16 : 17,
      fromCurrency: side === SIDE_SELL ? "BTC" : "USDT",
      toCurrency: side === SIDE_SELL ? "USDT" : "BTC",
      seq: id,
      remainingLots: lots,
      locked,
      given: 0n,
      received: 0n,
      fee: 0n,
      state: OrderState.Active,
      persisted: { remainingLots: lots, seq: null }
    })
    // 1% plus a fixed 5 minor units, charged only when `withFixed`.
    const calls: Array<boolean> = []
    const feeOf = (_o: BookOrder, gross: bigint, withFixed: boolean) => {
      calls.push(withFixed)
      return { fee: gross / 100n + (withFixed ? 5n : 0n), profitWalletId: -2n }
    }
    const maker = mk(1, SIDE_SELL, 10n, 10n)
    const ids = (() => {
      let t = 1n
      return () => t++
    })()
    for (const takerId of [2, 3]) {
      const taker = mk(takerId, SIDE_BUY, 0n, 1_000n)
      const fill: Fill = { maker, num: 100n, den: 1n, lots: 5n, quoteUnits: 500n }
      settleMatch({ pair, roomKey: 0n, taker, fills: [fill], outcome: "filled", feeOf, nextTradeId: ids })
    }
    // Maker: 500 + 500 received gross, fees 5 + 5 (percent) + 5 (fixed, once).
    expect(maker.fee).toBe(15n)
    expect(maker.received).toBe(985n)
    expect(maker.state).toBe(OrderState.Completed)
    // Capped at what is received: a 1-unit fill cannot pay a 5-unit fixed fee.
    const small = mk(4, SIDE_SELL, 1n, 1n)
    settleMatch({
      pair,
      roomKey: 0n,
      taker: mk(5, SIDE_BUY, 0n, 10n),
      fills: [{ maker: small, num: 1n, den: 1n, lots: 1n, quoteUnits: 1n }],
      outcome: "filled",
      feeOf,
      nextTradeId: ids
    })
    expect(small.fee).toBe(1n)
    expect(small.received).toBe(0n)
  })
})
