/**
 * The wallet actor: holds its wallet's known balances, decides with the pure engine, commits
 * through the ledger writer and replies after the commit. Messages are handled one at a time, so
 * two spends of the same money can never both pass; SQL CHECK constraints back every move.
 */
import { Effect } from "effect"
import { Entity } from "effect/cluster"
import { BalanceNotEnough, ExternalIdConflict, MaxActiveOrdersExceeded, NonceExists, TransactionNotPending } from "../../schema/Errors.ts"
import { fromMinorUnits } from "../../schema/Money.ts"
import { TxState, TxType } from "../../schema/Transfer.ts"
import { limits } from "../../src/platform/Config.ts"
import { makeDb } from "../../src/platform/db/Sql.ts"
import { Currencies } from "../../src/platform/Currencies.ts"
import { LedgerWriter } from "../../src/platform/LedgerWriter.ts"
import { debtCharge, treasuryPosting } from "./Engine.ts"
import { decodeOperation } from "../../sql/rows/OperationCodec.ts"
import type { LedgerOperation } from "../../sql/Ledger.ts"
import { WalletEntity } from "./Protocol.ts"
import { makeWalletState } from "./State.ts"
import { makeTransferHandlers } from "./TransferHandlers.ts"
import { countActiveOrders } from "../../sql/OrderRepo.ts"

const TREASURY = -1n

export const WalletEntityLayer = WalletEntity.toLayer(
  Effect.gen(function*() {
    const address = yield* Entity.CurrentAddress
    const walletId = BigInt(address.entityId)
    const db = yield* makeDb
    const ledger = yield* LedgerWriter
    const state = makeWalletState(walletId, db)
    const currencies = yield* Currencies
    const decimalsOf = (code: string) => currencies.find(code)?.decimals ?? 0
    const transfers = makeTransferHandlers(state, db, ledger, decimalsOf)
    let openOrders: number | undefined

    /**
     * Commits an operation prepared elsewhere that takes `debit` from this wallet's free balance:
     * decided here (on fresh figures before a refusal), retried on fresh figures when the SQL CHECK
     * refuses (another process spent meanwhile).
     */
    const commitDebiting = (
      currency: string, debit: bigint, operation: LedgerOperation,
      words: { readonly field: string; readonly what: string; readonly nonceField: string }
    ) => {
      const attempt = Effect.gen(function*() {
        const decision = yield* state.decide(currency, (known) =>
          known.free >= debit ? { _tag: "Post", postings: operation.postings } : { _tag: "Reject", rule: "BalanceNotEnough" })
        if (decision._tag === "Reject") {
          return yield* new BalanceNotEnough({ message: `${words.field}: free ${currency} balance does not cover ${words.what}` })
        }
        const idUpdate = yield* ledger.commit(operation).pipe(Effect.tapError(() => Effect.sync(() => state.forget(currency))))
        state.apply(operation.postings)
        return idUpdate
      })
      return attempt.pipe(
        Effect.retry({ times: 3, while: (failure) => failure._tag === "ConstraintViolated" }),
        Effect.catch((failure): Effect.Effect<never, BalanceNotEnough | NonceExists | { readonly _tag: "StateConflict" }> =>
          failure._tag === "BalanceNotEnough"
            ? Effect.fail(failure as BalanceNotEnough)
            : failure._tag === "Duplicate"
            ? Effect.fail(new NonceExists({ message: `${words.nonceField}: already used by this wallet` }))
            : failure._tag === "StateConflict"
            ? Effect.fail({ _tag: "StateConflict" as const })
            : Effect.fail(new BalanceNotEnough({ message: `${words.field}: the balance changed; retry` })))
      )
    }

    const duplicateOrShort = (currency: string) => (failure: { readonly _tag: string }): Effect.Effect<never, BalanceNotEnough | ExternalIdConflict> => {
      state.forget(currency)
      return failure._tag === "Duplicate"
        ? Effect.fail(new ExternalIdConflict({ message: "externalId: already used" }))
        : Effect.fail(new BalanceNotEnough({ message: "amount: the balance changed; retry" }))
    }

    return WalletEntity.of({
      PostTreasury: Effect.fnUntraced(function*({ payload }) {
        const amount = BigInt(payload.amountMinor)
        const credit = payload.direction === "credit"
        const attempt = Effect.gen(function*() {
          const decision = yield* state.decide(payload.currency, (known) => treasuryPosting(walletId, known, payload.currency, amount, payload.direction))
          if (decision._tag === "Reject") {
            return yield* new BalanceNotEnough({ message: `amount: free ${payload.currency} balance does not cover the debit` })
          }
          const idUpdate = yield* ledger.commit({
            tx: {
              id: BigInt(payload.txId), typeTx: TxType.Adjustment, txState: TxState.Finished,
              walletFrom: credit ? TREASURY : walletId, walletTo: credit ? walletId : TREASURY,
              currency: payload.currency, amount, fee: 0n, tag: payload.tag, appId: null,
              externalId: payload.externalId, requestHash: payload.requestHash
            },
            postings: decision.postings
          }).pipe(Effect.tapError(() => Effect.sync(() => state.forget(payload.currency))))
          state.apply(decision.postings)
          return idUpdate
        })
        // A CHECK refusal means another process's actor spent meanwhile: decide again on fresh figures.
        const idUpdate = yield* attempt.pipe(
          Effect.retry({ times: 3, while: (failure) => failure._tag === "ConstraintViolated" }),
          Effect.catch((failure) => failure._tag === "BalanceNotEnough" ? Effect.fail(failure as BalanceNotEnough) : duplicateOrShort(payload.currency)(failure))
        )
        return { txId: payload.txId, idUpdate: String(idUpdate) }
      }),
      ...transfers,
      ChargeDebt: Effect.fnUntraced(function*({ payload }) {
        const amount = BigInt(payload.amountMinor)
        const attempt = Effect.gen(function*() {
          let known = yield* state.bucketsOf(payload.currency)
          // Other actors may have credited this wallet since its figure was cached (it can only
          // understate): a charge that would fall short is decided on a fresh load, so it takes
          // min(free, amount) of the real free balance.
          if (known.free < amount) {
            state.forget(payload.currency)
            known = yield* state.bucketsOf(payload.currency)
          }
          const charge = debtCharge(walletId, known, payload.currency, amount, BigInt(payload.profitWalletId))
          yield* ledger.commit({
            tx: {
              id: BigInt(payload.txId), typeTx: TxType.DebtCharge, txState: TxState.Finished, walletFrom: walletId,
              walletTo: BigInt(payload.profitWalletId), currency: payload.currency, amount: charge.charged, fee: 0n, tag: payload.tag,
              appId: null, externalId: payload.externalId, requestHash: payload.requestHash
            },
            postings: charge.postings,
            events: [{ kind: "DebtCharged", walletId, payload: { txId: payload.txId, currency: payload.currency, charged: fromMinorUnits(charge.charged, decimalsOf(payload.currency)), outstanding: fromMinorUnits(charge.outstanding, decimalsOf(payload.currency)) } }]
          }).pipe(Effect.tapError(() => Effect.sync(() => state.forget(payload.currency))))
          state.apply(charge.postings)
          return charge
        })
        // With several processes, another process's actor for this wallet may have spent since this
        // one loaded its figure (the cache then overstates and the SQL CHECK refuses the charge):
        // decide again on fresh figures rather than refuse an operator's valid charge.
        const charge = yield* attempt.pipe(
          Effect.retry({ times: 3, while: (failure) => failure._tag === "ConstraintViolated" }),
          Effect.catch((failure) =>
            Effect.fail(new ExternalIdConflict({ message: `externalId: ${failure._tag === "Duplicate" ? "already used" : "could not be charged; retry"}` })))
        )
        return { txId: payload.txId, chargedMinor: String(charge.charged), outstandingMinor: String(charge.outstanding) }
      }),
      CommitWithDebit: Effect.fnUntraced(function*({ payload }) {
        const idUpdate = yield* commitDebiting(payload.currency, BigInt(payload.debitMinor), decodeOperation(payload.operation), {
          field: "amount", what: "the payment", nonceField: "client_nonce"
        }).pipe(Effect.catch((failure): Effect.Effect<never, BalanceNotEnough | NonceExists | TransactionNotPending> =>
          failure._tag === "StateConflict"
            ? Effect.fail(new TransactionNotPending({ message: "code: the code changed state meanwhile; read it again" }))
            : Effect.fail(failure)))
        return { idUpdate: String(idUpdate) }
      }),
      LockForOrder: Effect.fnUntraced(function*({ payload }) {
        // Rooms complete and cancel orders without this actor, so a cached count can only be too
        // high: it is trusted to admit, and recounted in SQL before it refuses.
        if (openOrders === undefined || openOrders >= payload.maxActive) openOrders = yield* db(countActiveOrders(String(walletId)))
        if (openOrders >= payload.maxActive) {
          return yield* new MaxActiveOrdersExceeded({ message: `clientNonce: the wallet already holds ${openOrders} open orders (at most ${payload.maxActive})` })
        }
        const idUpdate = yield* commitDebiting(payload.currency, BigInt(payload.debitMinor), decodeOperation(payload.operation), {
          field: "fromAmount", what: "the order", nonceField: "clientNonce"
        }).pipe(Effect.catch((failure): Effect.Effect<never, BalanceNotEnough | NonceExists> =>
          failure._tag === "StateConflict" ? Effect.die(new Error("invariant: a new order cannot conflict")) : Effect.fail(failure)))
        openOrders += 1
        return { idUpdate: String(idUpdate) }
      }),
      Reload: () => Effect.sync(() => { state.forget(); openOrders = undefined })
    })
  }),
  { maxIdleTime: `${limits.walletIdleSeconds} seconds`, mailboxCapacity: limits.walletMailboxMax }
)
