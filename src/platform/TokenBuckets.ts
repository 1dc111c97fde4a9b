/**
 * Token buckets by key (CONTRACT C19 §8): each key may spend `ratePerSecond` requests a second on
 * average and `burst` at once. A bucket is two numbers refilled on use, so a request costs a map
 * lookup and some arithmetic. Memory is bounded: a bucket idle long enough to be full again is the
 * same as no bucket, so sweeps (at most every `sweepEveryMs`, and whenever the map is full) drop those;
 * past `sizeMax` live buckets the oldest go (their keys start again with a full burst).
 */
interface Bucket {
  tokens: number
  atMs: number
}

export const sweepEveryMs = 10_000

export class TokenBuckets {
  private readonly buckets = new Map<string, Bucket>()
  private sweptAtMs = 0

  constructor(
    readonly ratePerSecond: number,
    readonly burst: number,
    readonly sizeMax: number,
    private readonly nowMs: () => number = Date.now
  ) {}

  /** Whether a rate of 0 turned this limit off. */
  get off(): boolean {
    return this.ratePerSecond <= 0
  }

  get size(): number {
    return this.buckets.size
  }

  /** Takes a token: 0 when there was one, else the whole seconds until there is (Retry-After, at least 1). */
  take(key: string): number {
    if (this.off) return 0
    const now = this.nowMs()
    if (now - this.sweptAtMs >= sweepEveryMs) this.sweep(now)
    let bucket = this.buckets.get(key)
    if (bucket === undefined) {
      if (this.buckets.size >= this.sizeMax) this.makeRoom(now)
      bucket = { tokens: this.burst, atMs: now }
      this.buckets.set(key, bucket)
    } else if (now > bucket.atMs) {
      bucket.tokens = Math.min(this.burst, bucket.tokens + ((now - bucket.atMs) * this.ratePerSecond) / 1000)
      bucket.atMs = now
    }
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1
      return 0
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / this.ratePerSecond))
  }

  /** Drops every bucket that has refilled to its burst by now. */
  private sweep(now: number): void {
    this.sweptAtMs = now
    for (const [key, bucket] of this.buckets) {
      if (bucket.tokens + ((now - bucket.atMs) * this.ratePerSecond) / 1000 >= this.burst) this.buckets.delete(key)
    }
  }

  /** Full: sweep, and if every bucket is still in use, drop the oldest tenth. */
  private makeRoom(now: number): void {
    this.sweep(now)
    if (this.buckets.size < this.sizeMax) return
    let drop = Math.max(1, Math.floor(this.sizeMax / 10))
    for (const key of this.buckets.keys()) {
      if (drop-- <= 0) break
      this.buckets.delete(key)
    }
  }
}
