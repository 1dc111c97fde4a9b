/**
 * The payment order actor's Refund message (CONTRACT C16 "Refunds"), kept beside Behaviour.ts so the
 * order actor's file grows by one line. The actor serialises one order's refunds; the order row's
 * version-conditional update (payment_order_update) makes Σ refunds ≤ paidAmount hold across
 * processes too: a commit built on a row another process moved on fails (StateConflict) and is
 * decided again on the fresh row.
 *
 * One commit, through the merchant wallet's actor (it alone debits free, and keeps its cached
 * balance honest from the operation's postings, so the postings ride on the main operation):
 * - main: the refund's transaction (typeTx 19, created Finished for Wallet and Card destinations,
 *   Pending (txState 1) for Crypto),
 *   the engine's postings, the order's update row and the payment_refunds row;
 * - extra: the order transaction's 8 → 8 transition, so its update tick moves with every refund; and
 *   for a Crypto refund (Pending, amount + fee free → lock_out) its C15 withdrawal of payoutAmount in
 *   payCurrency, Queued for the signer (actors/payment/CryptoRefunds.ts), settled later through the
 *   WithdrawalSettlement hook.
 */
import { Effect, Result } from "effect"
import type { Rpc } from "effect/rpc"
import { type KindRows, type LedgerOperation, rowsOf, SystemWallet } from "../../sql/Ledger.ts"
import { balanceIn } from "../../sql/LedgerRepo.ts"
import type { PaymentOrderRow } from "../../sql/PaymentOrderRepo.ts"
import { refundByExternalId } from "../../sql/PaymentRefundRepo.ts"
import { PaymentRefundInserts } from "../../sql/rows/RefundRows.ts"
import { BalanceNotEnough, InvalidRequest, NonceExists } from "../../schema/Errors.ts"
import { RefundBelowNetworkFee } from "../../schema/CryptoErrors.ts"
import {
  PaymentOrderNotFound,
  PaymentOrderNotPayable,
  RefundAddressRequired,
  RefundExceedsPaid,
  RefundNotAllowed,
  TooManyRefunds
} from "../../schema/PaymentErrors.ts"
import { TxState, TxType } from "../../schema/Transfer.ts"
import { commitDecision, LostRace } from "../../src/platform/CommitDecision.ts"
import { type Db } from "../../src/platform/db/Sql.ts"
import { delivered } from "../../src/platform/Delivery.ts"
import type { WalletEntity } from "../wallet/Protocol.ts"
import { refundWithdrawalOperation } from "./CryptoRefunds.ts"
import { type Ok, type OrderState, refund, type RefundFigures, type Rule } from "./Engine.ts"
import type { Refund } from "./Protocol.ts"

type RefundPayload = Rpc.Payload<typeof Refund>

export type RefundError =
  | PaymentOrderNotFound
  | PaymentOrderNotPayable
  | RefundNotAllowed
  | RefundExceedsPaid
  | RefundAddressRequired
  | TooManyRefunds
  | InvalidRequest
  | BalanceNotEnough
  | NonceExists

const rejection = (rule: Rule): RefundError => {
  switch (rule) {
    case "TooManyRefunds":
      return new TooManyRefunds({ message: "code: the order already has 100 refunds" })
    case "RefundAddressRequired":
      return new RefundAddressRequired({ message: "refundAddress: required to refund a crypto payment" })
    case "InvalidAmount":
      return new InvalidRequest({ message: "amount: must be positive" })
    case "RefundExceedsPaid":
      return new RefundExceedsPaid({
        message: "amount: pending and finished refunds plus this amount would exceed paidAmount"
      })
    case "BalanceNotEnough":
      return new BalanceNotEnough({ message: "amount: the merchant's free balance does not cover amount + fee" })
    default:
      return new RefundNotAllowed({ message: "code: only Paid or PartiallyRefunded payment orders are refunded" })
  }
}

/** A commit built on a row another process moved on is decided again this many times. */
const staleRetriesMax = 5

export const makeRefundHandler = (deps: {
  readonly txId: bigint
  readonly db: Db
  readonly walletActor: Effect.Success<typeof WalletEntity.client>
  readonly load: Effect.Effect<PaymentOrderRow, PaymentOrderNotFound>
  readonly stateOfRow: (row: PaymentOrderRow) => OrderState
  readonly orderUpdateRow: (row: PaymentOrderRow, before: OrderState, after: OrderState) => KindRows
}) => {
  const { txId, db, walletActor } = deps

  /** The order and the merchant's free balance now (an externalId already used is refused first). */
  const load = (payload: RefundPayload) =>
    Effect.gen(function* () {
      if ((yield* db(refundByExternalId(payload.appId, payload.externalId))) !== undefined)
        return yield* new NonceExists({ message: "externalId: already used by this app" })
      const row = yield* deps.load
      if (row.appId !== payload.appId) return yield* new PaymentOrderNotFound({ message: "code: no such order" })
      const merchantFree = (yield* db(balanceIn(row.merchantWallet, row.currency)))?.free ?? 0n
      return { row, merchantFree }
    })

  interface Loaded {
    readonly row: PaymentOrderRow
    readonly merchantFree: bigint
  }
  interface Decided {
    readonly before: OrderState
    readonly decision: Ok
    readonly figures: RefundFigures
  }

  /** Pure: the engine's refund on this order, or the refusal in the contract's words. */
  const decide =
    (payload: RefundPayload) =>
    ({ row, merchantFree }: Loaded): Result.Result<Decided, RefundError | RefundBelowNetworkFee> => {
      const before = deps.stateOfRow(row)
      const decision = refund(before, {
        amount: payload.amount,
        fee: payload.fee,
        feeProfitWallet: payload.profitWallet,
        merchantFree,
        hasRefundAddress: payload.refundAddress !== null
      })
      if (decision._tag === "Reject") return Result.fail(rejection(decision.rule))
      const figures = decision.refund!
      const crypto = figures.destination === "Crypto"
      if (crypto && (payload.withdrawal ?? null) === null)
        return Result.fail(new RefundAddressRequired({ message: "refundAddress: required to refund a crypto payment" }))
      // A C15 Refund pays A − networkFee (C15: A ≤ networkFee is 10233), before anything moves.
      if (crypto && figures.payoutAmount <= (payload.networkFee ?? 0n))
        return Result.fail(
          new RefundBelowNetworkFee({
            message: "amount: what the refund pays does not exceed the terminal's network fee"
          })
        )
      return Result.succeed({ before, decision, figures })
    }

  const commit =
    (payload: RefundPayload) =>
    ({ before, decision, figures }: Decided, { row }: Loaded) => {
      const crypto = figures.destination === "Crypto"
      const withdrawal = payload.withdrawal ?? null
      const networkFee = payload.networkFee ?? 0n
      const after = decision.state
      const operation: LedgerOperation = {
        tx: {
          id: payload.refundTxId,
          typeTx: TxType.Refund,
          txState: figures.finished ? TxState.Finished : TxState.Created,
          walletFrom: row.merchantWallet,
          walletTo: figures.destination === "Wallet" ? row.payerWalletId! : SystemWallet.Treasury,
          currency: row.currency,
          amount: figures.amount,
          fee: figures.fee,
          tag: null,
          appId: row.appId,
          externalId: null,
          requestHash: null,
          profitWallet: payload.profitWallet
        },
        postings: decision.postings,
        rows: [
          deps.orderUpdateRow(row, before, after),
          rowsOf(PaymentRefundInserts, [
            {
              txId: payload.refundTxId,
              orderTxId: txId,
              appId: row.appId,
              externalId: payload.externalId,
              requestHash: payload.requestHash,
              destination: figures.destination,
              currency: row.currency,
              amount: figures.amount,
              fee: figures.fee,
              profitWallet: payload.profitWallet,
              payoutAmount: figures.payoutAmount,
              payoutCurrency: figures.payoutCurrency,
              reason: payload.reason,
              refundAddress: payload.refundAddress,
              stateCode: figures.finished ? (8 as const) : (1 as const)
            }
          ])
        ],
        extra: [
          { transition: { id: txId, from: row.txState, to: after.txState }, postings: [] },
          ...(crypto && withdrawal !== null
            ? [
                refundWithdrawalOperation(
                  payload.refundTxId,
                  before,
                  { amount: figures.payoutAmount, currency: figures.payoutCurrency, networkFee },
                  withdrawal
                )
              ]
            : [])
        ]
      }
      return delivered(
        walletActor(String(row.merchantWallet)).CommitWithDebit({
          currency: row.currency,
          debit: figures.amount + figures.fee,
          operation
        })
      ).pipe(
        Effect.catchTags({
          // The (app, externalId) unique index: another request of this externalId won meanwhile.
          NonceExists: () => Effect.fail(new NonceExists({ message: "externalId: already used by this app" })),
          // The order row moved on (another process's actor of this order): decide again on it.
          TransactionNotPending: () => Effect.fail(new LostRace({})),
          BalanceNotEnough: () =>
            Effect.fail(
              new BalanceNotEnough({ message: "amount: the merchant's free balance does not cover amount + fee" })
            )
        }),
        Effect.asVoid
      )
    }

  return (payload: RefundPayload) =>
    commitDecision({
      subject: `payment order ${txId}`,
      load: load(payload),
      decide: decide(payload),
      commit: commit(payload),
      retries: staleRetriesMax
    }).pipe(
      Effect.catchTag("DecisionContended", () =>
        Effect.fail(new PaymentOrderNotPayable({ message: "code: the order changed meanwhile; retry" }))
      )
    )
}
