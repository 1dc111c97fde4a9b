/** The ledger audit's verdict (CONTRACT C6), the same over HTTP (`ledger_audit`) and in process (LedgerAudit). */
import { assert } from "@effect/vitest"

export interface AuditReport {
  readonly sums: ReadonlyArray<{ readonly currency: string; readonly total: string }>
  readonly negativeUserBuckets: number
  readonly orphanRows: number
}

/** Every currency sums to "0", no user bucket is negative, no row lacks its transaction, wallet or currency. */
export const assertAuditSound = (report: AuditReport, where = "ledger"): void => {
  for (const row of report.sums) assert.strictEqual(row.total, "0", `${where}: Σ ${row.currency}`)
  assert.strictEqual(report.negativeUserBuckets, 0, `${where}: negative user buckets`)
  assert.strictEqual(report.orphanRows, 0, `${where}: rows without their transaction, wallet or currency`)
}
