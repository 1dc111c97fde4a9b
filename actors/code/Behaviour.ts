/**
 * The code actor wraps the pure state machine (Engine.ts) with persistence: it loads the code's
 * state from SQL, asks the engine, and commits the outcome as one conditional transition. An
 * outcome that debits a wallet's free balance (an invoice payment, a type-14 join) is handed to
 * that wallet's actor, which alone may debit it; consuming or releasing a held lock is the code's.
 */
import { Effect } from "effect"
import { Entity } from "effect/cluster"
import { findCodeByTx } from "../../sql/CodeRepo.ts"
import { type LedgerOperation, rowsOf, SystemWallet } from "../../sql/Ledger.ts"
import { CodeBindings } from "../../sql/rows/CodeRows.ts"
import {
  BalanceNotEnough,
  InvalidAmount,
  InvalidRequest,
  NonceExists,
  RateLimited,
  SameAccounts,
  TransactionNotPending,
  WalletBlocked,
  WrongSide
} from "../../schema/Errors.ts"
import { fromMinorUnits } from "../../schema/Money.ts"
import { limits } from "../../src/platform/Config.ts"
import { answerDefects } from "../../src/platform/ActorFailures.ts"
import { makeDb } from "../../src/platform/db/Sql.ts"
import { Currencies } from "../../src/platform/Currencies.ts"
import { LedgerWriter } from "../../src/platform/LedgerWriter.ts"
import { delivered } from "../../src/platform/Delivery.ts"
import { WalletEntity } from "../wallet/Protocol.ts"
import {
  applyCode,
  cancelCode,
  creationOperation,
  CodeType,
  type CodeState,
  type Outcome,
  type Rejection,
  stateCodeOf,
  stateNameOf,
  type Transition
} from "./Engine.ts"
import { CodeEntity } from "./Protocol.ts"

type CodeError =
  | SameAccounts
  | InvalidAmount
  | InvalidRequest
  | WrongSide
  | TransactionNotPending
  | BalanceNotEnough
  | NonceExists
  | RateLimited
  | WalletBlocked

const rejection = (rule: Rejection): CodeError => {
  switch (rule) {
    case "SameAccounts":
      return new SameAccounts({ message: "code: the creator cannot redeem their own code or invoice" })
    case "InvalidAmount":
      return new InvalidAmount({ message: "amount: must equal the code's amount" })
    case "AmountRequired":
      return new InvalidRequest({ message: "amount: required to pay an invoice (types 13 and 14)" })
    case "NotAllowed":
      return new WrongSide({ message: "code: this party may not do this in the code's current state" })
    case "NotActive":
      return new TransactionNotPending({ message: "code: already finished or cancelled" })
  }
}

/** Which party columns of the transaction an outcome binds. */
const parties = (before: CodeState, after: CodeState): { walletFrom?: bigint; walletTo?: bigint } => {
  const invoice = before.typeTx >= CodeType.InvoiceTx
  if (after.counterparty === before.counterparty) return {}
  const party = after.counterparty ?? before.creator
  return invoice ? { walletFrom: party } : { walletTo: party }
}

export const CodeEntityLayer = CodeEntity.toLayer(
  Effect.gen(function* () {
    const address = yield* Entity.CurrentAddress
    const txId = address.entityId
    const db = yield* makeDb
    const ledger = yield* LedgerWriter
    const currencies = yield* Currencies
    const walletActor = yield* WalletEntity.client

    /** Loads the code; an expired code may still be cancelled (funds go back) but not applied. */
    const load = (forApply: boolean): Effect.Effect<CodeState, TransactionNotPending> =>
      Effect.gen(function* () {
        const row = yield* db(findCodeByTx(txId))
        if (row === undefined || row.kind !== "transfer")
          return yield* new TransactionNotPending({ message: "code: no such transfer code" })
        if (forApply && row.expiresAt !== null && row.expiresAt.getTime() <= Date.now() && (row.txState & 24) === 0) {
          return yield* new TransactionNotPending({ message: "code: expired; only its creator may cancel it" })
        }
        const state: CodeState = {
          typeTx: row.typeTx as CodeState["typeTx"],
          txState: row.txState,
          creator: row.creator,
          counterparty: row.counterparty,
          currency: row.currency,
          amount: row.amount,
          fee: row.fee,
          profitWallet: row.profitWallet ?? SystemWallet.Fees
        }
        return state
      })

    /** Commits an engine outcome: through the debited wallet's actor when it takes free money. */
    const commit = (
      before: CodeState,
      result: Transition,
      event: string,
      nonce?: { walletId: bigint; clientNonce: bigint }
    ): Effect.Effect<Outcome, CodeError> =>
      Effect.gen(function* () {
        if (result._tag === "Reject") return yield* rejection(result.rule)
        const { state: after, postings, debits } = result.outcome
        const decimals = currencies.find(before.currency)?.decimals ?? 0
        const payload = {
          txId,
          typeTx: before.typeTx,
          state: stateNameOf(stateCodeOf(after)),
          currency: before.currency,
          amount: fromMinorUnits(before.amount, decimals)
        }
        const notify = [
          ...new Set([before.creator, after.counterparty ?? before.counterparty].filter((w): w is bigint => w !== null))
        ]
        const operation: LedgerOperation = {
          transition: { id: BigInt(txId), from: before.txState, to: after.txState, ...parties(before, after) },
          postings,
          ...(after.counterparty !== before.counterparty
            ? { rows: [rowsOf(CodeBindings, [{ txId: BigInt(txId), counterparty: after.counterparty }])] }
            : {}),
          ...(nonce !== undefined ? { nonce } : {}),
          events: notify.map((walletId) => ({ kind: event, walletId, payload }))
        }
        if (debits !== null) {
          yield* delivered(
            walletActor(String(debits)).CommitWithDebit({
              currency: before.currency,
              debit: before.amount,
              operation
            })
          )
        } else {
          yield* ledger
            .commit(operation)
            .pipe(
              Effect.catch((failure): Effect.Effect<never, CodeError> =>
                failure._tag === "Duplicate"
                  ? Effect.fail(new NonceExists({ message: "client_nonce: already used by this wallet" }))
                  : Effect.fail(
                      new TransactionNotPending({ message: "code: the code changed state meanwhile; read it again" })
                    )
              )
            )
        }
        return result.outcome
      })

    return CodeEntity.of({
      CreateCode: Effect.fnUntraced(function* ({ payload }) {
        const operation = creationOperation({ txId: BigInt(txId), ...payload })
        if (operation.postings.length > 0) {
          // Holding the amount debits the creator's free balance: only its wallet actor may.
          yield* delivered(
            walletActor(String(payload.creator)).CommitWithDebit({
              currency: payload.currency,
              debit: payload.amount,
              operation
            })
          )
        } else {
          yield* Effect.orDie(ledger.commit(operation))
        }
      }),
      ApplyCode: Effect.fnUntraced(function* ({ payload }) {
        const before = yield* load(true)
        const result = applyCode(before, BigInt(payload.by), payload.amount)
        const outcome = yield* commit(before, result, "CodeApplied", {
          walletId: BigInt(payload.by),
          clientNonce: payload.clientNonce
        })
        return { confirmationStatusCode: outcome.reply, txState: outcome.state.txState }
      }),
      CancelCode: Effect.fnUntraced(function* ({ payload }) {
        const before = yield* load(false)
        const outcome = yield* commit(before, cancelCode(before, BigInt(payload.by)), "CodeCanceled")
        return { txState: outcome.state.txState }
      })
    })
  }),
  { maxIdleTime: `${limits.walletIdleSeconds} seconds`, mailboxCapacity: limits.walletMailboxMax, ...answerDefects }
)
