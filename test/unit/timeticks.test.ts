/**
 * makeTickSource of src/TimeTicks.ts (CONTRACT C5): ids strictly increase however fast they are
 * drawn, encode their creation time to the microsecond (microsOfTimetick / dateOfTimetick read it
 * back close to now) and their runner, so two runners never collide. No service is started.
 */
import { assert, describe, it } from "@effect/vitest"
import { dateOfTimetick, makeTickSource, microsOfTimetick, timetickOf } from "../../src/platform/TimeTicks.ts"

const nowMicros = () => BigInt(Date.now()) * 1000n

describe("makeTickSource", () => {
  it("is strictly increasing over 100k calls", () => {
    const next = makeTickSource(3)
    let last = next()
    for (let i = 0; i < 100_000; i++) {
      const tick = next()
      if (tick <= last) assert.fail(`tick ${i}: ${tick} <= ${last}`)
      last = tick
    }
  })

  it("encodes the creation time: microsOfTimetick is close to now", () => {
    const next = makeTickSource(0)
    const before = nowMicros()
    const ticks = Array.from({ length: 10_000 }, () => next())
    const after = nowMicros()
    for (const tick of [ticks[0], ticks[ticks.length - 1]]) {
      const micros = microsOfTimetick(tick)
      // Within a few ms of the wall clock (the sequence may run the clock a little ahead under load).
      assert.isTrue(micros >= before - 5_000n, `${micros} < ${before}`)
      assert.isTrue(micros <= after + 200_000n, `${micros} > ${after}`)
    }
    const date = dateOfTimetick(ticks[0])
    assert.isTrue(Math.abs(date.getTime() - Date.now()) < 5_000)
  })

  it("carries its runner number, so sources of different runners never collide", () => {
    const a = makeTickSource(1)
    const b = makeTickSource(2)
    const seen = new Set<bigint>()
    for (let i = 0; i < 20_000; i++) {
      for (const [tick, runner] of [
        [a(), 1n],
        [b(), 2n]
      ] as const) {
        assert.strictEqual((tick / 64n) % 16n, runner)
        if (seen.has(tick)) assert.fail(`duplicate ${tick}`)
        seen.add(tick)
      }
    }
  })

  it("timetickOf lays out micros × 1024 + runner × 64 + sequence", () => {
    assert.strictEqual(timetickOf(1_000_000n, 0, 0), 1_024_000_000n)
    assert.strictEqual(timetickOf(1n, 15, 63), 1024n + 15n * 64n + 63n)
    assert.strictEqual(microsOfTimetick(timetickOf(1_732_260_000_000_000n, 7, 5)), 1_732_260_000_000_000n)
  })
})
