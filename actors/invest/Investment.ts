/**
 * An investment's record and vocabulary (CONTRACT C17): states and their names, flags, settings, and the
 * exact money rules — the managed accrual, the early-close penalty, accrual boundaries and the next due
 * time. Pure; Engine.ts (the state machine) re-exports it.
 *
 * Money: bigint minor units. The managed accrual is exact: ratePct (≤ 8 decimals) is scaled to an
 * integer by 10^8, so accrued(t) = floor(P × rate × 10^8 × (t − activatedAt) / (100 × 31 536 000 000 × 10^8)).
 */
export const InvestState = {
  Created: 1,
  Activated: 2,
  ReceivedEarlyCloseRequest: 4,
  ProfitCalculated: 8,
  Closed: 128
} as const
export type InvestState = (typeof InvestState)[keyof typeof InvestState]

export const investStateName = (state: number): string =>
  Object.entries(InvestState).find(([, value]) => value === state)?.[0] ?? "Unknown"

/** flags: EarlyCloseAllowed. */
export const EarlyCloseAllowed = 1

export const YEAR_MS = 31_536_000_000n
const RATE_SCALE = 100_000_000n

/** An investment as the engine sees it (times in epoch milliseconds). */
export interface Investment {
  readonly timetick: bigint
  readonly walletId: bigint
  readonly currency: string
  readonly state: number
  readonly flags: number
  readonly amount: bigint
  readonly profit: bigint
  readonly ratePct: string
  readonly dateEnd: number
  readonly activatedAt: number | null
  readonly closedAt: number | null
  readonly penalty: bigint
  readonly closeTx: bigint | null
  readonly version: bigint
}

export interface Settings {
  readonly mode: "push" | "managed"
  /** INVEST_ACCRUAL_SECONDS in ms. */
  readonly accrualMs: number
  /** INVEST_EARLY_CLOSE_PENALTY_PCT: a decimal 0..100 of at most 8 places ("0.5"). */
  readonly penaltyPct: string
}

/** ratePct (decimal text, ≤ 8 decimals) × 10^8 as an exact integer; undefined when not such a decimal. */
export const scaledRate = (ratePct: string): bigint | undefined => {
  const match = /^([0-9]+)(?:\.([0-9]{1,8}))?$/.exec(ratePct)
  if (match === null) return undefined
  return BigInt(match[1]!) * RATE_SCALE + BigInt((match[2] ?? "").padEnd(8, "0"))
}

/** C17's accrual: floor(amount × ratePct × (t − activatedAt) / (100 × 31 536 000 000)), 0 before activation. */
export const accrued = (amount: bigint, ratePct: string, activatedAt: number, t: number): bigint => {
  const rate = scaledRate(ratePct)
  if (rate === undefined) throw new Error(`invariant: ratePct ${ratePct} is not a decimal of ≤ 8 places`)
  const elapsed = BigInt(Math.max(0, Math.floor(t) - Math.floor(activatedAt)))
  return (amount * rate * elapsed) / (100n * YEAR_MS * RATE_SCALE)
}

/** principal × pct / 100 rounded up to minor units, exact for a decimal pct of ≤ 8 places. */
export const penaltyOf = (amount: bigint, pct: string): bigint => {
  const scaled = scaledRate(pct)
  if (scaled === undefined) throw new Error(`invariant: penalty pct ${pct} is not a decimal of ≤ 8 places`)
  const divisor = 100n * RATE_SCALE
  return (amount * scaled + divisor - 1n) / divisor
}

/** The last accrual boundary at or before `t` (activatedAt itself when none passed). */
export const lastBoundary = (activatedAt: number, periodMs: number, t: number): number =>
  activatedAt + Math.floor(Math.max(0, t - activatedAt) / periodMs) * periodMs

/** When the investment next needs the service: a boundary (managed) or dateEnd; now for a half-closed one; null when Closed. */
export const dueAtOf = (inv: Investment, settings: Settings, now: number): number | null => {
  switch (inv.state) {
    case InvestState.Created:
      return inv.dateEnd
    case InvestState.Activated: {
      if (settings.mode === "push" || inv.activatedAt === null) return inv.dateEnd
      const next = lastBoundary(inv.activatedAt, settings.accrualMs, now) + settings.accrualMs
      return Math.min(next, inv.dateEnd)
    }
    case InvestState.Closed:
      return null
    default:
      return now
  }
}
