/**
 * The periodic jobs' beats (issue #22 item 16): a job of period P ms has beat b = floor(epoch_ms / P),
 * starting at b × P. Beats are counted from the epoch, not from the minute, so "every N seconds" is every
 * N seconds for any N: 45 s beats at …:00:00, …:00:45, …:01:30, …, never at both :00 and :45 of one
 * minute (a cron `*\/45` fires at :00 and :45). Every process computes the same beats; which one runs a
 * beat's pass is decided by its lease (src/platform/PeriodicJob.ts).
 */

/** The beat that time `epochMs` falls in. */
export const beatOf = (epochMs: number, periodMs: number): bigint => BigInt(Math.floor(epochMs / periodMs))

/** When beat `beat` starts (epoch ms). */
export const beatStart = (beat: bigint, periodMs: number): number => Number(beat) * periodMs

/** The start of the first beat after the one `epochMs` falls in. */
export const nextBeatAt = (epochMs: number, periodMs: number): number => (Math.floor(epochMs / periodMs) + 1) * periodMs
