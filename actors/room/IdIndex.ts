/**
 * Order id → slot for BookStore: an open-addressing hash table on typed arrays (linear probing,
 * backward-shift deletion, so no tombstones), kept at most 1/8 full. Ids are safe integers. It
 * replaces a JS Map on the engine's hot path (every submit asks it once, every rest, fill-out and
 * cancel once more), where a Map's generic hashing cost more than the rest of a typical order.
 * The load factor buys speed with memory: a cancel of an order already gone (a fifth of the benchmark's
 * operations) probes until an empty bucket, and at 1/8 instead of 1/2 the whole 1M-operation stream
 * runs about 12% faster (102–105 → 90 ms), for 96 bytes of index per resting order.
 */
const EMPTY = -1

export class IdIndex {
  private keys = new Float64Array(1024)
  private vals = new Int32Array(1024).fill(EMPTY)
  private mask = 1023
  size = 0

  private home(id: number): number {
    // Mix the low and high 32 bits of the integer id (murmur3's finalizer).
    let h = (id >>> 0) ^ Math.imul((id / 4294967296) >>> 0, 0x85ebca6b)
    h = Math.imul(h ^ (h >>> 16), 0x85ebca6b)
    h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35)
    return (h ^ (h >>> 16)) & this.mask
  }

  /** The slot of `id`, or -1. */
  get(id: number): number {
    const keys = this.keys,
      vals = this.vals,
      mask = this.mask
    for (let i = this.home(id); ; i = (i + 1) & mask) {
      const v = vals[i]
      if (v === EMPTY) return EMPTY
      if (keys[i] === id) return v
    }
  }

  has(id: number): boolean {
    return this.get(id) !== EMPTY
  }

  /** Inserts or replaces. */
  set(id: number, slot: number): void {
    if ((this.size + 1) * 8 > this.mask + 1) this.grow()
    const keys = this.keys,
      vals = this.vals,
      mask = this.mask
    for (let i = this.home(id); ; i = (i + 1) & mask) {
      if (vals[i] === EMPTY) {
        keys[i] = id
        vals[i] = slot
        this.size++
        return
      }
      if (keys[i] === id) {
        vals[i] = slot
        return
      }
    }
  }

  /** Removes `id`; returns its slot, or -1 when absent. */
  delete(id: number): number {
    const keys = this.keys,
      vals = this.vals,
      mask = this.mask
    let i = this.home(id)
    for (; ; i = (i + 1) & mask) {
      if (vals[i] === EMPTY) return EMPTY
      if (keys[i] === id) break
    }
    const slot = vals[i]
    // Backward shift: pull later entries of the probe run into the hole where their home allows.
    let j = i
    for (;;) {
      j = (j + 1) & mask
      if (vals[j] === EMPTY) break
      const k = this.home(keys[j])
      const between = i <= j ? i < k && k <= j : i < k || k <= j
      if (!between) {
        keys[i] = keys[j]
        vals[i] = vals[j]
        i = j
      }
    }
    vals[i] = EMPTY
    this.size--
    return slot
  }

  private grow(): void {
    const oldKeys = this.keys,
      oldVals = this.vals
    const n = oldVals.length * 2
    this.keys = new Float64Array(n)
    this.vals = new Int32Array(n).fill(EMPTY)
    this.mask = n - 1
    this.size = 0
    for (let i = 0; i < oldVals.length; i++) if (oldVals[i] !== EMPTY) this.set(oldKeys[i], oldVals[i])
  }
}
