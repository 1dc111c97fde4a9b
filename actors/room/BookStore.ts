/**
 * Storage of the order book behind Engine.ts: typed-array slots for orders, typed-array price levels
 * (each an intrusive doubly linked FIFO of slots) and, per side, the levels sorted by price with the
 * best level last (bids ascending, asks descending). A level is keyed by its exact reduced ratio
 * lNum/lDen (Ratio.ts); lApprox = lNum/lDen as a float orders levels fast, and the exact cross-product
 * comparison decides whenever two approximations are too close to tell. Numbers stored in
 * Float64Array are integers below 2^53 (lApprox aside), so they are exact.
 */
import { IdIndex } from "./IdIndex.ts"
import { cmpRatio, gcd as gcdOf } from "./Ratio.ts"

export const NONE = -1

/** Relative gap between two level approximations beyond which the float order is decisive. */
const DECISIVE = 2 ** -48

const SIDE_BUY = 0

/** The levels of one side, sorted so that the best level is at index len - 1. */
export class SideLevels {
  levels = new Int32Array(64)
  len = 0
  constructor(readonly buy: boolean) {}
}

const growF64 = (a: Float64Array, n: number) => {
  const b = new Float64Array(n)
  b.set(a)
  return b
}
const growI32 = (a: Int32Array, n: number) => {
  const b = new Int32Array(n)
  b.set(a)
  return b
}
const growU8 = (a: Uint8Array, n: number) => {
  const b = new Uint8Array(n)
  b.set(a)
  return b
}

export class BookStore {
  /** External order id → slot. */
  readonly ids = new IdIndex()

  // Order slots.
  oId = new Float64Array(1024)
  oQty = new Float64Array(1024)
  oSeq = new Float64Array(1024) // arrival sequence, to check FIFO order
  oNext = new Int32Array(1024)
  oPrev = new Int32Array(1024)
  oLevel = new Int32Array(1024)
  oOwner = new Float64Array(1024) // the wallet (self-trade prevention); 0 = none
  private slotFree = new Int32Array(1024)
  private slotFreeLen = 0
  private slotHigh = 0
  private seq = 0

  // Price levels.
  lApprox = new Float64Array(256)
  lNum = new Float64Array(256)
  lDen = new Float64Array(256)
  lTotal = new Float64Array(256)
  lHead = new Int32Array(256)
  lTail = new Int32Array(256)
  lCount = new Int32Array(256)
  lSide = new Uint8Array(256)
  private levelFree = new Int32Array(256)
  private levelFreeLen = 0
  private levelHigh = 0

  readonly bids = new SideLevels(true)
  readonly asks = new SideLevels(false)

  freeSlot(slot: number): void {
    this.slotFree[this.slotFreeLen++] = slot
  }

  freeLevel(lvl: number): void {
    this.levelFree[this.levelFreeLen++] = lvl
  }

  private allocSlot(): number {
    if (this.slotFreeLen > 0) return this.slotFree[--this.slotFreeLen]
    if (this.slotHigh === this.oId.length) {
      const n = this.oId.length * 2
      this.oId = growF64(this.oId, n)
      this.oQty = growF64(this.oQty, n)
      this.oSeq = growF64(this.oSeq, n)
      this.oNext = growI32(this.oNext, n)
      this.oPrev = growI32(this.oPrev, n)
      this.oLevel = growI32(this.oLevel, n)
      this.oOwner = growF64(this.oOwner, n)
      this.slotFree = growI32(this.slotFree, n)
    }
    return this.slotHigh++
  }

  private allocLevel(): number {
    if (this.levelFreeLen > 0) return this.levelFree[--this.levelFreeLen]
    if (this.levelHigh === this.lApprox.length) {
      const n = this.lApprox.length * 2
      this.lApprox = growF64(this.lApprox, n)
      this.lNum = growF64(this.lNum, n)
      this.lDen = growF64(this.lDen, n)
      this.lTotal = growF64(this.lTotal, n)
      this.lHead = growI32(this.lHead, n)
      this.lTail = growI32(this.lTail, n)
      this.lCount = growI32(this.lCount, n)
      this.lSide = growU8(this.lSide, n)
      this.levelFree = growI32(this.levelFree, n)
    }
    return this.levelHigh++
  }

  /** The sign of level `lvl`'s ratio minus n/d, with the float band [lo, hi] around n/d precomputed (the float decides outside it). */
  private sgn(lvl: number, lo: number, hi: number, n: number, d: number): number {
    const p = this.lApprox[lvl]
    if (p > hi) return 1
    if (p < lo) return -1
    const ln = this.lNum[lvl],
      ld = this.lDen[lvl]
    return ln === n && ld === d ? 0 : cmpRatio(ln, ld, n, d)
  }

  /**
   * Index in `side.levels` of the level at the reduced ratio n/d (≈ a), or, when absent,
   * -(insertion index) - 1. Bids are ascending and asks descending, so in both the best price is last.
   */
  find(side: SideLevels, a: number, n: number, d: number): number {
    const levels = side.levels
    const hi = a * (1 + DECISIVE),
      lo = a * (1 - DECISIVE)
    // Fast path: at or beyond the best level (new orders cluster near the top of the book).
    const len = side.len
    if (len > 0) {
      const c = this.sgn(levels[len - 1], lo, hi, n, d)
      if (c === 0) return len - 1
      if (side.buy ? c < 0 : c > 0) return -len - 1
    } else return -1
    let l = 0
    let h = len - 1
    while (l < h) {
      const mid = (l + h) >>> 1
      const c = this.sgn(levels[mid], lo, hi, n, d)
      if (c === 0) return mid
      if (side.buy ? c < 0 : c > 0) l = mid + 1
      else h = mid
    }
    // l === h, levels[h] is the first entry "after" the ratio (exists: it is not beyond the top).
    return this.sgn(levels[l], lo, hi, n, d) === 0 ? l : -l - 1
  }

  /** Appends an order at the tail of its price level, creating the level when needed. */
  rest(id: number, side: number, n: number, d: number, qty: number, owner: number): void {
    const book = side === SIDE_BUY ? this.bids : this.asks
    const a = n / d
    const at = this.find(book, a, n, d)
    let lvl: number
    if (at >= 0) lvl = book.levels[at]
    else {
      const idx = -at - 1
      lvl = this.allocLevel()
      this.lApprox[lvl] = a
      this.lNum[lvl] = n
      this.lDen[lvl] = d
      this.lTotal[lvl] = 0
      this.lHead[lvl] = NONE
      this.lTail[lvl] = NONE
      this.lCount[lvl] = 0
      this.lSide[lvl] = side
      if (book.len === book.levels.length) book.levels = growI32(book.levels, book.levels.length * 2)
      if (idx < book.len) book.levels.copyWithin(idx + 1, idx, book.len)
      book.levels[idx] = lvl
      book.len++
    }
    const slot = this.allocSlot()
    this.oId[slot] = id
    this.oQty[slot] = qty
    this.oSeq[slot] = this.seq++
    this.oLevel[slot] = lvl
    this.oOwner[slot] = owner
    this.oNext[slot] = NONE
    const tail = this.lTail[lvl]
    this.oPrev[slot] = tail
    if (tail === NONE) this.lHead[lvl] = slot
    else this.oNext[tail] = slot
    this.lTail[lvl] = slot
    this.lTotal[lvl] += qty
    this.lCount[lvl]++
    this.ids.set(id, slot)
  }

  /** Takes the head order off level `lvl` (the caller drops the level once it is empty). */
  popHead(lvl: number): void {
    const slot = this.lHead[lvl]
    const next = this.oNext[slot]
    this.ids.delete(this.oId[slot])
    this.lTotal[lvl] -= this.oQty[slot]
    this.lCount[lvl]--
    this.freeSlot(slot)
    this.lHead[lvl] = next
    if (next === NONE) this.lTail[lvl] = NONE
    else this.oPrev[next] = NONE
  }

  /** Removes a resting order; returns its remaining quantity, or -1 when unknown. */
  remove(id: number): number {
    const slot = this.ids.delete(id)
    if (slot < 0) return -1
    const lvl = this.oLevel[slot]
    const qty = this.oQty[slot]
    const prev = this.oPrev[slot]
    const next = this.oNext[slot]
    if (prev === NONE) this.lHead[lvl] = next
    else this.oNext[prev] = next
    if (next === NONE) this.lTail[lvl] = prev
    else this.oPrev[next] = prev
    this.lTotal[lvl] -= qty
    this.lCount[lvl]--
    this.freeSlot(slot)
    if (this.lHead[lvl] === NONE) {
      const book = this.lSide[lvl] === SIDE_BUY ? this.bids : this.asks
      const idx = this.find(book, this.lApprox[lvl], this.lNum[lvl], this.lDen[lvl])
      if (idx < 0 || book.levels[idx] !== lvl) throw new Error("BookStore: level index lost")
      book.levels.copyWithin(idx, idx + 1, book.len)
      book.len--
      this.freeLevel(lvl)
    }
    return qty
  }

  validate(): void {
    const fail = (msg: string): never => {
      throw new Error(`order book invariant broken: ${msg}`)
    }
    let orders = 0
    const seen = new Set<number>()
    const checkSide = (book: SideLevels, side: number) => {
      let prevLvl = NONE
      for (let i = 0; i < book.len; i++) {
        const lvl = book.levels[i]
        const n = this.lNum[lvl],
          d = this.lDen[lvl]
        const p = `${n}/${d}`
        if (!Number.isSafeInteger(n) || n <= 0 || !Number.isSafeInteger(d) || d <= 0) fail(`bad level ratio ${p}`)
        if (gcdOf(n, d) !== 1) fail(`level ratio ${p} not reduced`)
        if (this.lSide[lvl] !== side) fail(`level ${p} on the wrong side`)
        if (prevLvl !== NONE) {
          const c = cmpRatio(n, d, this.lNum[prevLvl], this.lDen[prevLvl])
          if (book.buy ? !(c > 0) : !(c < 0)) fail(`levels not sorted at ${p}`)
        }
        if (seen.has(lvl)) fail(`level ${p} listed twice`)
        seen.add(lvl)
        prevLvl = lvl
        let count = 0
        let total = 0
        let prev = NONE
        let prevSeq = -1
        for (let slot = this.lHead[lvl]; slot !== NONE; slot = this.oNext[slot]) {
          if (++count > this.ids.size) fail(`cycle in level ${p}`)
          if (this.oPrev[slot] !== prev) fail(`broken back link in level ${p}`)
          if (this.oLevel[slot] !== lvl) fail(`order in level ${p} points elsewhere`)
          if (this.oSeq[slot] <= prevSeq) fail(`FIFO order broken in level ${p}`)
          const q = this.oQty[slot]
          if (!Number.isSafeInteger(q) || q <= 0) fail(`bad remaining ${q} in level ${p}`)
          if (this.ids.get(this.oId[slot]) !== slot) fail(`id index does not point at order ${this.oId[slot]}`)
          prevSeq = this.oSeq[slot]
          total += q
          prev = slot
        }
        if (count === 0) fail(`empty level ${p} kept`)
        if (this.lTail[lvl] !== prev) fail(`tail mismatch in level ${p}`)
        if (count !== this.lCount[lvl]) fail(`count mismatch in level ${p}`)
        if (total !== this.lTotal[lvl]) fail(`total mismatch in level ${p}: ${total} vs ${this.lTotal[lvl]}`)
        orders += count
      }
    }
    checkSide(this.bids, SIDE_BUY)
    checkSide(this.asks, 1)
    if (orders !== this.ids.size) fail(`id index holds ${this.ids.size} orders, book holds ${orders}`)
    if (this.bids.len > 0 && this.asks.len > 0) {
      const bid = this.bids.levels[this.bids.len - 1]
      const ask = this.asks.levels[this.asks.len - 1]
      if (cmpRatio(this.lNum[bid], this.lDen[bid], this.lNum[ask], this.lDen[ask]) >= 0) {
        fail(`crossed book: bid ${this.lNum[bid]}/${this.lDen[bid]} >= ask ${this.lNum[ask]}/${this.lDen[ask]}`)
      }
    }
  }
}
