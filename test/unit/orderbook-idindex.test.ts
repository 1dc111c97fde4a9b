/** The engine's id → slot hash table against a JS Map on seeded random operations (small, large, clustered ids). */
import { describe, expect, it } from "vitest"
import { IdIndex } from "../../actors/room/IdIndex.ts"
import { seeded } from "./Random.ts"

describe("IdIndex", () => {
  it("agrees with a Map through inserts, replacements, deletes and growth", () => {
    const r = seeded(9)
    const index = new IdIndex()
    const map = new Map<number, number>()
    const live: Array<number> = []
    const pickId = () => {
      const k = r.next()
      if (k < 0.4) return r.int(1, 5_000) // clustered (sequence numbers)
      if (k < 0.7) return r.int(1, 2 ** 31) * r.int(1, 2 ** 21) // beyond 32 bits
      return live.length > 0 ? live[r.int(0, live.length - 1)] : r.int(1, 100)
    }
    for (let step = 0; step < 200_000; step++) {
      const id = pickId()
      const op = r.next()
      if (op < 0.55) {
        const slot = r.int(0, 1_000_000)
        index.set(id, slot)
        if (!map.has(id)) live.push(id)
        map.set(id, slot)
      } else if (op < 0.85) {
        expect(index.delete(id)).toBe(map.get(id) ?? -1)
        map.delete(id)
      } else expect(index.get(id)).toBe(map.get(id) ?? -1)
      expect(index.size).toBe(map.size)
      if (live.length > 50_000) live.splice(0, 25_000)
    }
    for (const [id, slot] of map) expect(index.get(id)).toBe(slot)
  })
})
