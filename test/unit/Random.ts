/** A small seeded generator (mulberry32) so property-style unit tests are reproducible. */
export const seeded = (seed: number) => {
  let state = seed >>> 0
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  /** An integer in [min, max]. */
  const int = (min: number, max: number): number => min + Math.floor(next() * (max - min + 1))
  /** A string of `length` decimal digits. */
  const digits = (length: number): string => Array.from({ length }, () => String(int(0, 9))).join("")
  return { next, int, digits }
}
