/**
 * The chain actor: one per crypto terminal. It keeps the terminal's headers in memory (loaded on
 * activation), loads what a message touches, asks the pure plan (Engine.ts, Push.ts, WorkingSet.ts)
 * and commits everything a message decides as one ledger commit. A commit that finds a row moved on
 * (a withdrawal cancelled while a block binds it) is planned again from fresh reads.
 */
import { Effect, Result } from "effect"
import { Entity } from "effect/cluster"
import { cryptoTxById, type CryptoTx, headersOf, storedTipOf, walletGroupsOf } from "../../sql/ChainRepo.ts"
import { ordersOfIncomes } from "../../sql/OrderAddressRepo.ts"
import { type LedgerOperation, StateConflict, SystemWallet } from "../../sql/Ledger.ts"
import { findTerminal } from "../../sql/ReferenceRepo.ts"
import { Stage } from "../../sql/rows/CryptoRows.ts"
import {
  IncomeNotRefundable,
  NotUnattributed,
  PartnerInfoNotRequired,
  PartnerInfoSealed,
  RefundBelowNetworkFee
} from "../../schema/CryptoErrors.ts"
import { TransactionNotFound } from "../../schema/Errors.ts"
import { networkFeeMinor } from "../../schema/Money.ts"
import { TerminalFlag } from "../../schema/Reference.ts"
import { TxState } from "../../schema/Transfer.ts"
import { limits } from "../../src/platform/Config.ts"
import { commitDecision, LostRace } from "../../src/platform/CommitDecision.ts"
import { addressKey } from "../../src/platform/crypto/Addresses.ts"
import { Currencies } from "../../src/platform/Currencies.ts"
import { makeDb } from "../../src/platform/db/Sql.ts"
import { LedgerWriter } from "../../src/platform/LedgerWriter.ts"
import { creditedIn, settlementHook, withSettlements } from "../../src/platform/WithdrawalSettlement.ts"
import { quoteFee, Tariffs } from "../../src/platform/Tariffs.ts"
import { TimeTicks } from "../../src/platform/TimeTicks.ts"
import { WalletEntity } from "../wallet/Protocol.ts"
import { applyPlacement, type ChainView, finalHeight, viewOf } from "./Engine.ts"
import { ChainEntity } from "./Protocol.ts"
import { readOrderIncomeFacts } from "./OrderIncomeReads.ts"
import { type PushPayload, type ReadPush, readPush } from "./PushReads.ts"
import { planOrderIncomes } from "./OrderIncomes.ts"
import { planPush, type TerminalFacts, TxKind } from "./Push.ts"
import { incomeCredited, incomeLinked, makeWorkingSet, refundStarted } from "./WorkingSet.ts"

/** A push planned on reads that another writer overtook is planned again at most this often. */
const replanMax = 5

export const ChainEntityLayer = ChainEntity.toLayer(
  Effect.gen(function* () {
    const address = yield* Entity.CurrentAddress
    const terminalId = BigInt(address.entityId)
    const db = yield* makeDb
    const ledger = yield* LedgerWriter
    const settlements = yield* settlementHook
    const ticks = yield* TimeTicks
    const tariffs = yield* Tariffs
    const currencies = yield* Currencies
    const walletActor = yield* WalletEntity.client

    // The kept headers, reloaded when the stored tip is not the one this actor knows (another
    // process of the deployment pushed since); a commit on a stale tip is refused and planned again.
    let view: ChainView | undefined
    const currentView = Effect.gen(function* () {
      const stored = yield* db(storedTipOf(terminalId))
      const knownTip = view?.tip === null || view === undefined ? undefined : view.hashes.get(view.tip)
      if (view === undefined || stored?.tipHash !== knownTip) view = viewOf(yield* db(headersOf(terminalId)))
      return view
    })

    const terminalFacts = Effect.gen(function* () {
      const row = yield* db(findTerminal(String(terminalId)))
      if (row === undefined || row.currency === null) return yield* Effect.die(`no crypto terminal ${terminalId}`)
      const decimals = currencies.find(row.currency)?.decimals ?? row.decimals
      const facts: TerminalFacts = {
        id: terminalId,
        typeNetwork: row.typeNetwork,
        currency: row.currency,
        confirmations: row.confirmations,
        requirePartnerInfo: (row.flags & TerminalFlag.RequirePartnerInfo) !== 0
      }
      return { ...facts, decimals, networkFee: networkFeeMinor(row.networkFee, decimals) }
    })

    /** The Deposit tariff of the holder's group, capped at the amount (C15). */
    const depositFees = (terminal: TerminalFacts & { decimals: number }, holders: ReadonlyArray<bigint>) =>
      Effect.gen(function* () {
        const rules = yield* tariffs.list()
        const groups = new Map((yield* db(walletGroupsOf(holders))).map((w) => [w.id, w.walletGroup]))
        return (holder: bigint, amount: bigint) => {
          const quote = quoteFee(rules, {
            txClass: "Deposit",
            currency: terminal.currency,
            decimals: terminal.decimals,
            amount,
            walletGroup: groups.get(holder) ?? 0,
            typeTx: TxKind.Income
          })
          return { fee: quote.fee > amount ? amount : quote.fee, profitWallet: quote.profitWalletId }
        }
      })

    const reloadWallets = (ids: ReadonlyArray<bigint>) =>
      Effect.forEach(ids, (id) => Effect.ignore(walletActor(String(id)).Reload()), { discard: true, concurrency: 8 })

    /** Commits; a StateConflict answers undefined so the caller plans again. */
    const commitOrReplan = (operation: LedgerOperation) =>
      ledger.commit(operation).pipe(
        Effect.map((tick): bigint | undefined => tick),
        Effect.catchIf(
          (e) => e instanceof StateConflict,
          () => Effect.succeed(undefined)
        ),
        Effect.orDie
      )

    const pushReads = { terminalId, db, terminalFacts, currentView, depositFees }

    /** Pure: the push's plan on what was read. */
    const planOf = (
      payload: PushPayload,
      { terminal, before, placement, items, recorded, orphanedItems, txs, ownerOf, depositFee, orderIncomes }: ReadPush
    ) =>
      Result.succeed(
        planPush({
          terminal,
          view: before,
          placement,
          // The pushed block, its out items' txIds resolved by txHash (OutItemTxIds.ts).
          block: { ...payload, items },
          recorded,
          orphanedItems,
          txs,
          ownerOf,
          depositFee,
          nextTxId: () => ticks.next(),
          tick: ticks.next(),
          addressKey: (a) => addressKey(terminal.typeNetwork, a),
          orderIncomes
        })
      )

    const commitPush =
      (payload: PushPayload) =>
      (plan: ReturnType<typeof planPush>, { before, placement, txs }: ReadPush) =>
        Effect.gen(function* () {
          // Withdrawals settled here may carry payouts' orders along (src/platform/WithdrawalSettlement.ts).
          const operation = yield* withSettlements(settlements, {
            postings: [],
            rows: plan.rows,
            events: plan.events,
            extra: [...txs.operations(), ...plan.orders.operations]
          })
          if ((yield* commitOrReplan(operation)) === undefined) {
            view = undefined
            return yield* new LostRace({})
          }
          view = applyPlacement(before, placement, payload.height, payload.hash)
          // The hook's operations may credit wallets too (a crypto refund's fee to a user profit wallet).
          yield* reloadWallets([
            ...new Set([...txs.creditedWallets(), ...plan.orders.credited, ...creditedIn(operation)])
          ])
          return {
            tipHeight: plan.tipHeight,
            replayed: placement._tag === "Replay",
            orphaned: plan.orphaned,
            items: plan.answers
          }
        })

    const PushBlock = ({ payload }: { payload: PushPayload }) =>
      commitDecision({
        subject: `chain ${terminalId}`,
        load: readPush(pushReads, payload),
        decide: (read) => planOf(payload, read),
        commit: commitPush(payload),
        retries: replanMax - 1
      }).pipe(Effect.catchTag("DecisionContended", () => Effect.die("chain push: conflicting writers did not settle")))

    /** Whether an Income's block is final at the current tip. */
    const isFinalNow = (tx: CryptoTx, confirmations: number) =>
      Effect.map(
        currentView,
        (v) =>
          tx.txState === (TxState.Created | TxState.Confirmed) ||
          (v.tip !== null &&
            !tx.orphaned &&
            tx.blockHeight !== null &&
            tx.blockHeight <= finalHeight(v.tip, confirmations))
      )

    const Link = Effect.fnUntraced(function* ({ payload }: { payload: { txId: bigint; walletId: bigint } }) {
      const terminal = yield* terminalFacts
      const tx = yield* db(cryptoTxById(payload.txId))
      const notUnattributed = new NotUnattributed({ message: `txId: ${payload.txId} is not an unattributed Income` })
      if (tx === undefined || tx.typeTx !== TxKind.Income || tx.terminalId !== terminalId) return yield* notUnattributed
      if (tx.walletTo === payload.walletId && tx.txState !== TxState.Canceled) return { replayed: true }
      if (tx.walletTo !== SystemWallet.Unattributed || tx.stage !== Stage.Unattributed) return yield* notUnattributed
      const final = yield* isFinalNow(tx, terminal.confirmations)
      // Attribution resolves the fee now: the wallet's Deposit tariff.
      const { fee, profitWallet } = (yield* depositFees(terminal, [payload.walletId]))(payload.walletId, tx.amount)
      const txs = makeWorkingSet([tx])
      txs.change(
        tx.txId,
        { walletTo: payload.walletId, stage: Stage.Confirming, fee, profitWallet },
        incomeLinked(payload.walletId, tx.currency, tx.amount)
      )
      if (final)
        txs.change(
          tx.txId,
          { txState: TxState.Finished, stage: Stage.Credited },
          incomeCredited(payload.walletId, profitWallet, tx.currency, tx.amount, fee)
        )
      const [operation] = txs.operations()
      if ((yield* commitOrReplan(operation)) === undefined) return yield* notUnattributed
      yield* reloadWallets(txs.creditedWallets())
      return { replayed: false }
    })

    const SealPartnerInfo = Effect.fnUntraced(function* ({
      payload
    }: {
      payload: { walletId: bigint; txId: bigint; partnerInfo: string; description: string | null }
    }) {
      const terminal = yield* terminalFacts
      const tx = yield* db(cryptoTxById(payload.txId))
      if (tx === undefined || tx.typeTx !== TxKind.Income || tx.walletTo !== payload.walletId)
        return yield* new TransactionNotFound({ message: `txId: no Income ${payload.txId} of this wallet` })
      if (!terminal.requirePartnerInfo)
        return yield* new PartnerInfoNotRequired({ message: "txId: its terminal does not require partner info" })
      const sealed = new PartnerInfoSealed({
        message: "txId: partner info is already sealed, a refund is under way, or the Income is not active"
      })
      if (
        tx.partnerInfo !== null ||
        (tx.txState & (TxState.Finished | TxState.Canceled)) !== 0 ||
        tx.stage === Stage.Refunding
      )
        return yield* sealed
      let reread = false
      return yield* commitDecision({
        subject: `Income ${payload.txId}`,
        // The Income as read above first, then fresh; one sealed or moved on meanwhile is refused.
        load: Effect.gen(function* () {
          const fresh = reread ? yield* db(cryptoTxById(payload.txId)) : tx
          reread = true
          if (fresh === undefined || fresh.partnerInfo !== null || fresh.stage !== tx.stage) return yield* sealed
          // An Income a payment order took is final for the order only now (C16 crypto follows C15's holds):
          // the order's operation books its money (Paid once Σ final ≥ totalToPay) in this commit.
          const orderIncomes = yield* readOrderIncomeFacts(db, terminal, [], [fresh])
          const depositFee = yield* depositFees(
            terminal,
            [...orderIncomes.orders.values()].map((o) => o.merchantWallet)
          )
          return { fresh, orderIncomes, depositFee }
        }),
        decide: ({ fresh, orderIncomes, depositFee }) => {
          const txs = makeWorkingSet([fresh])
          txs.change(fresh.txId, { partnerInfo: payload.partnerInfo, description: payload.description })
          if (fresh.stage === Stage.AwaitingPartnerInfo)
            txs.change(
              fresh.txId,
              { txState: TxState.Finished, stage: Stage.Credited },
              incomeCredited(
                fresh.walletTo,
                fresh.profitWallet ?? SystemWallet.Fees,
                fresh.currency,
                fresh.amount,
                fresh.fee
              )
            )
          const orders = planOrderIncomes(
            orderIncomes,
            terminalId,
            txs,
            (a) => addressKey(terminal.typeNetwork, a),
            depositFee
          )
          return Result.succeed({ txs, orders })
        },
        commit: ({ txs, orders }, { orderIncomes }) =>
          Effect.gen(function* () {
            const [first, ...more] = [...txs.operations(), ...orders.operations]
            const tick = yield* commitOrReplan({ ...first, extra: [...(first.extra ?? []), ...more] })
            // A plain deposit that lost a race is judged as before (sealed or moved on); an order's income is
            // read again, since the order's row may be what another writer moved.
            if (tick === undefined)
              return yield* orderIncomes.orders.size === 0
                ? Effect.fail(sealed)
                : Effect.fail(new LostRace({ ifLast: sealed }))
            yield* reloadWallets([...new Set([...txs.creditedWallets(), ...orders.credited])])
            return { idUpdate: tick }
          }),
        retries: replanMax - 1
      }).pipe(Effect.catchTag("DecisionContended", () => Effect.fail(sealed)))
    })

    const InitRefund = Effect.fnUntraced(function* ({ payload }: { payload: { walletId: bigint; txId: bigint } }) {
      const terminal = yield* terminalFacts
      const tx = yield* db(cryptoTxById(payload.txId))
      if (tx === undefined || tx.typeTx !== TxKind.Income || tx.walletTo !== payload.walletId)
        return yield* new TransactionNotFound({ message: `txId: no Income ${payload.txId} of this wallet` })
      const refusal = new IncomeNotRefundable({
        message: "txId: only a final Income held for partner info, with a source address, can be refunded"
      })
      if (
        tx.txState !== (TxState.Created | TxState.Confirmed) ||
        tx.stage !== Stage.AwaitingPartnerInfo ||
        tx.fromAddress === null
      )
        return yield* refusal
      // A payment order's Income is the order's money: seal it (the order is then paid, or expires and the
      // Income is the merchant's plain one) and refund through refund_payment or a withdrawal.
      if ((yield* db(ordersOfIncomes([tx.txId]))).length > 0)
        return yield* new IncomeNotRefundable({
          message: "txId: a payment order's Income: seal its partner info; the order then pays or expires"
        })
      if (tx.amount <= terminal.networkFee)
        return yield* new RefundBelowNetworkFee({ message: "txId: the amount does not exceed the network fee" })
      const refundTxId = ticks.next()
      const txs = makeWorkingSet([tx])
      txs.create(
        {
          ...tx,
          txId: refundTxId,
          typeTx: TxKind.Refund,
          txState: TxState.Created | TxState.Confirmed,
          walletFrom: payload.walletId,
          walletTo: SystemWallet.Treasury,
          amount: tx.amount - terminal.networkFee,
          fee: terminal.networkFee,
          profitWallet: null,
          stage: Stage.Queued,
          networkFee: terminal.networkFee,
          txHash: null,
          idx: null,
          fromAddress: null,
          toAddress: tx.fromAddress,
          memo: null,
          blockHeight: null,
          blockHash: null,
          orphaned: false,
          partnerInfo: null,
          description: null,
          refundTxId: null,
          incomeTxId: tx.txId
        },
        []
      )
      txs.change(tx.txId, { stage: Stage.Refunding, refundTxId }, refundStarted(tx.walletTo, tx.currency, tx.amount))
      const operations = txs.operations()
      const tick = yield* commitOrReplan({ ...operations[0], extra: operations.slice(1) })
      if (tick === undefined) return yield* refusal
      return {
        refundTxId,
        toAddress: tx.fromAddress,
        amount: tx.amount - terminal.networkFee,
        networkFee: terminal.networkFee
      }
    })

    return ChainEntity.of({ PushBlock, Link, SealPartnerInfo, InitRefund })
  }),
  { maxIdleTime: `${limits.roomIdleSeconds} seconds`, mailboxCapacity: limits.walletMailboxMax }
)
