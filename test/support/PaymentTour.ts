/**
 * The balance table of the payment state-table tour (test/integration/payments-state-table-*.test.ts):
 * named columns — a user wallet's buckets in one currency, or a system wallet's (Treasury −1, Fees −2,
 * Broker −3) — read before a step and after it; every bucket that can move (free, lock_in, lock_out) of
 * every column must have moved by exactly what the step names (0 where it names nothing), then the
 * ledger audit must be sound.
 *
 * User wallets are read over HTTP (get_balance of their own session). System wallets have no HTTP read
 * (no session; wallet_info_get has no buckets), so on a real PostgreSQL (DATABASE_URL) their rows of
 * `balances` are read by SQL from the service's database; on the embedded PGlite (the service process
 * holds it) those columns are skipped, loudly, and only the audit's Σ = 0 per currency covers them.
 */
import { assert } from "@effect/vitest"
import { BigNumber } from "bignumber.js"
import type { Party, TestClient } from "./Client.ts"
import { withDatabase } from "./Postgres.ts"
import type { RunningService } from "./Service.ts"

export const SYSTEM = { Treasury: "-1", Fees: "-2", Broker: "-3" } as const
type SystemName = keyof typeof SYSTEM

/** Catalogue decimals of the currencies the tour uses (C7). */
const DECIMALS: Record<string, number> = { USDT: 6, USDC: 6, ETH: 18, BTC: 8, EUR: 2 }

export interface Column {
  readonly name: string
  readonly who: Party | SystemName
  readonly currency: string
}

export interface Moves {
  readonly free?: string
  readonly lockIn?: string
  readonly lockOut?: string
}

type Reading = Record<keyof Moves, BigNumber>
const buckets = ["free", "lockIn", "lockOut"] as const

let warned = false

export const makeTour = (client: TestClient, service: () => RunningService) => {
  const systemReadings = async (): Promise<Map<string, Reading> | null> => {
    const url = service().databaseUrl
    if (url === undefined) {
      if (!warned) process.stderr.write("\n*** Treasury, Fees and Broker columns not read (embedded PGlite)\n")
      warned = true
      return null
    }
    const rows = await withDatabase(
      url,
      (sql) => sql<{ wallet: string; currency: string; free: string; lockIn: string; lockOut: string }>`
        SELECT wallet_id::text AS wallet, currency, free::text AS free, lock_in::text AS "lockIn",
               lock_out::text AS "lockOut"
        FROM balances WHERE wallet_id IN (-1, -2, -3)`
    )
    const out = new Map<string, Reading>()
    for (const r of rows) {
      const d = DECIMALS[r.currency] ?? 0
      out.set(`${r.wallet}/${r.currency}`, {
        free: new BigNumber(r.free).shiftedBy(-d),
        lockIn: new BigNumber(r.lockIn).shiftedBy(-d),
        lockOut: new BigNumber(r.lockOut).shiftedBy(-d)
      })
    }
    return out
  }

  const zero = (): Reading => ({ free: new BigNumber(0), lockIn: new BigNumber(0), lockOut: new BigNumber(0) })

  /** Every column's buckets now (a system column is absent on PGlite). */
  const read = async (columns: ReadonlyArray<Column>): Promise<Map<string, Reading>> => {
    const system = columns.some((c) => typeof c.who === "string") ? await systemReadings() : null
    const out = new Map<string, Reading>()
    for (const c of columns) {
      if (typeof c.who === "string") {
        if (system !== null) out.set(c.name, system.get(`${SYSTEM[c.who]}/${c.currency}`) ?? zero())
        continue
      }
      const b = await client.bucketsOf(c.who, c.currency)
      out.set(c.name, {
        free: new BigNumber(b.free),
        lockIn: new BigNumber(b.lockIn),
        lockOut: new BigNumber(b.lockOut)
      })
    }
    return out
  }

  /**
   * A tour over these columns: `step(label, moves)` asserts every column moved by `moves[name]` since the
   * previous step (nothing where unnamed) and the ledger audit.
   */
  const start = async (columns: ReadonlyArray<Column>) => {
    let last = await read(columns)
    const step = async (label: string, moves: Record<string, Moves> = {}) => {
      for (const name of Object.keys(moves))
        assert.isTrue(
          columns.some((c) => c.name === name),
          `${label}: no column ${name}`
        )
      const now = await read(columns)
      for (const [name, reading] of now) {
        const before = last.get(name)!
        for (const b of buckets) {
          const moved = reading[b].minus(before[b])
          const want = new BigNumber(moves[name]?.[b] ?? "0")
          assert.isTrue(moved.eq(want), `${label}: ${name} ${b} moved ${moved.toFixed()}, expected ${want.toFixed()}`)
        }
      }
      last = now
      await client.assertLedgerSound(label)
    }
    return { step }
  }

  return { start }
}

/** The order's state triple as C16's table names it. */
export const assertState = (
  order: { state: string; stateCode: number; txState: number },
  state: string,
  stateCode: number,
  txState: number,
  label = state
) => assert.deepInclude({ ...order }, { state, stateCode, txState }, label)
