/**
 * The investment's pure state machine (CONTRACT C17 "States"): what each trigger does to an investment
 * and which ledger operation records it. No I/O: times, new transaction ids and settings come in as
 * arguments, so the property tests drive it directly (test/unit/invest-engine.test.ts).
 *
 * The record, settings and money rules (accrual, penalty, boundaries, due time) are in Investment.ts,
 * re-exported here.
 *
 * Two-step closes: entering ProfitCalculated 8 or ReceivedEarlyCloseRequest 4 moves no principal (only
 * managed mode's final PaymentInvest, or no money at all: the row change then rides the CreateInvest
 * transaction 8 → 8); entering Closed 128 records the CloseInvest / EarlyCloseInvest transaction Finished
 * (txState 8, C17) with the principal's release. Each step
 * is one commit carrying the investment's conditional update (state and version), so of two triggers
 * racing from one state exactly one commits.
 */
import {
  Bucket,
  type LedgerOperation,
  type Posting,
  rowsOf,
  SystemWallet,
  type TxTransition
} from "../../sql/Ledger.ts"
import { type InvestmentInsert, InvestmentInserts, InvestmentUpdates } from "../../sql/rows/InvestmentRows.ts"
import { TxType } from "../../schema/Transfer.ts"

import {
  accrued,
  dueAtOf,
  EarlyCloseAllowed,
  InvestState,
  type Investment,
  investStateName,
  lastBoundary,
  penaltyOf,
  type Settings
} from "./Investment.ts"

export * from "./Investment.ts"

export type Rejection = "StateConflict" | "EarlyCloseNotAllowed" | "ProfitBelowCredited"

/** A decision: nothing to do, a refusal, or one commit and the investment it leaves. */
export type Decision =
  | { readonly _tag: "Nothing" }
  | { readonly _tag: "Reject"; readonly rule: Rejection }
  | {
      readonly _tag: "Commit"
      readonly operation: LedgerOperation
      readonly after: Investment
      /** The PaymentInvest credited by this commit (0 when none) and its transaction id. */
      readonly credited: bigint
      readonly creditTx: bigint | null
    }

const nothing: Decision = { _tag: "Nothing" }
const reject = (rule: Rejection): Decision => ({ _tag: "Reject", rule })

const post = (walletId: bigint, currency: string, bucket: Bucket, delta: bigint): Posting => ({
  walletId,
  currency,
  bucket,
  delta
})

const finishedTx = (
  id: bigint,
  typeTx: number,
  inv: Investment,
  amount: bigint,
  fee: bigint,
  txState: number,
  walletFrom: bigint = inv.walletId
) => ({
  id,
  typeTx,
  txState,
  walletFrom,
  walletTo: inv.walletId,
  currency: inv.currency,
  amount,
  fee,
  tag: null,
  appId: null,
  externalId: null,
  requestHash: null
})

/** The PaymentInvest crediting `amount` to the wallet's free balance from the Treasury. */
const paymentOperation = (inv: Investment, txId: bigint, amount: bigint): LedgerOperation => ({
  tx: finishedTx(txId, TxType.PaymentInvest, inv, amount, 0n, 8, SystemWallet.Treasury),
  postings: [
    post(SystemWallet.Treasury, inv.currency, Bucket.free, -amount),
    post(inv.walletId, inv.currency, Bucket.free, amount)
  ]
})

const event = (inv: Investment, kind: string, state: number) => ({
  kind,
  walletId: inv.walletId,
  payload: { investmentId: String(inv.timetick), state, stateName: investStateName(state) }
})

/** The investment's conditional update row from `before` to `after`, entering `entered` at `at`. */
const updateRow = (
  before: Investment,
  after: Investment,
  entered: ReadonlyArray<number>,
  at: number,
  closeTx: bigint | null,
  creditTx: bigint | null = null
) =>
  rowsOf(InvestmentUpdates, [
    {
      timetick: before.timetick,
      fromState: before.state,
      fromVersion: before.version,
      state: after.state,
      profit: after.profit,
      penalty: after.penalty,
      activatedAt: after.activatedAt === null ? null : new Date(after.activatedAt),
      closedAt: after.closedAt === null ? null : new Date(after.closedAt),
      dueAt: null as Date | null,
      added: JSON.stringify(entered.map((state) => ({ state, at: new Date(at).toISOString() }))),
      closeTx,
      creditTx
    }
  ])

/** Adds the due time to an update row (known only once `after` is). */
const withDue = (op: LedgerOperation, due: number | null): LedgerOperation => ({
  ...op,
  rows: op.rows!.map((k) =>
    k.kind === InvestmentUpdates
      ? rowsOf(
          InvestmentUpdates,
          k.rows.map((r: any) => ({ ...r, dueAt: due === null ? null : new Date(due) }))
        )
      : k
  )
})

/**
 * A move of the investment's own state with an optional profit credit: when `credit` > 0 the commit is
 * that PaymentInvest carrying the update row; else the row rides a transition of the CreateInvest
 * transaction onto its own state (8 → 8, no money), as activation does.
 */
const commitOf = (
  before: Investment,
  after: Investment,
  entered: ReadonlyArray<number>,
  now: number,
  settings: Settings,
  credit: { readonly txId: bigint; readonly amount: bigint } | null
): Decision => {
  const credited = credit !== null && credit.amount > 0n ? credit : null
  const row = updateRow(before, after, entered, now, null, credited?.txId ?? null)
  const events = [event(before, "InvestmentChanged", after.state)]
  const operation: LedgerOperation =
    credited !== null
      ? { ...paymentOperation(before, credited.txId, credited.amount), rows: [row], events }
      : { transition: { id: before.timetick, from: 8, to: 8 }, postings: [], rows: [row], events }
  return {
    _tag: "Commit",
    operation: withDue(operation, dueAtOf(after, settings, now)),
    after,
    credited: credited?.amount ?? 0n,
    creditTx: credited?.txId ?? null
  }
}

/** A move of the investment's own state carried by a transition of one of its transactions (no credit). */
const transitionCommit = (
  before: Investment,
  after: Investment,
  now: number,
  settings: Settings,
  transition: TxTransition,
  postings: ReadonlyArray<Posting>
): Decision => ({
  _tag: "Commit",
  operation: withDue(
    {
      transition,
      postings,
      rows: [updateRow(before, after, [after.state], now, null)],
      events: [event(before, "InvestmentChanged", after.state)]
    },
    dueAtOf(after, settings, now)
  ),
  after,
  credited: 0n,
  creditTx: null
})

/** The creation commit (CreateInvest, id = the timetick): free −P, lock_orders +P; the row inserted. */
export const creationOperation = (row: InvestmentInsert): LedgerOperation => ({
  tx: {
    id: row.timetick,
    typeTx: TxType.CreateInvest,
    txState: 8,
    walletFrom: row.walletId,
    walletTo: row.walletId,
    currency: row.currency,
    amount: row.amount,
    fee: 0n,
    tag: row.tag,
    appId: null,
    externalId: null,
    requestHash: null
  },
  postings: [
    post(row.walletId, row.currency, Bucket.free, -row.amount),
    post(row.walletId, row.currency, Bucket.lockOrders, row.amount)
  ],
  rows: [rowsOf(InvestmentInserts, [row])],
  events: [
    {
      kind: "InvestmentChanged",
      walletId: row.walletId,
      payload: { investmentId: String(row.timetick), state: row.state, stateName: investStateName(row.state) }
    }
  ]
})

/**
 * Created → Activated (activatedAt = now). No money moves: the row change rides a transition of the
 * CreateInvest transaction onto its own state (8 → 8), which changes no balance.
 */
export const activate = (inv: Investment, now: number, settings: Settings): Decision => {
  if (inv.state !== InvestState.Created || now >= inv.dateEnd) return reject("StateConflict")
  const after: Investment = { ...inv, state: InvestState.Activated, activatedAt: now, version: inv.version + 1n }
  return transitionCommit(inv, after, now, settings, { id: inv.timetick, from: 8, to: 8 }, [])
}

/** Push mode: the investment's profit total becomes `profit` (C17 "Profits"). */
export const pushProfit = (
  inv: Investment,
  profit: bigint,
  now: number,
  settings: Settings,
  txId: bigint
): Decision => {
  if (inv.state !== InvestState.Activated || now >= inv.dateEnd) return reject("StateConflict")
  if (profit < inv.profit) return reject("ProfitBelowCredited")
  if (profit === inv.profit) return nothing
  const after: Investment = { ...inv, profit, version: inv.version + 1n }
  return commitOf(inv, after, [], now, settings, { txId, amount: profit - inv.profit })
}

/** Managed mode: what the accrual owes up to time `t` beyond what the investment shows. */
const owed = (inv: Investment, t: number): bigint =>
  inv.activatedAt === null ? 0n : accrued(inv.amount, inv.ratePct, inv.activatedAt, t) - inv.profit

/**
 * What time does to the investment at `now` (the sweep or a timer asks): a managed boundary's credit,
 * maturity's first step (ProfitCalculated, or Closed at once from Created), or finishing a half-closed
 * investment. `ids` gives fresh transaction ids (called only for transactions the decision records).
 */
export const onTime = (inv: Investment, now: number, settings: Settings, ids: () => bigint): Decision => {
  switch (inv.state) {
    case InvestState.Created: {
      if (now < inv.dateEnd) return nothing
      // Created matures without profit: CloseInvest opened and finished in one commit.
      const txId = ids()
      const after: Investment = { ...inv, state: InvestState.Closed, closedAt: now, version: inv.version + 1n }
      const row = updateRow(inv, after, [InvestState.Closed], now, txId)
      const operation: LedgerOperation = {
        tx: finishedTx(txId, TxType.CloseInvest, inv, inv.amount, 0n, 8),
        postings: release(inv, 0n),
        rows: [row],
        events: [event(inv, "InvestmentChanged", after.state)]
      }
      return { _tag: "Commit", operation: withDue(operation, null), after, credited: 0n, creditTx: null }
    }
    case InvestState.Activated: {
      if (now >= inv.dateEnd) {
        const credit = settings.mode === "managed" ? owed(inv, inv.dateEnd) : 0n
        const creditTx = credit > 0n ? ids() : 0n
        const after: Investment = {
          ...inv,
          state: InvestState.ProfitCalculated,
          profit: credit > 0n ? inv.profit + credit : inv.profit,
          version: inv.version + 1n
        }
        return commitOf(inv, after, [InvestState.ProfitCalculated], now, settings, { txId: creditTx, amount: credit })
      }
      if (settings.mode !== "managed" || inv.activatedAt === null) return nothing
      const boundary = lastBoundary(inv.activatedAt, settings.accrualMs, now)
      const credit = owed(inv, boundary)
      if (credit <= 0n) return nothing
      const after: Investment = { ...inv, profit: inv.profit + credit, version: inv.version + 1n }
      return commitOf(inv, after, [], now, settings, { txId: ids(), amount: credit })
    }
    case InvestState.ProfitCalculated:
    case InvestState.ReceivedEarlyCloseRequest:
      return finish(inv, now, ids)
    default:
      return nothing
  }
}

/** The principal's release: lock_orders −P, free +(P − penalty), Fees +penalty. */
const release = (inv: Investment, penalty: bigint): Array<Posting> => [
  post(inv.walletId, inv.currency, Bucket.lockOrders, -inv.amount),
  post(inv.walletId, inv.currency, Bucket.free, inv.amount - penalty),
  ...(penalty > 0n ? [post(SystemWallet.Fees, inv.currency, Bucket.free, penalty)] : [])
]

/**
 * ProfitCalculated / ReceivedEarlyCloseRequest → Closed: the close transaction (CloseInvest, or
 * EarlyCloseInvest with `fee` = the penalty) recorded Finished with the principal's release (C17:
 * txState 8 when committed).
 */
const finish = (inv: Investment, now: number, ids: () => bigint): Decision => {
  const early = inv.state === InvestState.ReceivedEarlyCloseRequest
  const penalty = early ? inv.penalty : 0n
  if (inv.closeTx !== null) {
    // Half-closed by an earlier build, which opened the close transaction (txState 1): finish that one.
    const after: Investment = { ...inv, state: InvestState.Closed, closedAt: now, version: inv.version + 1n }
    const transition = { id: inv.closeTx, from: 1, to: 8 }
    return transitionCommit(
      inv,
      after,
      now,
      { mode: "push", accrualMs: 1, penaltyPct: "0" },
      transition,
      release(inv, penalty)
    )
  }
  const txId = ids()
  const after: Investment = {
    ...inv,
    state: InvestState.Closed,
    closedAt: now,
    closeTx: txId,
    version: inv.version + 1n
  }
  const operation: LedgerOperation = {
    tx: finishedTx(txId, early ? TxType.EarlyCloseInvest : TxType.CloseInvest, inv, inv.amount, penalty, 8),
    postings: release(inv, penalty),
    rows: [updateRow(inv, after, [InvestState.Closed], now, txId)],
    events: [event(inv, "InvestmentChanged", after.state)]
  }
  return { _tag: "Commit", operation: withDue(operation, null), after, credited: 0n, creditTx: null }
}

/**
 * return_investment's first step: Activated → ReceivedEarlyCloseRequest, the penalty fixed, managed mode
 * crediting the boundaries up to now first (the accrual since the last boundary is forfeit).
 */
export const earlyClose = (inv: Investment, now: number, settings: Settings, ids: () => bigint): Decision => {
  if (inv.state !== InvestState.Activated || now >= inv.dateEnd) return reject("StateConflict")
  if ((inv.flags & EarlyCloseAllowed) === 0) return reject("EarlyCloseNotAllowed")
  const credit =
    settings.mode === "managed" && inv.activatedAt !== null
      ? owed(inv, lastBoundary(inv.activatedAt, settings.accrualMs, now))
      : 0n
  const penalty = penaltyOf(inv.amount, settings.penaltyPct)
  const creditTx = credit > 0n ? ids() : 0n
  const after: Investment = {
    ...inv,
    state: InvestState.ReceivedEarlyCloseRequest,
    profit: credit > 0n ? inv.profit + credit : inv.profit,
    penalty,
    version: inv.version + 1n
  }
  return commitOf(inv, after, [InvestState.ReceivedEarlyCloseRequest], now, settings, {
    txId: creditTx,
    amount: credit
  })
}

/** The investment a committed decision leaves (for callers chaining steps). */
export const afterCommit = (decision: Decision & { _tag: "Commit" }): Investment => decision.after
