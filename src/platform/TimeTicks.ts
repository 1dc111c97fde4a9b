/**
 * Timetick ids (CONTRACT C5): unique, increasing with time, encoding the creation time to the
 * microsecond. Layout: microseconds since the Unix epoch × 1024 + runner (4 bits) × 64 +
 * sequence (6 bits). Within one runner ids strictly increase; runners (numbered at start from a
 * database sequence) never collide.
 */
import { Context, Effect, Layer } from "effect"
import { nextRunnerNumber } from "../../sql/SystemRepo.ts"

export const timetickOf = (micros: bigint, runner: number, sequence: number): bigint =>
  micros * 1024n + BigInt(runner) * 64n + BigInt(sequence)

export const microsOfTimetick = (tick: bigint): bigint => tick / 1024n

export const dateOfTimetick = (tick: bigint): Date => new Date(Number(tick / 1024n / 1000n))

export const makeTickSource = (runner: number) => {
  let lastMicros = 0n
  let sequence = 0
  const nowMicros = (): bigint => BigInt(Math.floor((performance.timeOrigin + performance.now()) * 1000))
  return (): bigint => {
    let micros = nowMicros()
    if (micros <= lastMicros) {
      micros = lastMicros
      sequence++
      if (sequence >= 64) {
        micros = lastMicros + 1n
        sequence = 0
      }
    } else {
      sequence = 0
    }
    lastMicros = micros
    return timetickOf(micros, runner, sequence)
  }
}

export class TimeTicks extends Context.Service<TimeTicks, { readonly next: () => bigint; readonly runner: number }>()(
  "core/TimeTicks"
) {
  static readonly layer = Layer.effect(
    TimeTicks,
    Effect.gen(function* () {
      const runner = Number((yield* Effect.orDie(nextRunnerNumber)) % 16n)
      return TimeTicks.of({ next: makeTickSource(runner), runner })
    })
  )
}
