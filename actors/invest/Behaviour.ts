/**
 * The investment actor (CONTRACT C17): loads its row, asks the pure engine (Engine.ts), and commits the
 * decision as one ledger commit carrying the investment's conditional update. Creation debits free
 * money, so it goes through the wallet's actor (CommitWithDebit); every later step only credits or
 * releases what the investment itself locked, so it is committed here. A commit that loses a race
 * (LC409: another process's actor, or the sweep and a request) is decided again on the fresh row.
 */
import { Clock, DateTime, Effect, Result } from "effect"
import { Entity } from "effect/cluster"
import { investmentRow, type InvestmentRow, setInvestmentDue } from "../../sql/InvestmentRepo.ts"
import {
  EarlyCloseNotAllowed,
  InvestmentNotFound,
  InvestmentStateConflict,
  ProfitBelowCredited
} from "../../schema/InvestErrors.ts"
import { AppConfigService, limits } from "../../src/platform/Config.ts"
import { answerDefects } from "../../src/platform/ActorFailures.ts"
import { commitDecision, LostRace } from "../../src/platform/CommitDecision.ts"
import { makeDb } from "../../src/platform/db/Sql.ts"
import { delivered } from "../../src/platform/Delivery.ts"
import { LedgerWriter } from "../../src/platform/LedgerWriter.ts"
import { TimeTicks } from "../../src/platform/TimeTicks.ts"
import { WalletEntity } from "../wallet/Protocol.ts"
import {
  activate,
  creationOperation,
  type Decision,
  dueAtOf,
  earlyClose,
  type Investment,
  InvestState,
  onTime,
  pushProfit,
  type Rejection,
  type Settings
} from "./Engine.ts"
import { InvestmentEntity, InvestTimer } from "./Protocol.ts"

type StepError = InvestmentNotFound | InvestmentStateConflict | EarlyCloseNotAllowed | ProfitBelowCredited

export const investmentOfRow = (row: InvestmentRow): Investment => ({
  timetick: row.timetick,
  walletId: row.walletId,
  currency: row.currency,
  state: row.state,
  flags: row.flags,
  amount: row.amount,
  profit: row.profit,
  ratePct: row.ratePct,
  dateEnd: row.dateEnd.getTime(),
  activatedAt: row.activatedAt?.getTime() ?? null,
  closedAt: row.closedAt?.getTime() ?? null,
  penalty: row.penalty,
  closeTx: row.closeTx,
  version: row.version
})

const rejection = (rule: Rejection, id: string): StepError => {
  switch (rule) {
    case "StateConflict":
      return new InvestmentStateConflict({ message: `investment ${id}: its state does not take this action` })
    case "EarlyCloseNotAllowed":
      return new EarlyCloseNotAllowed({ message: `investment ${id}: flags lack EarlyCloseAllowed` })
    case "ProfitBelowCredited":
      return new ProfitBelowCredited({ message: `profit: below what investment ${id} already shows` })
  }
}

/** The in-process half of a timer is armed only for due times this close (longer ones: the durable half). */
const inProcessWaitMaxMs = 3_600_000

/** A lost race is decided again on the freshly read row this many times (then a defect: 500). */
const raceRetriesMax = 5

export const InvestmentEntityLayer = InvestmentEntity.toLayer(
  Effect.gen(function* () {
    const id = (yield* Entity.CurrentAddress).entityId
    const db = yield* makeDb
    const ledger = yield* LedgerWriter
    const ticks = yield* TimeTicks
    const config = yield* AppConfigService
    // Every "is it due" here reads effect's Clock (the wall clock in the service; TestClock in
    // test/actors/job-passes-invest.test.ts), so the time the sweep selects by is the time the actor decides by.
    const clock = yield* Clock.Clock
    const walletActor = yield* WalletEntity.client
    const self = (yield* InvestmentEntity.client)(id)
    const settings: Settings = {
      mode: config.investProfitMode,
      accrualMs: config.investAccrualSeconds * 1000,
      penaltyPct: config.investEarlyClosePenaltyPct
    }

    const load = Effect.flatMap(db(investmentRow(id)), (row) =>
      row === undefined
        ? Effect.fail(new InvestmentNotFound({ message: `timetick: no investment ${id}` }))
        : Effect.succeed(investmentOfRow(row))
    )

    /**
     * Arms the investment's timer for its next due time: the durable one (a persisted DeliverAt message,
     * delivered within the storage's 1 s poll, across restarts) and, while this process runs, an
     * in-process sleep that sends `Due` on the millisecond (so maturity does not wait for a poll or a beat
     * on a loaded machine). The 1 s sweep stays the backstop: a timer lost between the commit and this
     * send is found by it. Failures only log.
     */
    const arm = (due: number | null) =>
      due === null
        ? Effect.void
        : Effect.gen(function* () {
            yield* self
              .Timer(new InvestTimer({ timetick: id, dueAt: DateTime.makeUnsafe(due) }), { discard: true })
              .pipe(Effect.ignoreCause({ log: "Warn" }))
            const wait = due - clock.currentTimeMillisUnsafe()
            if (wait <= inProcessWaitMaxMs)
              yield* Effect.forkDetach(
                Effect.sleep(Math.max(0, wait)).pipe(Effect.andThen(self.Due({})), Effect.ignoreCause)
              )
          })

    /**
     * Decides on the stored row and commits; a lost race (StateConflict) decides again on the fresh row.
     * Answers the last decision (Nothing when the engine had nothing to do).
     */
    const step = (decide: (inv: Investment, now: number) => Decision): Effect.Effect<Decision, StepError> =>
      commitDecision({
        subject: `investment ${id}`,
        load,
        decide: (inv): Result.Result<Decision, StepError> => {
          const decision = decide(inv, clock.currentTimeMillisUnsafe())
          return decision._tag === "Reject" ? Result.fail(rejection(decision.rule, id)) : Result.succeed(decision)
        },
        commit: (decision): Effect.Effect<Decision, LostRace> =>
          decision._tag !== "Commit"
            ? Effect.succeed(decision)
            : ledger.commit(decision.operation).pipe(
                Effect.catchTag("StateConflict", () => Effect.fail(new LostRace({}))),
                Effect.catchTag(["Duplicate", "ConstraintViolated", "LedgerRefused"], Effect.die),
                Effect.tap(() => {
                  const due = dueAtOf(decision.after, settings, clock.currentTimeMillisUnsafe())
                  return due !== null && due > clock.currentTimeMillisUnsafe() ? arm(due) : Effect.void
                }),
                Effect.as(decision)
              ),
        retries: raceRetriesMax
      }).pipe(Effect.catchTag("DecisionContended", Effect.die))

    /** Time passed with nothing to commit: the stored due time moves on to the next one (and its timer is armed). */
    const advanceDue = Effect.gen(function* () {
      const row = yield* db(investmentRow(id))
      if (row === undefined) return
      const now = clock.currentTimeMillisUnsafe()
      const due = dueAtOf(investmentOfRow(row), settings, now)
      if (due === (row.dueAt?.getTime() ?? null)) return
      yield* db(setInvestmentDue(id, row.version, due === null ? null : new Date(due)))
      if (due !== null && due > now) yield* arm(due)
    })

    /** Runs time's steps until nothing is left to do now (a half-closed investment finishes at once). */
    const settle = Effect.gen(function* () {
      for (let i = 0; i < 4; i++) {
        const decision = yield* step((inv, now) => onTime(inv, now, settings, ticks.next))
        if (decision._tag !== "Commit") return yield* advanceDue
      }
    })

    return InvestmentEntity.of({
      CreateInvestment: Effect.fnUntraced(function* ({ payload }) {
        const now = clock.currentTimeMillisUnsafe()
        const timetick = BigInt(id)
        const state = payload.state
        const base: Investment = {
          timetick,
          walletId: payload.walletId,
          currency: payload.currency,
          state,
          flags: payload.flags,
          amount: payload.amount,
          profit: payload.profit,
          ratePct: payload.ratePct,
          dateEnd: payload.dateEnd.getTime(),
          activatedAt: state === InvestState.Activated ? now : null,
          closedAt: null,
          penalty: 0n,
          closeTx: null,
          version: 0n
        }
        const at = new Date(now).toISOString()
        const operation = creationOperation({
          timetick,
          walletId: payload.walletId,
          currency: payload.currency,
          investmentType: payload.investmentType,
          state,
          flags: payload.flags,
          amount: payload.amount,
          profit: payload.profit,
          ratePct: payload.ratePct,
          dateEnd: payload.dateEnd,
          tag: payload.tag,
          createdAt: new Date(now),
          activatedAt: base.activatedAt === null ? null : new Date(now),
          ownerId: payload.ownerId,
          externalId: payload.externalId,
          requestHash: payload.requestHash,
          // C17: `transitions` lists the states entered; created Activated, it never was Created.
          transitions: JSON.stringify([{ state, at }]),
          dueAt: new Date(dueAtOf(base, settings, now)!),
          openMax: config.investMaxOpenPerWallet
        })
        yield* delivered(
          walletActor(String(payload.walletId)).CommitInvestmentCreation({
            currency: payload.currency,
            debit: payload.amount,
            operation
          })
        ).pipe(
          Effect.catchTag("NonceExists", () =>
            Effect.fail(new InvestmentStateConflict({ message: "externalId: taken meanwhile by another creation" }))
          )
        )
        yield* arm(dueAtOf(base, settings, now))
      }),
      ActivateInvestment: () => Effect.asVoid(step((inv, now) => activate(inv, now, settings))),
      PushProfit: Effect.fnUntraced(function* ({ payload }) {
        const decision = yield* step((inv, now) => pushProfit(inv, payload.profit, now, settings, ticks.next()))
        if (decision._tag === "Commit")
          return {
            profitMinor: String(decision.after.profit),
            creditedMinor: String(decision.credited),
            txId: decision.creditTx === null ? null : String(decision.creditTx)
          }
        return { profitMinor: String(payload.profit), creditedMinor: "0", txId: null }
      }),
      ReturnInvestment: Effect.fnUntraced(function* () {
        yield* step((inv, now) => earlyClose(inv, now, settings, ticks.next))
        yield* settle
      }),
      Due: () => Effect.orDie(settle),
      Timer: () => Effect.orDie(settle)
    })
  }),
  { maxIdleTime: `${limits.walletIdleSeconds} seconds`, mailboxCapacity: limits.walletMailboxMax, ...answerDefects }
)
