/**
 * The signer's queue (CONTRACT C15 "Withdrawals"): list_txs_to_send answers Queued, HandedOff and
 * Broadcast withdrawals and deposit refunds by queue tick, handing each Queued one off in a commit
 * that precedes the answer (so a cancel either wins before it or is refused with 10210 after), and
 * long-polls (C8) when asked; tx_send_report records the signer's broadcast or failure. The
 * `withdrawals_queued{terminal}` series are ScannerMetrics' (read from SQL at scrape time).
 */
import { Context, Effect, Layer, Result } from "effect"
import { WalletEntity } from "../../../actors/wallet/Protocol.ts"
import { Stage } from "../../../sql/rows/CryptoRows.ts"
import { findTerminal } from "../../../sql/ReferenceRepo.ts"
import { type QueueItem, txHashInChain, txsToSend, updateIdOf } from "../../../sql/SignerRepo.ts"
import { type CryptoTx, cryptoTxById } from "../../../sql/WithdrawRepo.ts"
import { SendReportRefused } from "../../../schema/CryptoErrors.ts"
import { WithdrawalBroadcast } from "../../../schema/RailErrors.ts"
import type { TooManyWaiters } from "../../../schema/EdgeErrors.ts"
import { RateLimited, TerminalNotFound, TransactionNotFound } from "../../../schema/Errors.ts"
import { fromMinorUnits } from "../../../schema/Money.ts"
import { TxType } from "../../../schema/Transfer.ts"
import type { TxSendReportIn, TxSendReportOut, TxToSend } from "../../../schema/Withdrawals.ts"
import { commitDecision, LostRace } from "../../platform/CommitDecision.ts"
import { makeDb } from "../../platform/db/Sql.ts"
import { LedgerWriter } from "../../platform/LedgerWriter.ts"
import { endUnsent, handOff, restage } from "./CryptoTxOps.ts"
import { settlementHook, withSettlements } from "../../platform/WithdrawalSettlement.ts"
import { Feeds, longPollMaxSeconds } from "../ledger/Feeds.ts"

export interface ListRequest {
  readonly terminalId: string | null
  readonly cursor: string
  readonly limit: number
  /** Long-poll seconds; 0: answer at once. */
  readonly timeoutSeconds: number
}

export interface ListAnswer {
  readonly items: ReadonlyArray<TxToSend>
  /** The next watermark: the last item's queue tick, else the request's cursor. */
  readonly cursor: string
  /** false: a long poll that ended idle (202). */
  readonly found: boolean
}

/**
 * A failure report whose commit lost a race (a settled refund's order moved) is read and judged again this many
 * times. Each lost race means another writer of that order committed; a signer failing three refunds while three
 * more are requested is six writers of one order row, so three retries could run out under load (seen in CI):
 * eight covers such a burst, and a steady stream of new refunds still ends in a clear 10213.
 */
const reportRetriesMax = 8

const toItem = (row: QueueItem): TxToSend => ({
  txId: String(row.txId) as TxToSend["txId"],
  kind: row.typeTx === TxType.Refund ? "Refund" : "Withdrawal",
  tokenNetwork: String(row.terminalId) as TxToSend["tokenNetwork"],
  typeNetwork: row.typeNetwork,
  typeContract: row.typeContract,
  currency: row.currency,
  addressContract: row.addressContract,
  toAddress: row.toAddress,
  memo: row.memo,
  // A Refund's amount is already the Income's A less the network fee.
  amount: fromMinorUnits(row.amount, row.decimals),
  sourceAddress: row.sourceAddress,
  sourceDerivationIndex: row.sourceIndex,
  queueTick: String(row.queueTick)
})

export class SignerQueue extends Context.Service<
  SignerQueue,
  {
    readonly list: (request: ListRequest) => Effect.Effect<ListAnswer, TerminalNotFound | RateLimited | TooManyWaiters>
    readonly report: (
      input: TxSendReportIn
    ) => Effect.Effect<TxSendReportOut, TransactionNotFound | SendReportRefused | WithdrawalBroadcast>
    /** C19 §9 (admin): a Broadcast item whose txHash is in no pushed block ends Failed, its money back to free. */
    readonly release: (
      txId: string
    ) => Effect.Effect<TxSendReportOut, TransactionNotFound | SendReportRefused | WithdrawalBroadcast>
    /** Queued (not yet handed off) withdrawals and refunds per terminal id, read now. */
  }
>()("core/SignerQueue") {
  static readonly layer = Layer.effect(
    SignerQueue,
    Effect.gen(function* () {
      const db = yield* makeDb
      const ledger = yield* LedgerWriter
      const settlements = yield* settlementHook
      const feeds = yield* Feeds
      const walletActor = yield* WalletEntity.client

      /**
       * One page: read, hand the Queued items off (one operation each, committed together by the
       * writer's group commit; one that lost to a cancel is refused alone and left out), answer.
       */
      const page = Effect.fnUntraced(function* (request: ListRequest) {
        for (;;) {
          const rows = yield* db(txsToSend(request.terminalId, request.cursor, request.limit))
          const taken = yield* Effect.forEach(
            rows,
            (row) =>
              row.stage !== Stage.Queued
                ? Effect.succeed(true)
                : ledger.commit(handOff({ ...row, walletFrom: 0n, fee: 0n, incomeTxId: null })).pipe(
                    Effect.as(true),
                    Effect.catch(() => Effect.succeed(false))
                  ),
            { concurrency: "unbounded" }
          )
          const kept = rows.filter((_, i) => taken[i])
          // Everything read was cancelled meanwhile: the next rows may be waiting behind them.
          if (kept.length === 0 && rows.length > 0) continue
          return kept
        }
      })

      const list = Effect.fn("SignerQueue.list")(function* (request: ListRequest) {
        if (request.terminalId !== null && (yield* db(findTerminal(request.terminalId))) === undefined)
          return yield* new TerminalNotFound({ message: `tokenNetwork: no terminal ${request.terminalId}` })
        const waitMs = Math.min(request.timeoutSeconds, longPollMaxSeconds) * 1000
        const deadline = Date.now() + waitMs
        for (;;) {
          // The watermark before the read: a commit after it ends the wait at once.
          const seen = yield* feeds.watermark()
          const rows = yield* page(request)
          if (rows.length > 0) {
            const items = rows.map(toItem)
            return { items, cursor: items[items.length - 1].queueTick, found: true }
          }
          const left = deadline - Date.now()
          if (waitMs === 0 || left <= 0) return { items: [], cursor: request.cursor, found: waitMs === 0 }
          yield* feeds.waitBeyond("journal", seen, left)
        }
      })

      /** The answer of a report or release that ended (or had ended) the item Failed. */
      const answerOf = (txId: string, stage: string, txState: number, idUpdate: string): TxSendReportOut => ({
        txId: txId as unknown as TxSendReportOut["txId"],
        stage,
        txState,
        idUpdate
      })

      const readTx = Effect.fnUntraced(function* (txId: string) {
        const tx = yield* db(cryptoTxById(txId))
        if (tx === undefined || (tx.typeTx !== TxType.Outcome && tx.typeTx !== TxType.Refund))
          return yield* new TransactionNotFound({ message: `txId: no withdrawal or refund ${txId}` })
        return tx
      })

      type Judged =
        | { readonly _tag: "AlreadyFailed" }
        | { readonly _tag: "Move"; readonly from: ReadonlyArray<Stage>; readonly broadcast: boolean }

      /**
       * Pure: C19 §9: `failed` is accepted only for a HandedOff item (a Broadcast one may still confirm on
       * chain: 10413, its money stays out); a `failed` report on an item already Failed answers as the first
       * did and moves nothing (reports are idempotent per txId, result and txHash).
       */
      const judgeReport =
        (input: TxSendReportIn) =>
        (tx: CryptoTx): Result.Result<Judged, WithdrawalBroadcast | SendReportRefused> => {
          const broadcast = input.result === "broadcast"
          if (!broadcast && tx.stage === Stage.Broadcast)
            return Result.fail(
              new WithdrawalBroadcast({
                message: `txId: transaction ${input.txId} was broadcast${tx.txHash === null ? "" : ` (txHash ${tx.txHash})`}; a failed report cannot return its money (an admin key may release_withdrawal once its txHash is in no pushed block)`
              })
            )
          if (!broadcast && tx.stage === Stage.Failed) return Result.succeed({ _tag: "AlreadyFailed" })
          const from: ReadonlyArray<Stage> = broadcast ? [Stage.HandedOff, Stage.Broadcast] : [Stage.HandedOff]
          if (!from.includes(tx.stage))
            return Result.fail(
              new SendReportRefused({
                message: `txId: transaction ${input.txId} is ${tx.stage}, not ${from.join(" or ")} with no out item bound`
              })
            )
          return Result.succeed({ _tag: "Move", from, broadcast })
        }

      /** The answer of an item already Failed, as the first report or release gave it. */
      const alreadyFailed = (txId: string, tx: CryptoTx) =>
        Effect.map(db(updateIdOf(tx.txId)), (idUpdate) => answerOf(txId, Stage.Failed, tx.txState, idUpdate))

      const commitReport = (input: TxSendReportIn) => (judged: Judged, tx: CryptoTx) =>
        Effect.gen(function* () {
          if (judged._tag === "AlreadyFailed") return yield* alreadyFailed(input.txId, tx)
          const message = input.message ?? null
          const operation = judged.broadcast
            ? restage(tx, judged.from, Stage.Broadcast, {
                ...(input.txHash === undefined || input.txHash === null ? {} : { txHash: input.txHash }),
                ...(message === null ? {} : { message })
              })
            : yield* withSettlements(
                settlements,
                endUnsent(tx, judged.from, Stage.Failed, message === null ? {} : { message })
              )
          return yield* commitEnd(input.txId, tx, operation, judged.broadcast ? Stage.Broadcast : Stage.Failed)
        })

      /**
       * Commits a report's or a release's operation. A failure that settles a refund also updates its order,
       * which a concurrent refund of that order may have moved between the read and the commit: that lost
       * race reads everything again (the withdrawal's own stage is judged again too, so a binding that won
       * answers as before); a broadcast's failed commit is refused at once.
       */
      const commitEnd = Effect.fnUntraced(function* (
        txId: string,
        tx: { readonly walletFrom: bigint },
        operation: Parameters<typeof ledger.commit>[0],
        stage: string
      ) {
        const committed = yield* ledger.commit(operation).pipe(Effect.result)
        if (committed._tag === "Failure") {
          const refused = new SendReportRefused({
            message: `txId: transaction ${txId} changed meanwhile (bound or ended)`
          })
          return yield* stage === Stage.Broadcast
            ? Effect.fail(refused)
            : Effect.fail(new LostRace({ ifLast: refused }))
        }
        if (stage !== Stage.Broadcast) yield* walletActor(String(tx.walletFrom)).Reload().pipe(Effect.ignore)
        return answerOf(txId, stage, operation.transition!.to, String(committed.success))
      })

      /** Every attempt lost its race: refused as the last commit was (never reached: each LostRace says so). */
      const contended = (txId: string) => () =>
        Effect.fail(new SendReportRefused({ message: `txId: transaction ${txId} changed meanwhile (bound or ended)` }))

      const report = (input: TxSendReportIn) =>
        commitDecision({
          subject: `transaction ${input.txId}`,
          load: readTx(input.txId),
          decide: judgeReport(input),
          commit: commitReport(input),
          retries: reportRetriesMax
        }).pipe(Effect.catchTag("DecisionContended", contended(input.txId)), Effect.withSpan("SignerQueue.report"))

      /**
       * Pure: C19 §9 release_withdrawal ends only a Broadcast item; an item already Failed answers as the
       * first release did.
       */
      const judgeRelease =
        (txId: string) =>
        (tx: CryptoTx): Result.Result<"AlreadyFailed" | "Release", WithdrawalBroadcast> =>
          tx.stage === Stage.Failed
            ? Result.succeed("AlreadyFailed")
            : tx.stage !== Stage.Broadcast
              ? Result.fail(
                  new WithdrawalBroadcast({
                    message: `txId: transaction ${txId} is ${tx.stage}, not Broadcast: release_withdrawal ends only a Broadcast item`
                  })
                )
              : Result.succeed("Release")

      /**
       * C19 §9 release_withdrawal: a Broadcast item whose txHash no scanner has pushed in the terminal's
       * current chain (or that has none) ends as a failed one does — stage Failed, Canceled, A + fee from
       * lock_out back to free (a refund's to lock_in) — else 10413.
       */
      const commitRelease = (txId: string) => (judged: "AlreadyFailed" | "Release", tx: CryptoTx) =>
        Effect.gen(function* () {
          if (judged === "AlreadyFailed") return yield* alreadyFailed(txId, tx)
          if (tx.txHash !== null && (yield* db(txHashInChain(tx.terminalId, tx.txHash))))
            return yield* new WithdrawalBroadcast({
              message: `txId: transaction ${txId}'s txHash ${tx.txHash} is in a pushed block: it is on chain, not released`
            })
          const operation = yield* withSettlements(
            settlements,
            endUnsent(tx, [Stage.Broadcast], Stage.Failed, { message: "released by release_withdrawal" })
          )
          return yield* commitEnd(txId, tx, operation, Stage.Failed)
        })

      const release = (txId: string) =>
        commitDecision({
          subject: `transaction ${txId}`,
          load: readTx(txId),
          decide: judgeRelease(txId),
          commit: commitRelease(txId),
          retries: reportRetriesMax
        }).pipe(Effect.catchTag("DecisionContended", contended(txId)), Effect.withSpan("SignerQueue.release"))

      return SignerQueue.of({ list, report, release })
    })
  )
}
