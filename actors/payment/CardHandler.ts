/**
 * The payment order actor's card messages (CONTRACT C16 "Built-in card acquiring"; docs/CARDS.md), kept
 * beside Behaviour.ts as RefundHandler.ts is.
 *
 * PayCard: one commit — the engine's openCardSession (the implicit start on the Card terminal, the
 * order's cardSessionPending) and the session's row, Pending. While a session is Pending a repeat on the
 * same terminal answers that session and commits nothing.
 *
 * CardOutcome: the one conditional transition every source of a card outcome goes through (the
 * acquirer's webhook, reconciliation, the session TTL). One commit — the session's row Pending → the
 * outcome (acquiring_session_decide, applied only while Pending, else LC409 undoes everything) and the
 * order's update (cardApproved → Paid with Treasury's postings; cardSessionClosed → Started again), the
 * order row's update being conditional on its version too. A commit that lost a race (another process,
 * another source) is read again: the session then shows its outcome, the same one (duplicate) or not (10314).
 */
import { Effect, Result } from "effect"
import type { Rpc } from "effect/rpc"
import { acquiringSessionById, pendingSessionOfOrder } from "../../sql/AcquiringRepo.ts"
import { rowsOf } from "../../sql/Ledger.ts"
import type { PaymentOrderRow } from "../../sql/PaymentOrderRepo.ts"
import { AcquiringSessionDecides, AcquiringSessionInserts } from "../../sql/rows/AcquiringRows.ts"
import { PaymentOrderNotFound, PaymentOrderNotPayable, WebhookMismatch } from "../../schema/PaymentErrors.ts"
import { commitDecision, LostRace } from "../../src/platform/CommitDecision.ts"
import type { Db } from "../../src/platform/db/Sql.ts"
import {
  cardApproved,
  cardSessionClosed,
  type Decision,
  openCardSession,
  type OrderState,
  OrderStateCode,
  type TerminalOffer
} from "./Engine.ts"
import type { CommitExtras } from "./OrderRow.ts"
import type { CardOutcome, OfferData, OrderError, PayCard } from "./Protocol.ts"

type Act = (
  decide: (s: OrderState, now: number) => Decision,
  extras?: CommitExtras | ((after: OrderState) => CommitExtras)
) => Effect.Effect<{ readonly stateCode: number; readonly replayed: boolean }, OrderError>

type Commit = (
  row: PaymentOrderRow,
  before: OrderState,
  decision: Decision,
  extras?: CommitExtras
) => Effect.Effect<void, OrderError>

/** A lost race is decided again on the fresh rows this many times. */
const staleRetriesMax = 5

export const makeCardHandler = (deps: {
  readonly txId: bigint
  readonly db: Db
  readonly load: Effect.Effect<PaymentOrderRow, PaymentOrderNotFound>
  readonly stateOfRow: (row: PaymentOrderRow) => OrderState
  readonly act: Act
  readonly commit: Commit
  readonly offerOf: (o: OfferData) => TerminalOffer
}) => {
  const { txId, db } = deps

  const payCard = (payload: Rpc.Payload<typeof PayCard>) =>
    Effect.gen(function* () {
      const offer = deps.offerOf(payload.offer)
      const row = yield* deps.load
      const before = deps.stateOfRow(row)
      if (
        before.cardSessionPending &&
        before.stateCode === OrderStateCode.Started &&
        before.terminal?.terminalId === offer.terminal.terminalId
      ) {
        const pending = yield* db(pendingSessionOfOrder(txId))
        if (pending === undefined)
          return yield* Effect.die(new Error(`invariant: order ${txId} holds a card session that is not stored`))
        return { stateCode: before.stateCode, acquiringId: pending.acquiringId, opened: false }
      }
      const answer = yield* deps.act(
        (s, now) => openCardSession(s, offer, now),
        (after) => ({
          rows: [
            rowsOf(AcquiringSessionInserts, [
              {
                acquiringId: payload.acquiringId,
                orderTxId: txId,
                appId: row.appId,
                terminalId: after.terminal!.terminalId,
                amount: after.payAmount! + after.fee,
                currency: after.payCurrency!
              }
            ])
          ]
        })
      )
      return { stateCode: answer.stateCode, acquiringId: payload.acquiringId, opened: true }
    })

  const mismatch = (message: string) => new WebhookMismatch({ message })

  /**
   * The session and the order as they are now (a session of another order, or other figures, is refused).
   * The order is read first: one commit decides both, so a session still Pending after it means the order
   * was read before that commit (whose conditional update then fails and is retried), never an order
   * already decided beside a session read before its decision (which the engine would refuse as NotPayable).
   */
  const loadOutcome = (payload: Rpc.Payload<typeof CardOutcome>) =>
    Effect.gen(function* () {
      const row = yield* deps.load
      const session = yield* db(acquiringSessionById(payload.acquiringId))
      if (session === undefined || session.orderTxId !== txId)
        return yield* mismatch("acquiringId: no such acquiring session")
      if (payload.amount !== null && payload.amount !== session.amount)
        return yield* mismatch("amount: differs from the session's amount")
      if (payload.currency !== null && payload.currency !== session.currency)
        return yield* mismatch("currency: differs from the session's currency")
      return { session, row }
    })

  type Loaded = Effect.Success<ReturnType<typeof loadOutcome>>
  type OutcomeDecision =
    | { readonly _tag: "Answer"; readonly stateCode: number }
    | { readonly _tag: "Commit"; readonly before: OrderState; readonly decision: Decision }

  /** Pure: a decided session answers as a duplicate (same outcome) or is refused; a Pending one is decided. */
  const decideOutcome =
    (payload: Rpc.Payload<typeof CardOutcome>) =>
    ({ session, row }: Loaded): Result.Result<OutcomeDecision, WebhookMismatch> => {
      if (session.status !== "Pending")
        return session.status === payload.status
          ? Result.succeed({ _tag: "Answer", stateCode: row.stateCode })
          : Result.fail(mismatch(`status: the session is already ${session.status}`))
      const before = deps.stateOfRow(row)
      const decision = payload.status === "Approved" ? cardApproved(before) : cardSessionClosed(before)
      return Result.succeed({ _tag: "Commit", before, decision })
    }

  const commitOutcome =
    (payload: Rpc.Payload<typeof CardOutcome>) =>
    (decided: OutcomeDecision, { session, row }: Loaded) =>
      Effect.gen(function* () {
        if (decided._tag === "Answer") return { duplicate: true, stateCode: decided.stateCode }
        const { before, decision } = decided
        if (decision._tag === "Reject")
          return yield* Effect.die(new Error(`invariant: order ${txId} has a Pending session but ${decision.rule}`))
        yield* deps
          .commit(row, before, decision, {
            rows: [
              rowsOf(AcquiringSessionDecides, [
                { acquiringId: session.acquiringId, orderTxId: txId, status: payload.status, eventId: payload.eventId }
              ])
            ]
          })
          .pipe(
            Effect.catch((e) => (e._tag === "PaymentOrderNotPayable" ? Effect.fail(new LostRace({})) : Effect.die(e)))
          )
        return { duplicate: false, stateCode: decision.state.stateCode }
      })

  const cardOutcome = (payload: Rpc.Payload<typeof CardOutcome>) =>
    commitDecision({
      subject: `payment order ${txId}`,
      load: loadOutcome(payload),
      decide: decideOutcome(payload),
      commit: commitOutcome(payload),
      retries: staleRetriesMax
    }).pipe(
      Effect.catchTag("DecisionContended", () =>
        Effect.fail(new PaymentOrderNotPayable({ message: "code: the order changed meanwhile; retry" }))
      )
    )

  return { payCard, cardOutcome }
}
