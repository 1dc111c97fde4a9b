/**
 * A pure, synchronous limit order book for one room (the exchange-core shape): price-time priority,
 * Limit / LimitOnly (post-only) / Market orders, partial fills leaving the remainder at the same level,
 * self-trade prevention. No I/O, no clock, no randomness: the same input stream always yields the same events.
 *
 * Units (the caller — see OrderForm.ts — maps SPEC's from/to amounts onto these):
 * - a limit price is the exact ratio `num/den` in quote units per lot (Ratio.ts), reduced on entry;
 *   levels are keyed by it, so equal ratios share a level and crossing or equal ratios always trade;
 * - `quantity`: lots (a sell's amount; a buy's optional bound);
 * - `budget`: quote units a buy may spend at most (0 = none); a limit buy by budget rests what its
 *   remaining budget buys at its own ratio;
 * - `owner`: the wallet, as a small positive integer (0 = none): an order never fills against a
 *   resting order of the same owner — that order is cancelled and matching continues past it.
 * All are JS numbers that must be safe integers; Ratio.ts keeps every product exact (float fast path,
 * BigInt when needed), so every result is exact. Fills follow Ratio.ts's rounding rule: each moves a
 * whole number of quote units rounded in the maker's favour, and no limit order executes worse than
 * its own ratio.
 *
 * Layout (no per-order allocation in the hot path): orders live in slots of preallocated typed arrays
 * (grown by doubling), each price level is an intrusive doubly linked FIFO of slots (O(1) cancel), and
 * each side keeps its levels in a sorted Int32Array with the best level at the END (bids ascending,
 * asks descending), so consuming the best level is a pop and new levels near the top are cheap to insert.
 *
 * Trades execute at the resting maker's ratio (CONTRACT C14). A market order never rests: whatever it
 * cannot fill is cancelled. A LimitOnly order that would match on arrival is rejected whole.
 */
import { BookStore, NONE } from "./BookStore.ts"
import { cmpRatio, fillQuote, gcd, granuleFloor, lotsForBudget, withinTakerBound } from "./Ratio.ts"

export type Side = "buy" | "sell"
export type OrderKind = "limit" | "limitOnly" | "market"

/** Raw result codes of `submitRaw` / `cancelRaw`. */
export const RAW_DONE = 0 // nothing rests: filled, a market remainder cancelled, or a dust remainder released (see `unfilled`)
export const RAW_RESTED = 1 // remainder rests (see `restRemaining`)
export const RAW_REJECT_INVALID = 2
export const RAW_REJECT_DUPLICATE = 3
export const RAW_REJECT_WOULD_MATCH = 4
export const RAW_REJECT_UNKNOWN = 5
export const RAW_CANCELLED = 6

export const SIDE_BUY = 0
export const SIDE_SELL = 1
export const KIND_LIMIT = 0
export const KIND_LIMIT_ONLY = 1
export const KIND_MARKET = 2

/** Why a resting order left the book during a submit (removedReason). */
export const REMOVED_SELF_TRADE = 1
export const REMOVED_DUST = 2

const TWO_53 = 2 ** 53
const MAX_SAFE = Number.MAX_SAFE_INTEGER

const isSafeCount = (n: number): boolean => Number.isSafeInteger(n) && n >= 0
const isPositiveSafeInt = (n: number): boolean => Number.isSafeInteger(n) && n > 0

const growF64 = (a: Float64Array) => {
  const b = new Float64Array(a.length * 2)
  b.set(a)
  return b
}

export class Engine {
  protected readonly store = new BookStore()

  // Fills of the last submitRaw, in execution order (reused buffers, grown on demand): maker id,
  // lots, quote units moved, the maker level's ratio.
  fillCount = 0
  fillMaker = new Float64Array(64)
  fillQty = new Float64Array(64)
  fillQuote = new Float64Array(64)
  fillNum = new Float64Array(64)
  fillDen = new Float64Array(64)
  // Resting orders the last submitRaw took off the book without a fill of theirs (self-trade, dust).
  removedCount = 0
  removedId = new Float64Array(16)
  removedRemaining = new Float64Array(16)
  removedReason = new Float64Array(16)
  /** After submitRaw: quantity that rests (RAW_RESTED) — or, after cancelRaw, the cancelled remainder. */
  restRemaining = 0
  /** After submitRaw (RAW_DONE): lots (or, for an order by budget alone, quote units) left unfilled and released. */
  unfilled = 0
  /** After submitRaw: a limit taker's remainder was released as dust against a maker it crosses. */
  takerDust = false

  /** Orders currently resting. */
  get size(): number {
    return this.store.ids.size
  }

  /**
   * The allocation-free entry point: matches, leaves fills in fill*[0..fillCount) and removed makers in
   * removed*[0..removedCount), and returns a RAW_* code. `num`/`den` are ignored for market orders;
   * `quantity` or `budget` may be 0 (none) for a buy, `budget` must be 0 for a sell.
   */
  submitRaw(
    id: number,
    side: number,
    kind: number,
    num: number,
    den: number,
    quantity: number,
    budget: number,
    owner: number
  ): number {
    this.fillCount = 0
    this.removedCount = 0
    this.restRemaining = 0
    this.unfilled = 0
    this.takerDust = false
    const s = this.store
    const buy = side === SIDE_BUY
    const market = kind === KIND_MARKET
    if (!Number.isSafeInteger(id) || (!buy && side !== SIDE_SELL) || !isSafeCount(owner)) return RAW_REJECT_INVALID
    if (
      !isSafeCount(quantity) ||
      !isSafeCount(budget) ||
      (buy ? quantity + budget === 0 : quantity === 0 || budget !== 0)
    )
      return RAW_REJECT_INVALID
    if (!market) {
      if (kind !== KIND_LIMIT && kind !== KIND_LIMIT_ONLY) return RAW_REJECT_INVALID
      if (!isPositiveSafeInt(num) || !isPositiveSafeInt(den)) return RAW_REJECT_INVALID
      if (den !== 1) {
        const g = gcd(num, den)
        if (g !== 1) ((num /= g), (den /= g))
      }
    }
    if (s.ids.has(id)) return RAW_REJECT_DUPLICATE

    // Opposite side: a buy takes asks, a sell takes bids; best level is the last entry.
    const opp = buy ? s.asks : s.bids
    if (kind === KIND_LIMIT_ONLY && opp.len > 0) {
      const best = opp.levels[opp.len - 1]
      const c = cmpRatio(s.lNum[best], s.lDen[best], num, den)
      if (buy ? c <= 0 : c >= 0) return RAW_REJECT_WOULD_MATCH
    }

    // Unbounded lots / budget are 2^53 − 1 (never reached), so every figure stays a safe integer.
    const byBudget = budget > 0
    let lots = quantity > 0 ? quantity : MAX_SAFE
    let funds = byBudget ? budget : MAX_SAFE
    const oQty = s.oQty,
      oId = s.oId,
      oNext = s.oNext,
      oOwner = s.oOwner,
      lHead = s.lHead,
      lTotal = s.lTotal,
      ids = s.ids
    let stop = false
    while (opp.len > 0) {
      const lvl = opp.levels[opp.len - 1]
      const ln = s.lNum[lvl],
        ld = s.lDen[lvl]
      if (!market) {
        const c = ld === 1 && den === 1 ? ln - num : cmpRatio(ln, ld, num, den)
        if (buy ? c > 0 : c < 0) break
      }
      let slot: number
      while ((slot = lHead[lvl]) !== NONE) {
        let cap = lots
        if (byBudget) {
          const affordable = lotsForBudget(funds, ln, ld)
          if (affordable < cap) cap = affordable
          if (cap === 0) {
            stop = true // the budget pays for no lot here, nor at any worse level
            break
          }
        }
        const mq = oQty[slot]
        if (owner !== 0 && oOwner[slot] === owner) {
          this.removeHead(lvl, REMOVED_SELF_TRADE)
          continue
        }
        let fill = mq < cap ? mq : cap
        let q: number
        // A whole-number maker ratio moves exactly fill·ln, within any crossing taker's bound.
        if (ld === 1 && fill * ln < TWO_53) q = fill * ln
        else {
          q = fillQuote(buy, fill, ln, ld)
          if (q === 0 || (!market && !withinTakerBound(buy, q, fill, num, den))) {
            const granules = granuleFloor(fill, ld)
            if (granules === 0) {
              if (mq < cap) {
                this.removeHead(lvl, REMOVED_DUST)
                continue
              }
              this.takerDust = true
              stop = true
              break
            }
            fill = granules
            q = (granules / ld) * ln
          }
        }
        this.pushFill(oId[slot], fill, q, ln, ld)
        lots -= fill
        if (byBudget) funds -= q
        lTotal[lvl] -= fill
        if (fill === mq) {
          // The maker is consumed: unlink it (it is the head).
          const next = oNext[slot]
          ids.delete(oId[slot])
          s.freeSlot(slot)
          s.lCount[lvl]--
          lHead[lvl] = next
          if (next === NONE) s.lTail[lvl] = NONE
          else s.oPrev[next] = NONE
        } else oQty[slot] = mq - fill
        if (lots === 0) {
          stop = true
          break
        }
      }
      if (lHead[lvl] === NONE) {
        opp.len--
        s.freeLevel(lvl)
      }
      if (stop) break
    }

    const left = quantity > 0 ? lots : funds
    if (market || this.takerDust) {
      this.unfilled = left
      return RAW_DONE
    }
    let rest = lots
    if (buy && byBudget) {
      const affordable = lotsForBudget(funds, num, den)
      if (affordable < rest) rest = affordable
    }
    if (rest === 0) {
      this.unfilled = left
      return RAW_DONE
    }
    s.rest(id, side, num, den, rest, owner)
    this.restRemaining = rest
    return RAW_RESTED
  }

  /**
   * Puts an order read back from storage straight into the book (no matching): RAW_RESTED, or
   * RAW_REJECT_WOULD_MATCH when it would cross the book, RAW_REJECT_INVALID / RAW_REJECT_DUPLICATE.
   */
  restoreRaw(id: number, side: number, num: number, den: number, quantity: number, owner: number): number {
    const s = this.store
    if (!Number.isSafeInteger(id) || (side !== SIDE_BUY && side !== SIDE_SELL) || !isSafeCount(owner))
      return RAW_REJECT_INVALID
    if (!isPositiveSafeInt(num) || !isPositiveSafeInt(den) || !isPositiveSafeInt(quantity)) return RAW_REJECT_INVALID
    if (s.ids.has(id)) return RAW_REJECT_DUPLICATE
    const g = gcd(num, den)
    ;((num /= g), (den /= g))
    const opp = side === SIDE_BUY ? s.asks : s.bids
    if (opp.len > 0) {
      const best = opp.levels[opp.len - 1]
      const c = cmpRatio(s.lNum[best], s.lDen[best], num, den)
      if (side === SIDE_BUY ? c <= 0 : c >= 0) return RAW_REJECT_WOULD_MATCH
    }
    s.rest(id, side, num, den, quantity, owner)
    this.restRemaining = quantity
    return RAW_RESTED
  }

  /** Cancels a resting order; returns RAW_CANCELLED (remainder in `restRemaining`) or RAW_REJECT_UNKNOWN. */
  cancelRaw(id: number): number {
    const rem = this.store.remove(id)
    if (rem < 0) return RAW_REJECT_UNKNOWN
    this.restRemaining = rem
    return RAW_CANCELLED
  }

  /** Throws on a crossed book, broken FIFO links, level total/count mismatch or index inconsistency. */
  validateInternalState(): void {
    this.store.validate()
  }

  private pushFill(maker: number, qty: number, quote: number, num: number, den: number): void {
    const n = this.fillCount
    if (n === this.fillMaker.length) {
      this.fillMaker = growF64(this.fillMaker)
      this.fillQty = growF64(this.fillQty)
      this.fillQuote = growF64(this.fillQuote)
      this.fillNum = growF64(this.fillNum)
      this.fillDen = growF64(this.fillDen)
    }
    this.fillMaker[n] = maker
    this.fillQty[n] = qty
    this.fillQuote[n] = quote
    this.fillNum[n] = num
    this.fillDen[n] = den
    this.fillCount = n + 1
  }

  /** Takes the head order of level `lvl` off the book without a fill (self-trade, dust): a cold path. */
  private removeHead(lvl: number, reason: number): void {
    const s = this.store
    const slot = s.lHead[lvl]
    this.pushRemoved(s.oId[slot], s.oQty[slot], reason)
    s.popHead(lvl)
  }

  private pushRemoved(id: number, remaining: number, reason: number): void {
    const n = this.removedCount
    if (n === this.removedId.length) {
      this.removedId = growF64(this.removedId)
      this.removedRemaining = growF64(this.removedRemaining)
      this.removedReason = growF64(this.removedReason)
    }
    this.removedId[n] = id
    this.removedRemaining[n] = remaining
    this.removedReason[n] = reason
    this.removedCount = n + 1
  }
}
