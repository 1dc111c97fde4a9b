/**
 * The payment order actor wraps the pure engine (Engine.ts) with persistence: it loads the order's row
 * as an OrderState (or, for a change, takes the facts its own last commit left: Act.ts), asks the engine,
 * and commits the decision as one ledger operation — the order transaction's transition, the
 * payment_order_update row (conditional on the state it leaves, so a commit from another process that
 * lost the race fails with LC409) and the engine's postings. A
 * decision that takes a wallet's free balance (`debits`, pay_internal) goes through that wallet's actor
 * (`CommitWithDebit`), which alone debits free. The actor serialises one order's messages.
 *
 * Expiry happens on action (C16): an action on an order past expiresAt commits Expired first, then
 * answers 10301. Untouched orders get Expire from the sweep (a periodic job every
 * PAYMENT_SWEEP_SECONDS, src/services/payments/PaymentExpiry.ts); see docs/PAYMENTS.md.
 */
import { Effect } from "effect"
import { Entity } from "effect/cluster"
import { type LedgerOperation, rowsOf, SystemWallet } from "../../sql/Ledger.ts"
import { finalIncomesOfOrders } from "../../sql/OrderAddressRepo.ts"
import { paymentOrderByTx } from "../../sql/PaymentOrderRepo.ts"
import { walletById } from "../../sql/WalletRepo.ts"
import { PaymentOrderAddressDetaches } from "../../sql/rows/PaymentCryptoRows.ts"
import { PaymentOrderPresets } from "../../sql/rows/PaymentPresetRows.ts"
import type { PaymentOrderInsert } from "../../sql/rows/PaymentRows.ts"
import { balanceIn } from "../../sql/LedgerRepo.ts"
import { BalanceNotEnough, NonceExists, RateLimited, SameAccounts } from "../../schema/Errors.ts"
import {
  NoPaymentInProgress,
  PaymentOrderExpired,
  PaymentOrderNotFound,
  PaymentOrderNotPayable,
  PaymentPending,
  TerminalLocked,
  TerminalNotAvailable,
  WrongOrderKind
} from "../../schema/PaymentErrors.ts"
import { limits } from "../../src/platform/Config.ts"
import { answerDefects } from "../../src/platform/ActorFailures.ts"
import { Currencies } from "../../src/platform/Currencies.ts"
import { quoteFee, Tariffs } from "../../src/platform/Tariffs.ts"
import { makeDb } from "../../src/platform/db/Sql.ts"
import { LedgerWriter } from "../../src/platform/LedgerWriter.ts"
import { delivered } from "../../src/platform/Delivery.ts"
import { WalletEntity } from "../wallet/Protocol.ts"
import {
  cancel,
  cancelCrypto,
  type Decision,
  expire,
  type OrderState,
  OrderStateCode,
  payCrypto,
  payInternal,
  payTransferCrypto,
  payTransferInternal,
  type Rule,
  start,
  type TerminalOffer
} from "./Engine.ts"
import { decideTransferCreation, payoutWithdrawalOperation, transferCreationOperation } from "./Payouts.ts"
import {
  type CommitExtras,
  createdFacts,
  type OrderFacts,
  orderCreationOperation,
  orderUpdateRow,
  stateOfRow
} from "./OrderRow.ts"
import { makeOrderAct } from "./Act.ts"
import { type OfferData, type OrderError, PaymentOrderEntity } from "./Protocol.ts"
import { makeRefundHandler } from "./RefundHandler.ts"
import { makeCardHandler } from "./CardHandler.ts"
import { makeOrderTrace } from "./Trace.ts"
import { asPlainIncomes, plainCredited, plainIncomeOperations } from "./PlainIncomes.ts"

export { type CommitExtras, orderUpdateRow, stateOfRow } from "./OrderRow.ts"

const rejection = (rule: Rule): OrderError => {
  switch (rule) {
    case "Expired":
      return new PaymentOrderExpired({ message: "code: the order expired" })
    case "TerminalNotAvailable":
      return new TerminalNotAvailable({ message: "tokenNetworkId: this terminal is not offered for the order" })
    case "TerminalLocked":
      return new TerminalLocked({ message: "tokenNetworkId: the order is locked on another terminal" })
    case "NoPaymentInProgress":
      return new NoPaymentInProgress({ message: "code: no payment in progress" })
    case "WrongKind":
      return new WrongOrderKind({ message: "code: this action does not apply to this kind of order" })
    case "SameAccounts":
      return new SameAccounts({ message: "sid: the merchant wallet cannot pay its own order" })
    case "BalanceNotEnough":
      return new BalanceNotEnough({ message: "sid: free balance does not cover totalToPay" })
    case "PaymentPending":
      return new PaymentPending({ message: "code: a payment is in flight" })
    default:
      return new PaymentOrderNotPayable({ message: "code: the order does not take this action in its state" })
  }
}

export const offerOf = (o: OfferData): TerminalOffer => ({
  terminal: { terminalId: o.terminalId, method: o.method, rate: o.rate, spreadPct: o.spreadPct },
  payCurrency: o.payCurrency,
  payAmount: o.payAmount,
  fee: o.fee,
  profitWallet: o.profitWallet,
  available: o.available
})

const changed = () => new PaymentOrderNotPayable({ message: "code: the order changed state meanwhile; read it again" })

export const PaymentOrderEntityLayer = PaymentOrderEntity.toLayer(
  Effect.gen(function* () {
    const address = yield* Entity.CurrentAddress
    const txId = BigInt(address.entityId)
    const db = yield* makeDb
    const ledger = yield* LedgerWriter
    const walletActor = yield* WalletEntity.client
    const tariffs = yield* Tariffs
    const currencies = yield* Currencies

    const read = Effect.gen(function* () {
      const row = yield* db(paymentOrderByTx(txId))
      if (row === undefined) return yield* new PaymentOrderNotFound({ message: "code: no such order" })
      return row
    })

    /** Commits an Ok decision: the transition, the conditional row, the postings (through the debited wallet). */
    const commit = (
      row: OrderFacts,
      before: OrderState,
      decision: Decision,
      extras: CommitExtras = {}
    ): Effect.Effect<void, OrderError> =>
      Effect.gen(function* () {
        if (decision._tag === "Reject") return yield* rejection(decision.rule)
        const after = decision.state
        const paid = after.stateCode === OrderStateCode.Paid && before.stateCode !== OrderStateCode.Paid
        const operation: LedgerOperation = {
          transition: {
            id: txId,
            from: row.txState,
            to: after.txState,
            ...(paid && after.payerWalletId !== null && after.kind === "PaymentOrder"
              ? { walletFrom: after.payerWalletId, fee: after.fee }
              : {})
          },
          postings: decision.postings,
          rows: [orderUpdateRow(row, before, after, extras), ...(extras.rows ?? [])],
          ...(extras.extra === undefined ? {} : { extra: extras.extra }),
          ...(extras.events === undefined ? {} : { events: extras.events })
        }
        if (decision.debits !== null) {
          const debit = decision.postings
            .filter((p) => p.walletId === decision.debits && p.bucket === 0 && p.delta < 0n)
            .reduce((sum, p) => sum - p.delta, 0n)
          yield* delivered(
            walletActor(String(decision.debits)).CommitWithDebit({
              currency: after.payCurrency ?? after.currency,
              debit,
              operation
            })
          ).pipe(
            Effect.catchTags({
              NonceExists: (e) => Effect.die(e),
              TransactionNotPending: () => Effect.fail(changed())
            })
          )
        } else {
          yield* ledger
            .commit(operation)
            .pipe(
              Effect.catch((failure) =>
                failure._tag === "StateConflict" ? Effect.fail(changed()) : Effect.die(failure)
              )
            )
        }
      })

    /**
     * The expiry of a due order and what it carries: an underpaid crypto order's final Incomes become plain
     * C15 Incomes of the merchant wallet, each with its Deposit fee (PlainIncomes.ts).
     */
    const expiryOf = (before: OrderState, now: number) =>
      Effect.gen(function* () {
        if (before.kind !== "PaymentOrder" || before.incomeFinal === 0n || before.payCurrency === null)
          return { decision: expire(before, now), extras: {}, credited: [] as ReadonlyArray<bigint> }
        const currency = before.payCurrency
        const rules = yield* tariffs.list()
        const walletGroup = (yield* db(walletById(before.merchantWallet)))?.walletGroup ?? 0
        const decimals = currencies.find(currency)?.decimals ?? 0
        const plain = asPlainIncomes(yield* db(finalIncomesOfOrders([txId])), (amount) => {
          const quote = quoteFee(rules, { txClass: "Deposit", currency, decimals, amount, walletGroup, typeTx: 1 })
          return { fee: quote.fee > amount ? amount : quote.fee, profitWallet: quote.profitWalletId }
        })
        return {
          decision: expire(before, now, plain),
          extras: { extra: plainIncomeOperations(plain) },
          credited: plainCredited(before.merchantWallet, plain)
        }
      })

    /** Commits a due order's expiry; the wallets it credits reload. */
    const commitExpiry = (row: OrderFacts, before: OrderState, now: number) =>
      Effect.gen(function* () {
        const { decision, extras, credited } = yield* expiryOf(before, now)
        if (decision._tag === "Reject") return decision
        yield* commit(row, before, decision, extras)
        yield* Effect.forEach(credited, (id) => Effect.ignore(walletActor(String(id)).Reload()), { discard: true })
        return decision
      })

    const { load, act, created } = makeOrderAct({ read, commit, commitExpiry })

    const refundOrder = makeRefundHandler({ txId, db, walletActor, load, stateOfRow, orderUpdateRow })
    const card = makeCardHandler({ txId, db, load, stateOfRow, act, commit, offerOf })
    const trace = makeOrderTrace(txId, db)
    const traced =
      <Q, A, E, R>(name: string, handler: (request: Q) => Effect.Effect<A, E, R>) =>
      (request: Q) =>
        trace.step(name)(handler(request))

    return PaymentOrderEntity.of({
      Create: ({ payload }) =>
        trace.create((traceRows) =>
          Effect.gen(function* () {
            const order: Omit<PaymentOrderInsert, "stateCode"> = {
              txId,
              appId: payload.appId,
              externalId: payload.externalId,
              requestHash: payload.requestHash,
              kind: "PaymentOrder",
              codeHash: payload.codeHash,
              code: payload.code,
              merchantWallet: payload.merchantWallet,
              currency: payload.currency,
              orderAmount: payload.orderAmount,
              fee: 0n,
              profitWallet: SystemWallet.Fees,
              expiresAt: payload.expiresAt,
              description: payload.description,
              returnUrlSuccess: payload.returnUrlSuccess,
              returnUrlFail: payload.returnUrlFail,
              webhookUrl: payload.webhookUrl
            }
            const operation = orderCreationOperation(
              order,
              [],
              payload.preset === undefined || payload.preset === null
                ? traceRows
                : [rowsOf(PaymentOrderPresets, [{ txId, ...payload.preset }]), ...traceRows]
            )
            yield* ledger
              .commit(operation)
              .pipe(
                Effect.catch((failure) =>
                  failure._tag === "Duplicate"
                    ? Effect.fail(new NonceExists({ message: "externalId: already used by this app" }))
                    : Effect.die(failure)
                )
              )
            created(createdFacts(order))
          })
        ),
      Start: traced(
        "Start",
        Effect.fnUntraced(function* ({ payload }) {
          return yield* act((s, now) => start(s, offerOf(payload.offer), now))
        })
      ),
      PayInternal: traced(
        "PayInternal",
        Effect.fnUntraced(function* ({ payload }) {
          const offer = offerOf(payload.offer)
          const payerFree = (yield* db(balanceIn(payload.payer, offer.payCurrency)))?.free ?? 0n
          return yield* act((s, now) => payInternal(s, { payer: payload.payer, payerFree, offer, now }))
        })
      ),
      CreateTransfer: ({ payload }) =>
        trace.create((traceRows) =>
          Effect.gen(function* () {
            const merchantFree = (yield* db(balanceIn(payload.merchantWallet, payload.currency)))?.free ?? 0n
            const decision = decideTransferCreation(payload, merchantFree)
            const refused = () =>
              new BalanceNotEnough({
                message: "orderAmount: the merchant wallet's free balance does not cover orderAmount + fee"
              })
            if (decision._tag === "Reject") return yield* refused()
            yield* delivered(
              walletActor(String(payload.merchantWallet)).CommitWithDebit({
                currency: payload.currency,
                debit: payload.orderAmount + payload.fee,
                operation: transferCreationOperation(txId, payload, decision, traceRows)
              })
            ).pipe(
              Effect.catchTags({
                BalanceNotEnough: () => Effect.fail(refused()),
                TransactionNotPending: (e) => Effect.die(e)
              })
            )
          })
        ),
      PayTransfer: traced(
        "PayTransfer",
        Effect.fnUntraced(function* ({ payload }) {
          const offer = offerOf(payload.offer)
          const kept = { recipient: payload.recipient, ...(payload.meta === null ? {} : { meta: payload.meta }) }
          const withdrawal = payload.withdrawal
          if (withdrawal !== null)
            return yield* act(
              (s, now) => payTransferCrypto(s, offer, now),
              (after) => ({ ...kept, extra: [payoutWithdrawalOperation(txId, after, withdrawal)] })
            )
          const recipient = payload.recipientWallet
          if (recipient === null) return yield* Effect.die(new Error("invariant: an internal payout names its wallet"))
          return yield* act((s, now) => payTransferInternal(s, { recipient, offer, now }), kept)
        })
      ),
      Cancel: traced(
        "Cancel",
        Effect.fnUntraced(function* () {
          return yield* act((s, now) => cancel(s, now))
        })
      ),
      PayCrypto: traced(
        "PayCrypto",
        Effect.fnUntraced(function* ({ payload }) {
          return yield* act((s, now) => payCrypto(s, offerOf(payload.offer), now))
        })
      ),
      CancelCrypto: traced(
        "CancelCrypto",
        Effect.fnUntraced(function* () {
          return yield* act((s, now) => cancelCrypto(s, now), {
            rows: [rowsOf(PaymentOrderAddressDetaches, [{ orderTxId: txId }])]
          })
        })
      ),
      Expire: traced(
        "Expire",
        Effect.fnUntraced(function* () {
          const row = yield* load
          const before = stateOfRow(row)
          const expiry = yield* commitExpiry(row, before, Date.now())
          if (expiry._tag === "Reject") return { stateCode: before.stateCode, replayed: false }
          return { stateCode: expiry.state.stateCode, replayed: false }
        })
      ),
      Refund: traced("Refund", ({ payload }) => refundOrder(payload)),
      PayCard: traced("PayCard", ({ payload }) => card.payCard(payload)),
      CardOutcome: traced("CardOutcome", ({ payload }) => card.cardOutcome(payload))
    })
  }),
  { maxIdleTime: `${limits.walletIdleSeconds} seconds`, mailboxCapacity: limits.walletMailboxMax, ...answerDefects }
)
