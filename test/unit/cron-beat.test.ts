/**
 * The periodic jobs' beats (src/platform/CronBeat.ts, issue #22 item 16): "every N seconds" is every N
 * seconds for any N. A 45 s job fires 45 s apart across minute boundaries (the cron `*\/45` it replaced
 * fired at :00 and :45, 45 s then 15 s apart); every period divides time into consecutive beats that every
 * process computes alike.
 */
import { assert, describe, it } from "@effect/vitest"
import { beatOf, beatStart, nextBeatAt } from "../../src/platform/CronBeat.ts"

/** The start times of the beats a loop fires at from `from` until `until` (as PeriodicJob's loop). */
const firings = (periodMs: number, from: number, until: number): Array<number> => {
  const out: Array<number> = []
  for (let t = nextBeatAt(from, periodMs); t < until; t = nextBeatAt(t, periodMs)) out.push(t)
  return out
}

describe("periodic job beats", () => {
  it("45 s: 45 s apart across minutes (not :00 and :45 of every minute)", () => {
    const start = Date.UTC(2026, 10, 27, 12, 0, 0)
    const times = firings(45_000, start, start + 10 * 60_000)
    for (let i = 1; i < times.length; i++) assert.strictEqual(times[i]! - times[i - 1]!, 45_000)
    // Not the cron `*/45` pattern (:00 and :45 of every minute, 15 s then 45 s apart): firings fall on
    // every second of the minute that is a multiple of 15, in turn.
    assert.sameMembers([...new Set(times.map((t) => (t % 60_000) / 1000))], [0, 15, 30, 45])
    // Within any 45 s window exactly one firing.
    for (let w = start + 45_000; w < start + 9 * 60_000; w += 7_000)
      assert.strictEqual(times.filter((t) => t >= w && t < w + 45_000).length, 1, `window from ${w}`)
  })

  it("any period: consecutive beats, the next beat strictly after now, a beat's start inside it", () => {
    for (const seconds of [1, 7, 30, 45, 59, 61, 90, 3600]) {
      const period = seconds * 1000
      for (const now of [0, 1, period - 1, period, 1_764_244_800_123, 1_764_244_845_000]) {
        const beat = beatOf(now, period)
        const start = beatStart(beat, period)
        assert.isAtMost(start, now)
        assert.isAbove(start + period, now)
        assert.strictEqual(nextBeatAt(now, period), start + period)
        assert.strictEqual(beatOf(nextBeatAt(now, period), period), beat + 1n)
      }
    }
  })

  it("sub-second periods (the webhook dispatcher's 500 ms) work the same", () => {
    const times = firings(500, 1_000_250, 1_003_000)
    assert.deepStrictEqual(times, [1_000_500, 1_001_000, 1_001_500, 1_002_000, 1_002_500])
  })
})
