/**
 * The wallet actor's two-step transfer messages: reserve (step one), confirm (step two: check the
 * proof, settle), cancel (sender, expiry, exhausted attempts). The actor that holds the reservation
 * is the one that settles or releases it; every state change is a conditional transition in SQL.
 * A withdrawal (C15 Outcome) takes the same path: its on-chain record is created with step one and
 * leaves AwaitingConfirmation with its transaction (Queued on step two, Canceled on release).
 */
import { Effect } from "effect"
import { type KindRows, rowsOf, SystemWallet } from "../../sql/Ledger.ts"
import { CryptoTxInserts, CryptoTxUpdates, Stage } from "../../sql/rows/CryptoRows.ts"
import { findPendingWithConfirmation, signingKeysOf, spendAttempt } from "../../sql/TransferRepo.ts"
import {
  BalanceNotEnough,
  ConfirmationExpired,
  ConfirmationFailed,
  NonceExists,
  TransactionNotPending,
  type WalletBlocked
} from "../../schema/Errors.ts"
import { fromMinorUnits } from "../../schema/Money.ts"
import { TxState, TxType } from "../../schema/Transfer.ts"
import type { Db } from "../../src/platform/db/Sql.ts"
import { codeMatches, signatureMatches } from "../../src/platform/SecondFactor.ts"
import { releaseTransfer, reserveTransfer, settleSwap, settleTransfer } from "./Engine.ts"
import type { CancelTransfer, ConfirmTransfer, ReserveTransfer } from "./Protocol.ts"
import { commitIt, type makeCommits, nameFailures, refuse } from "./Commit.ts"
import type { WalletState } from "./State.ts"

/** Reservations remembered per wallet actor (see `memo`). */
const pendingMemoMax = 64

type Payload<R extends { payloadSchema: { Type: unknown } }> = R["payloadSchema"]["Type"]

/**
 * `decimalsOf` gives a currency's decimals: event payloads carry amounts as exact decimal strings in
 * currency units (CONTRACT C5), never the ledger's minor units.
 */
export const makeTransferHandlers = (
  state: WalletState,
  db: Db,
  commits: ReturnType<typeof makeCommits>,
  decimalsOf: (currency: string) => number,
  /** C19 §5: fails with 10031 while the wallet is flagged WalletBlock or Deleted. */
  refuseIfBlocked: Effect.Effect<void, WalletBlocked>
) => {
  const walletId = state.walletId
  const units = (minor: bigint, currency: string) => fromMinorUnits(minor, decimalsOf(currency))

  const notPending = (txId: string, field = "confirmationTimetick") =>
    new TransactionNotPending({ message: `${field}: transaction ${txId} is not waiting for confirmation` })

  const commitApplied = commits.commit

  type PendingTx = NonNullable<Effect.Success<ReturnType<typeof loadPending>>>["tx"]

  /** What a pending transaction's step two must say it confirms. */
  const kindOf = (tx: PendingTx) =>
    tx.currencyTo !== null
      ? "swap"
      : tx.typeTx === TxType.Outcome
        ? "withdraw"
        : tx.typeTx === TxType.FederationTransfer
          ? "partner"
          : "transfer"

  /** A withdrawal's on-chain record leaves AwaitingConfirmation with its transaction (C15's one rule). */
  const cryptoStep = (tx: PendingTx, stage: Stage, queueTick: boolean): ReadonlyArray<KindRows> =>
    tx.typeTx !== TxType.Outcome
      ? []
      : [
          rowsOf(CryptoTxUpdates, [
            {
              txId: tx.id,
              fromStages: [Stage.AwaitingConfirmation],
              stage,
              patch: queueTick ? { queueTick: true } : {}
            }
          ])
        ]

  /** Releases a pending reservation back to free (cancel, expiry, attempts used up). */
  const release = (tx: PendingTx, reason: string) => {
    // A swap's fee is in its target currency and was never reserved.
    const amount = tx.amount,
      fee = tx.currencyTo === null ? tx.fee : 0n
    return commitApplied(
      {
        transition: { id: tx.id, from: TxState.Created, to: TxState.Canceled },
        postings: releaseTransfer(walletId, tx.currency, amount, fee),
        dropConfirmation: true,
        rows: cryptoStep(tx, Stage.Canceled, false),
        events: [{ kind: "TransferCanceled", walletId, payload: { txId: String(tx.id), reason } }]
      },
      tx.currency
    ).pipe(Effect.catch(() => Effect.fail(notPending(String(tx.id)))))
  }

  /**
   * Reservations of transfers and swaps this actor made and has not yet settled or released: step two reads
   * its pending record here instead of SQL (one read less per transfer). A hint, never the authority: every
   * settle or release is a conditional transition in SQL (from Created), so a record that another process
   * settled or cancelled meanwhile fails there and answers 10082, as the SQL read would have. An entry leaves
   * with any step two or cancel of its transaction (a wrong code's retry reads SQL); withdrawals and partner
   * transfers (their crypto and partner records) are always read. At most `pendingMemoMax` per actor.
   */
  const memo = new Map<string, NonNullable<Effect.Success<ReturnType<typeof findPendingWithConfirmation>>>>()
  const forget = (txId: string) => Effect.sync(() => memo.delete(txId))

  const loadPending = Effect.fnUntraced(function* (txId: string) {
    const pending = memo.get(txId) ?? (yield* db(findPendingWithConfirmation(txId)))
    if (pending === undefined || pending.tx.walletFrom !== walletId || pending.tx.txState !== TxState.Created)
      return undefined
    return pending
  })

  const ReserveTransferHandler = Effect.fnUntraced(function* ({
    payload
  }: {
    payload: Payload<typeof ReserveTransfer>
  }) {
    yield* refuseIfBlocked
    const amount = payload.amount,
      fee = payload.fee
    const swap = payload.exchange
    const reservedFee = swap === undefined ? fee : 0n
    const withheld = payload.withheld ?? 0n
    const txId = BigInt(payload.txId)
    /** The transaction and confirmation this step stores: committed below, then remembered for step two. */
    const tx = {
      id: txId,
      typeTx: payload.typeTx,
      txState: TxState.Created,
      walletFrom: walletId,
      walletTo: BigInt(payload.recipientId),
      currency: payload.currency,
      amount,
      fee,
      tag: payload.tag,
      appId: null,
      profitWallet: BigInt(payload.profitWalletId),
      currencyTo: swap?.currencyTo ?? null,
      amountTo: swap?.amountTo ?? null
    }
    const confirmation = {
      txId,
      walletId,
      channel: payload.channel,
      codeHash: payload.codeHash,
      expiresAt: payload.expiresAt
    }
    const idUpdate = yield* commits
      .commitPlanned(payload.currency, (known) => {
        const decision = reserveTransfer(
          walletId,
          withheld === 0n ? known : { ...known, free: known.free - withheld },
          payload.currency,
          amount,
          reservedFee
        )
        if (decision._tag === "Reject") {
          return refuse(
            new BalanceNotEnough({
              message:
                withheld > 0n
                  ? `fromAmount: free ${payload.currency} balance, less funds received within the chargeback period, does not cover the amount`
                  : `amount: free ${payload.currency} balance does not cover amount plus fee`
            })
          )
        }
        return commitIt({
          tx: { ...tx, externalId: null, requestHash: null, clientNonce: payload.clientNonce },
          postings: decision.postings,
          ...(payload.crypto === undefined ? {} : { rows: [rowsOf(CryptoTxInserts, [payload.crypto])] }),
          confirmation: { ...confirmation, attempts: payload.attempts },
          events:
            payload.codeForEvent === null
              ? []
              : [
                  {
                    kind: "ConfirmationCode",
                    walletId,
                    payload: { walletId: String(walletId), txId: payload.txId, code: payload.codeForEvent }
                  }
                ]
        })
      })
      .pipe(
        nameFailures({
          Duplicate: () => new NonceExists({ message: "clientNonce: already used by this wallet" }),
          StateConflict: () => new BalanceNotEnough({ message: "amount: the balance changed; retry" }),
          ConstraintViolated: () => new BalanceNotEnough({ message: "amount: the balance changed; retry" })
        })
      )
    if (
      payload.crypto === undefined &&
      payload.typeTx !== TxType.Outcome &&
      payload.typeTx !== TxType.FederationTransfer
    ) {
      if (memo.size >= pendingMemoMax) memo.delete(memo.keys().next().value!)
      memo.set(payload.txId, {
        tx: { ...tx, idUpdate, createdAt: new Date() },
        confirmation: { ...confirmation, attemptsLeft: payload.attempts }
      })
    }
    return { idUpdate: String(idUpdate) }
  })

  const ConfirmTransferHandler = Effect.fnUntraced(function* ({
    payload
  }: {
    payload: Payload<typeof ConfirmTransfer>
  }) {
    const pending = yield* loadPending(payload.txId)
    if (pending === undefined || kindOf(pending.tx) !== payload.kind) return yield* notPending(payload.txId)
    const { tx, confirmation } = pending
    if (confirmation.expiresAt.getTime() <= Date.now()) {
      yield* release(tx, "expired")
      return yield* new ConfirmationExpired({
        message: "confirmationCode: the confirmation expired; the reservation was released"
      })
    }
    const valid =
      confirmation.channel === "Sign"
        ? payload.signatureBase64 !== null &&
          signatureMatches(yield* db(signingKeysOf(String(walletId))), payload.txId, payload.signatureBase64)
        : payload.code !== null && confirmation.codeHash !== null && codeMatches(confirmation.codeHash, payload.code)
    if (!valid) {
      const left = yield* db(spendAttempt(payload.txId))
      if (left > 0) {
        const field = confirmation.channel === "Sign" ? "X-SignResult" : "confirmationCode"
        return yield* new ConfirmationFailed({ message: `${field}: does not match; ${left} attempt(s) left` })
      }
      yield* release(tx, "attempts exhausted")
      return yield* new ConfirmationExpired({
        message: "confirmationCode: no attempts left; the reservation was released"
      })
    }
    if (payload.kind === "withdraw" || payload.kind === "partner") {
      // Queued for the signer (a withdrawal) or handed to the partner (a C18 partner transfer): no money
      // moves until its outcome is known (or it fails or is cancelled).
      const idUpdate = yield* commitApplied(
        {
          transition: { id: tx.id, from: TxState.Created, to: TxState.Created | TxState.Confirmed },
          postings: [],
          dropConfirmation: true,
          rows: cryptoStep(tx, Stage.Queued, true)
        },
        tx.currency
      ).pipe(Effect.catch(() => Effect.fail(notPending(payload.txId))))
      return { idUpdate: String(idUpdate), fee: tx.fee, currency: tx.currency }
    }
    const amount = tx.amount,
      fee = tx.fee
    const recipient = tx.walletTo
    const profitWallet = tx.profitWallet ?? SystemWallet.Fees
    if (tx.currencyTo !== null) {
      const net = tx.amountTo ?? 0n
      const idUpdate = yield* commitApplied(
        {
          transition: { id: tx.id, from: TxState.Created, to: TxState.Finished },
          postings: settleSwap(walletId, profitWallet, tx.currency, amount, tx.currencyTo, net, fee),
          dropConfirmation: true,
          events: [
            {
              kind: "SwapExecuted",
              walletId,
              payload: {
                txId: payload.txId,
                from: tx.currency,
                amount: units(tx.amount, tx.currency),
                to: tx.currencyTo,
                received: units(net, tx.currencyTo),
                fee: units(tx.fee, tx.currencyTo)
              }
            }
          ]
        },
        tx.currency
      ).pipe(Effect.catch(() => Effect.fail(notPending(payload.txId))))
      state.forget(tx.currencyTo)
      return { idUpdate: String(idUpdate), fee: tx.fee, currency: tx.currencyTo }
    }
    const idUpdate = yield* commitApplied(
      {
        transition: { id: tx.id, from: TxState.Created, to: TxState.Finished },
        postings: settleTransfer(walletId, recipient, profitWallet, tx.currency, amount, fee),
        dropConfirmation: true,
        events: [
          {
            kind: "TransferSent",
            walletId,
            payload: {
              txId: payload.txId,
              to: String(recipient),
              currency: tx.currency,
              amount: units(tx.amount, tx.currency),
              fee: units(tx.fee, tx.currency)
            }
          },
          {
            kind: "TransferReceived",
            walletId: recipient,
            payload: {
              txId: payload.txId,
              from: String(walletId),
              currency: tx.currency,
              amount: units(tx.amount, tx.currency)
            }
          }
        ]
      },
      tx.currency
    ).pipe(Effect.catch(() => Effect.fail(notPending(payload.txId))))
    return { idUpdate: String(idUpdate), fee: tx.fee, currency: tx.currency }
  })

  const CancelTransferHandler = Effect.fnUntraced(function* ({ payload }: { payload: Payload<typeof CancelTransfer> }) {
    const pending = yield* loadPending(payload.txId)
    if (pending === undefined) return yield* notPending(payload.txId, "id")
    const idUpdate = yield* release(pending.tx, payload.reason)
    return { idUpdate: String(idUpdate) }
  })

  return {
    ReserveTransfer: ReserveTransferHandler,
    ConfirmTransfer: (request: { payload: Payload<typeof ConfirmTransfer> }) =>
      Effect.ensuring(ConfirmTransferHandler(request), forget(request.payload.txId)),
    CancelTransfer: (request: { payload: Payload<typeof CancelTransfer> }) =>
      Effect.ensuring(CancelTransferHandler(request), forget(request.payload.txId))
  }
}
