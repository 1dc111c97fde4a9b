/**
 * The wallet actor: holds its wallet's known balances, decides with the pure engine, commits
 * through the ledger writer and replies after the commit. Messages are handled one at a time, so
 * two spends of the same money can never both pass; SQL CHECK constraints back every move.
 */
import { Effect } from "effect"
import { Entity } from "effect/cluster"
import {
  BalanceNotEnough,
  ExternalIdConflict,
  MaxActiveOrdersExceeded,
  NonceExists,
  TransactionNotPending,
  WalletBlocked
} from "../../schema/Errors.ts"
import { fromMinorUnits } from "../../schema/Money.ts"
import { TxState, TxType } from "../../schema/Transfer.ts"
import { limits } from "../../src/platform/Config.ts"
import { answerDefects } from "../../src/platform/ActorFailures.ts"
import { makeDb } from "../../src/platform/db/Sql.ts"
import { Currencies } from "../../src/platform/Currencies.ts"
import { LedgerWriter } from "../../src/platform/LedgerWriter.ts"
import { debitBlockingFlags, WalletFlags } from "../../src/platform/WalletFlags.ts"
import { debtCharge, treasuryPosting } from "./Engine.ts"
import { type LedgerOperation, SystemWallet } from "../../sql/Ledger.ts"
import { TooManyOpenInvestments } from "../../schema/InvestErrors.ts"
import { commitIt, makeCommits, nameFailures, refuse } from "./Commit.ts"
import { WalletEntity } from "./Protocol.ts"
import { placementOperation } from "./Orders.ts"
import { makeWalletState } from "./State.ts"
import { makeTransferHandlers } from "./TransferHandlers.ts"
import { countActiveOrders } from "../../sql/OrderRepo.ts"

export const WalletEntityLayer = WalletEntity.toLayer(
  Effect.gen(function* () {
    const address = yield* Entity.CurrentAddress
    const walletId = BigInt(address.entityId)
    const db = yield* makeDb
    const ledger = yield* LedgerWriter
    const state = makeWalletState(walletId, db)
    const currencies = yield* Currencies
    const decimalsOf = (code: string) => currencies.find(code)?.decimals ?? 0
    const commits = makeCommits(state, ledger)
    const walletFlags = yield* WalletFlags
    /**
     * C19 §5: every debit of this wallet (by its session, or the pkey of an app whose money side it
     * is) is refused while it is flagged WalletBlock or Deleted, before anything is decided or moved.
     */
    const refuseIfBlocked = Effect.flatMap(walletFlags.of(walletId), (flags) =>
      (flags & debitBlockingFlags) !== 0
        ? Effect.fail(
            new WalletBlocked({ message: `wallet: wallet ${walletId} is blocked or deleted; nothing was moved` })
          )
        : Effect.void
    )
    const transfers = makeTransferHandlers(state, db, commits, decimalsOf, refuseIfBlocked)
    let openOrders: number | undefined

    const changedMeanwhile = (field: string) => () =>
      new BalanceNotEnough({ message: `${field}: the balance changed; retry` })

    /**
     * Commits an operation prepared elsewhere (a code's apply or creation, an order's placement) that
     * takes `debit` from this wallet's free balance: whether the money is there is decided here.
     */
    const commitDebiting = (currency: string, debit: bigint, operation: LedgerOperation, field: string, what: string) =>
      commits.commitPlanned(currency, (known) =>
        known.free >= debit
          ? commitIt(operation)
          : refuse(new BalanceNotEnough({ message: `${field}: free ${currency} balance does not cover ${what}` }))
      )

    return WalletEntity.of({
      PostTreasury: Effect.fnUntraced(function* ({ payload }) {
        const amount = payload.amount
        const credit = payload.direction === "credit"
        const idUpdate = yield* commits
          .commitPlanned(payload.currency, (known) => {
            const decision = treasuryPosting(walletId, known, payload.currency, amount, payload.direction)
            if (decision._tag === "Reject")
              return refuse(
                new BalanceNotEnough({ message: `amount: free ${payload.currency} balance does not cover the debit` })
              )
            return commitIt({
              tx: {
                id: BigInt(payload.txId),
                typeTx: TxType.Adjustment,
                txState: TxState.Finished,
                walletFrom: credit ? SystemWallet.Treasury : walletId,
                walletTo: credit ? walletId : SystemWallet.Treasury,
                currency: payload.currency,
                amount,
                fee: 0n,
                tag: payload.tag,
                appId: null,
                externalId: payload.externalId,
                requestHash: payload.requestHash
              },
              postings: decision.postings
            })
          })
          .pipe(
            nameFailures({
              Duplicate: () => new ExternalIdConflict({ message: "externalId: already used" }),
              StateConflict: changedMeanwhile("amount"),
              ConstraintViolated: changedMeanwhile("amount")
            })
          )
        return { txId: payload.txId, idUpdate: String(idUpdate) }
      }),
      ...transfers,
      ChargeDebt: Effect.fnUntraced(function* ({ payload }) {
        const amount = payload.amount
        const profitWallet = BigInt(payload.profitWalletId)
        let charge = debtCharge(
          walletId,
          { free: 0n, lockOut: 0n, lockIn: 0n, lockOrders: 0n },
          payload.currency,
          amount,
          profitWallet
        )
        // A charge takes min(free, amount) of the real free balance: one that would fall short on the
        // cached figure (which can only understate) is decided again on a fresh load.
        yield* commits
          .commitPlanned(payload.currency, (known, fresh) => {
            if (!fresh && known.free < amount)
              return refuse(new BalanceNotEnough({ message: "amount: decide on fresh figures" }))
            charge = debtCharge(walletId, known, payload.currency, amount, profitWallet)
            const units = (minor: bigint) => fromMinorUnits(minor, decimalsOf(payload.currency))
            return commitIt({
              tx: {
                id: BigInt(payload.txId),
                typeTx: TxType.DebtCharge,
                txState: TxState.Finished,
                walletFrom: walletId,
                walletTo: profitWallet,
                currency: payload.currency,
                amount: charge.charged,
                fee: 0n,
                tag: payload.tag,
                appId: null,
                externalId: payload.externalId,
                requestHash: payload.requestHash
              },
              postings: charge.postings,
              events: [
                {
                  kind: "DebtCharged",
                  walletId,
                  payload: {
                    txId: payload.txId,
                    currency: payload.currency,
                    charged: units(charge.charged),
                    outstanding: units(charge.outstanding)
                  }
                }
              ]
            })
          })
          .pipe(
            nameFailures({
              Duplicate: () => new ExternalIdConflict({ message: "externalId: already used" }),
              StateConflict: () => new ExternalIdConflict({ message: "externalId: could not be charged; retry" }),
              ConstraintViolated: () => new ExternalIdConflict({ message: "externalId: could not be charged; retry" })
            }),
            Effect.catchTag("BalanceNotEnough", () =>
              Effect.die(new Error("invariant: a debt charge on fresh figures never refuses"))
            )
          )
        return { txId: payload.txId, charged: charge.charged, outstanding: charge.outstanding }
      }),
      CommitWithDebit: Effect.fnUntraced(function* ({ payload }) {
        yield* refuseIfBlocked
        const idUpdate = yield* commitDebiting(
          payload.currency,
          payload.debit,
          payload.operation,
          "amount",
          "the payment"
        ).pipe(
          nameFailures({
            Duplicate: () => new NonceExists({ message: "client_nonce: already used by this wallet" }),
            StateConflict: () =>
              new TransactionNotPending({ message: "code: the code changed state meanwhile; read it again" }),
            ConstraintViolated: changedMeanwhile("amount")
          })
        )
        return { idUpdate: String(idUpdate) }
      }),
      CommitInvestmentCreation: Effect.fnUntraced(function* ({ payload }) {
        yield* refuseIfBlocked
        const idUpdate = yield* commitDebiting(
          payload.currency,
          payload.debit,
          payload.operation,
          "amount",
          "the investment"
        ).pipe(
          nameFailures({
            Duplicate: () => new NonceExists({ message: "externalId: taken meanwhile by another creation" }),
            StateConflict: () => {
              throw new Error("invariant: a new investment cannot conflict")
            },
            ConstraintViolated: changedMeanwhile("amount"),
            LedgerRefused: (refused) =>
              refused.reason === "TooManyOpenInvestments"
                ? new TooManyOpenInvestments({ message: "walletId: the wallet's open investments are at the cap" })
                : changedMeanwhile("amount")()
          })
        )
        return { idUpdate: String(idUpdate) }
      }),
      LockForOrder: Effect.fnUntraced(function* ({ payload }) {
        yield* refuseIfBlocked
        // Rooms complete and cancel orders without this actor, so a cached count can only be too
        // high: it is trusted to admit, and recounted in SQL before it refuses.
        if (openOrders === undefined || openOrders >= payload.maxActive)
          openOrders = yield* db(countActiveOrders(String(walletId)))
        if (openOrders >= payload.maxActive) {
          return yield* new MaxActiveOrdersExceeded({
            message: `clientNonce: the wallet already holds ${openOrders} open orders (at most ${payload.maxActive})`
          })
        }
        const order = payload.order
        const operation = placementOperation(walletId, order)
        const idUpdate = yield* commitDebiting(
          order.fromCurrency,
          order.fromAmount,
          operation,
          "fromAmount",
          "the order"
        ).pipe(
          nameFailures({
            Duplicate: () => new NonceExists({ message: "clientNonce: already used by this wallet" }),
            StateConflict: () => {
              throw new Error("invariant: a new order cannot conflict")
            },
            ConstraintViolated: changedMeanwhile("fromAmount")
          })
        )
        openOrders += 1
        return { idUpdate: String(idUpdate) }
      }),
      Reload: () =>
        Effect.sync(() => {
          state.forget()
          openOrders = undefined
        })
    })
  }),
  { maxIdleTime: `${limits.walletIdleSeconds} seconds`, mailboxCapacity: limits.walletMailboxMax, ...answerDefects }
)
