/**
 * Partner transfers (CONTRACT C18 "Partner transfers"): value out to a recipient on the partner, two-step
 * like internal_transfer (C12). Step one records a FederationTransfer (typeTx 27, to FederationWallet −16,
 * fee from tariff class FederationTransfer) and reserves amount + fee through the sender's wallet actor
 * (ReserveTransfer: the same confirmation channels, CONFIRMATION_TTL_SECONDS release by the transfers'
 * sweeper). Step two checks the proof in the same actor (ConfirmTransfer kind "partner": 1 → 3, nothing
 * moves), then calls the partner: put_transfer_order, then the gate's pay_transfer, then reads the order
 * back. Paid → Finished; the partner refused → its order canceled, released, 10176; nothing reached it →
 * released, 10177; outcome unknown → stays 3, answered Pending, settled by webhook or reconciliation. All
 * settlements are the conditional transitions of Settlement.ts (exactly once).
 */
import { Clock, Context, Effect, Layer } from "effect"
import { WalletEntity } from "../../../actors/wallet/Protocol.ts"
import { insertLink, linkByTx, type LinkRow, setLinkRemote } from "../../../sql/FederationRepo.ts"
import { SystemWallet } from "../../../sql/Ledger.ts"
import {
  BalanceNotEnough,
  ConfirmationExpired,
  ConfirmationFailed,
  InvalidRequest,
  NonceExists,
  RateLimited,
  TooManyDecimals,
  TransactionNotFound,
  TransactionNotPending,
  UnknownCurrency,
  WalletBlocked
} from "../../../schema/Errors.ts"
import {
  type CancelPartnerTransferOut,
  type CreatePartnerTransferIn,
  PartnerCapabilityMissing,
  PartnerCurrencyNotAllowed,
  PartnerNotFound,
  PartnerRefused,
  PartnerUnavailable
} from "../../../schema/Federation.ts"
import { asTxId, asWalletId } from "../../../schema/Ids.ts"
import { fromMinorUnits } from "../../../schema/Money.ts"
import { type CreateTransactOut, TxState, TxType } from "../../../schema/Transfer.ts"
import { sendBlockingFlags } from "../../../schema/Wallet.ts"
import { AppConfigService } from "../../platform/Config.ts"
import { Currencies } from "../../platform/Currencies.ts"
import { makeDb } from "../../platform/db/Sql.ts"
import { delivered } from "../../platform/Delivery.ts"
import { LedgerWriter } from "../../platform/LedgerWriter.ts"
import { newConfirmation } from "../../platform/SecondFactor.ts"
import { Tariffs } from "../../platform/Tariffs.ts"
import { TimeTicks } from "../../platform/TimeTicks.ts"
import { Journal } from "../ledger/Journal.ts"
import { confirmThrough, requireProof } from "../wallets/SecondStep.ts"
import type { Sender } from "../wallets/Transfers.ts"
import { externalIdOf, FederationOrders, partnerFailure } from "./FederationOrders.ts"
import type { PartnerCallError } from "./PartnerClient.ts"
import { type Partner, Partners } from "./Partners.ts"
import { cancelOperation, finishOperation, transition } from "./Settlement.ts"

const Processing = TxState.Created | TxState.Confirmed

export type PartnerTransferError =
  | InvalidRequest
  | PartnerNotFound
  | PartnerCapabilityMissing
  | UnknownCurrency
  | PartnerCurrencyNotAllowed
  | TooManyDecimals
  | WalletBlocked
  | NonceExists
  | BalanceNotEnough
  | TransactionNotPending
  | ConfirmationFailed
  | ConfirmationExpired
  | PartnerRefused
  | PartnerUnavailable
  | RateLimited

export class PartnerTransfers extends Context.Service<
  PartnerTransfers,
  {
    readonly begin: (
      sender: Sender,
      input: CreatePartnerTransferIn
    ) => Effect.Effect<CreateTransactOut, PartnerTransferError>
    readonly confirm: (
      sender: Sender,
      txId: string,
      code: string | undefined,
      signResult: string | undefined
    ) => Effect.Effect<CreateTransactOut, PartnerTransferError>
    /** Whether `txId` is a partner transfer of this wallet (cancel_tx routes it here). */
    readonly owns: (walletId: string, txId: string) => Effect.Effect<boolean>
    /** The transfer's TxRow once canceled (C18), with `txId` as cancel_tx answers it. */
    readonly cancel: (
      walletId: string,
      txId: string
    ) => Effect.Effect<
      CancelPartnerTransferOut,
      TransactionNotFound | TransactionNotPending | PartnerNotFound | PartnerUnavailable | RateLimited
    >
    /**
     * Reconciliation of one partner transfer in 3 (its partner enabled): read back and applied; unpaid a
     * while after step two, canceled there first. PartnerUnavailable when the partner did not answer.
     */
    readonly reconcileOne: (partner: Partner, link: LinkRow) => Effect.Effect<void, PartnerUnavailable>
  }
>()("core/PartnerTransfers") {
  static readonly layer = Layer.effect(
    PartnerTransfers,
    Effect.gen(function* () {
      const db = yield* makeDb
      const config = yield* AppConfigService
      const currencies = yield* Currencies
      const partners = yield* Partners
      const orders = yield* FederationOrders
      const ledger = yield* LedgerWriter
      const ticks = yield* TimeTicks
      const tariffs = yield* Tariffs
      const journal = yield* Journal
      const walletActor = yield* WalletEntity.client
      const client = orders.client
      const confirmationTtlMs = config.confirmationTtlSeconds * 1000
      const webhookUrlOf = (partnerId: string) =>
        `${config.publicBaseUrl}/auth/v1/app/federation_webhook?partner=${encodeURIComponent(partnerId)}`
      const feeOut = (link: LinkRow) => Number(fromMinorUnits(link.fee, currencies.find(link.currency)?.decimals ?? 0))

      const begin = Effect.fn("PartnerTransfers.begin")(function* (sender: Sender, input: CreatePartnerTransferIn) {
        const partner = yield* partners.require(input.partnerId, ["Federation", "FederationWallet"])
        const currency = yield* currencies.require(input.currency, "currency")
        yield* partners.requireCurrency(partner, currency.code)
        const amount = yield* currencies.toMinor(input.amount, currency, "amount")
        const wallet = sender.session
        if ((wallet.flags & sendBlockingFlags) !== 0)
          return yield* new WalletBlocked({
            message: "wallet: blocked for outgoing transfers (WalletBlock, InnerTransferBlock or Deleted)"
          })
        const quote = yield* tariffs.resolve({
          txClass: "FederationTransfer",
          currency: currency.code,
          decimals: currency.decimals,
          amount,
          walletGroup: wallet.walletGroup,
          typeTx: TxType.FederationTransfer
        })
        const confirmation = newConfirmation(
          (wallet.flags & 8) !== 0,
          sender.keyType,
          new Date(Date.now() + confirmationTtlMs)
        )
        const txId = ticks.next()
        yield* db(
          insertLink({
            txId,
            partnerId: partner.partnerId,
            kind: 3,
            remoteId: null,
            remoteCode: null,
            payUrl: null,
            expiresAt: null,
            walletId: BigInt(sender.walletId),
            currency: currency.code,
            amount,
            fee: quote.fee,
            profitWallet: BigInt(quote.profitWalletId),
            tag: input.tag ?? null,
            recipient: input.recipient
          })
        )
        yield* walletActor(sender.walletId)
          .ReserveTransfer({
            txId: asTxId(String(txId)),
            typeTx: TxType.FederationTransfer,
            recipientId: asWalletId(SystemWallet.Federation),
            profitWalletId: asWalletId(quote.profitWalletId),
            currency: currency.code,
            amount,
            fee: quote.fee,
            tag: input.tag ?? null,
            clientNonce:
              input.clientNonce === undefined || input.clientNonce === null ? null : BigInt(input.clientNonce),
            ...confirmation.reserve
          })
          .pipe(delivered)
        return {
          txId: String(txId) as CreateTransactOut["txId"],
          fee: Number(fromMinorUnits(quote.fee, currency.decimals)),
          ...confirmation.answer
        }
      })

      /** Our side of a partner refusal or silence after the transfer reached 3. */
      const release = (link: LinkRow) => transition(ledger, cancelOperation({ ...link, txState: Processing }))

      /**
       * The partner refused (or nothing reached it): released, whatever the follow-up calls did — 10176
       * or 10177 is never answered with the reservation still held. Only a transfer another path already
       * finished (the partner's read-back said Paid) answers Confirmed instead.
       */
      const refused = (partner: Partner, link: LinkRow, error: PartnerCallError) =>
        Effect.gen(function* () {
          if (!(yield* release(link)) && (yield* db(linkByTx(link.txId)))?.txState === TxState.Finished)
            return answerOf(link, "Confirmed")
          return yield* partnerFailure(partner.partnerId)(error)
        })

      const answerOf = (link: LinkRow, status: "Confirmed" | "Pending"): CreateTransactOut => ({
        txId: String(link.txId) as CreateTransactOut["txId"],
        fee: feeOut(link),
        confirmationStatusCode: status
      })

      /** Reads the partner's order back and applies it; the answer of step two for what it says. */
      const settleByReadBack = (partner: Partner, link: LinkRow) =>
        orders.readBack(partner, { ...link, txState: Processing }).pipe(
          Effect.map((applied) => applied.verdict),
          Effect.catch(() => Effect.succeed("unknown" as const))
        )

      /** Step two's call of the partner, once the transfer is in 3. */
      const payOut = (partner: Partner, link: LinkRow) =>
        Effect.gen(function* () {
          const put = yield* client
            .putTransferOrder(partner.endpoint, {
              currency: link.currency,
              orderAmount: fromMinorUnits(link.amount, currencies.find(link.currency)?.decimals ?? 0),
              externalId: externalIdOf(link.txId),
              ...(link.tag === null ? {} : { description: link.tag }),
              webhookUrl: webhookUrlOf(partner.partnerId)
            })
            .pipe(Effect.result)
          if (put._tag === "Failure") {
            const error: PartnerCallError = put.failure
            if (error._tag === "PartnerAnswered" || !error.reached) return yield* refused(partner, link, error)
            return answerOf(link, "Pending")
          }
          const order = put.success
          const remote = { ...link, remoteId: order.id }
          yield* db(setLinkRemote(link.txId, remote.remoteId))
          const paid = yield* client
            .payTransfer(partner.endpoint, order.code ?? "", link.recipient ?? "")
            .pipe(Effect.result)
          if (paid._tag === "Failure") {
            const error: PartnerCallError = paid.failure
            if (error._tag === "PartnerAnswered") {
              // Refused (float short, unknown recipient, ...): its order is canceled there, then read back;
              // released whether or not those calls succeed (only we hold the order's code: unpaid, it expires).
              yield* client.cancelPaymentOrder(partner.endpoint, remote.remoteId).pipe(Effect.ignore)
              const verdict = yield* settleByReadBack(partner, remote)
              if (verdict === "finish") return answerOf(link, "Confirmed")
              return yield* refused(partner, link, error)
            }
            // Nothing reached the partner: the order there stays unpaid (only we hold its code) and expires.
            if (!error.reached) return yield* refused(partner, link, error)
            return answerOf(link, "Pending")
          }
          const verdict = yield* settleByReadBack(partner, remote)
          return answerOf(link, verdict === "finish" ? "Confirmed" : "Pending")
        })

      const confirm = Effect.fn("PartnerTransfers.confirm")(function* (
        sender: Sender,
        txId: string,
        code: string | undefined,
        signResult: string | undefined
      ) {
        yield* requireProof(code, signResult)
        const link = yield* db(linkByTx(BigInt(txId)))
        if (link === undefined || link.kind !== 3 || String(link.walletId) !== sender.walletId)
          return yield* new TransactionNotPending({
            message: `confirmationTimetick: transaction ${txId} is not waiting for confirmation`
          })
        // A partner disabled (or stripped of a capability) since step one: refused before anything moves
        // (the reservation stays until the sender cancels or CONFIRMATION_TTL_SECONDS releases it).
        const partner = yield* partners.require(link.partnerId, ["Federation", "FederationWallet"])
        yield* confirmThrough(walletActor, sender.walletId, txId, code, signResult, "partner")
        return yield* payOut(partner, link)
      })

      const owns = (walletId: string, txId: string) =>
        /^[0-9]{1,19}$/.test(txId)
          ? Effect.map(
              db(linkByTx(BigInt(txId))),
              (link) => link !== undefined && link.kind === 3 && String(link.walletId) === walletId
            )
          : Effect.succeed(false)

      /** A partner order id for a link still without one: put_transfer_order again (idempotent by externalId). */
      const learnRemote = (partner: Partner, link: LinkRow) =>
        Effect.gen(function* () {
          if (link.remoteId !== null) return link
          const order = yield* client.putTransferOrder(partner.endpoint, {
            currency: link.currency,
            orderAmount: fromMinorUnits(link.amount, currencies.find(link.currency)?.decimals ?? 0),
            externalId: externalIdOf(link.txId),
            ...(link.tag === null ? {} : { description: link.tag }),
            webhookUrl: webhookUrlOf(partner.partnerId)
          })
          const remoteId = order.id
          yield* db(setLinkRemote(link.txId, remoteId))
          return { ...link, remoteId }
        })

      /** Asks the partner to cancel, then reads back: what the partner's order became decides. */
      const cancelThere = (partner: Partner, link: LinkRow) =>
        Effect.gen(function* () {
          const known = yield* learnRemote(partner, link)
          yield* client
            .cancelPaymentOrder(partner.endpoint, known.remoteId!)
            .pipe(Effect.catchTag("PartnerAnswered", () => Effect.void))
          return yield* orders.readBack(partner, known)
        })

      /** The transaction as it now is: its TxRow (C11 shape), with txId. */
      const rowOf = (walletId: string, txId: string) =>
        Effect.map(journal.txOfWallet(walletId, txId), (row) => ({ txId, ...row }))

      const cancel = Effect.fn("PartnerTransfers.cancel")(function* (walletId: string, txId: string) {
        const link = /^[0-9]{1,19}$/.test(txId) ? yield* db(linkByTx(BigInt(txId))) : undefined
        if (link === undefined || link.kind !== 3 || String(link.walletId) !== walletId || link.txState === null)
          return yield* new TransactionNotFound({ message: `id: no partner transfer ${txId} of this wallet` })
        // C18: an unknown or disabled partner is 404 10170 in every action, this one too.
        const partner = yield* partners.requireEnabled(link.partnerId)
        if (link.txState === TxState.Created) {
          yield* walletActor(walletId)
            .CancelTransfer({ txId: asTxId(txId), reason: "cancelled by the sender" })
            .pipe(delivered)
          return yield* rowOf(walletId, txId)
        }
        if (link.txState !== Processing)
          return yield* new TransactionNotPending({ message: `id: transaction ${txId} is already settled` })
        const applied = yield* cancelThere(partner, link).pipe(
          Effect.mapError(
            (error) =>
              new PartnerUnavailable({
                message: `partner ${link.partnerId}: ${"message" in error ? error.message : "no answer"}`
              })
          )
        )
        if (applied.verdict === "cancel") return yield* rowOf(walletId, txId)
        if (applied.verdict === "finish")
          return yield* new TransactionNotPending({ message: `id: transaction ${txId} was paid on the partner` })
        return yield* new PartnerUnavailable({
          message: `partner ${link.partnerId}: its order is ${applied.order.state}, not canceled yet`
        })
      })

      // A transfer in 3 is read back; one whose partner order is still unpaid a while after step two (its
      // pay_transfer never arrived, or arrived and failed) is canceled there first: the cancel is atomic on
      // the partner, so a slow pay_transfer can no longer pay it.
      const graceMs = config.federationHttpTimeoutSeconds * 3 * 1000
      const reconcileOne = (partner: Partner, link: LinkRow) =>
        Effect.gen(function* () {
          const known = yield* learnRemote(partner, link).pipe(
            Effect.catchTag("PartnerAnswered", () => Effect.as(release(link), undefined))
          )
          if (known === undefined) return
          const applied = yield* orders.readBack(partner, known)
          const unpaid = applied.order.state === "Created" || applied.order.state === "Started"
          // The grace is measured on effect's Clock, the time the reconciliation's beats follow.
          const now = yield* Clock.currentTimeMillis
          if (applied.verdict === "none" && unpaid && now - link.createdAt.getTime() > graceMs)
            yield* cancelThere(partner, known)
        }).pipe(
          // The partner silent: the pass leaves it (PartnerUnavailable); any other failure skips this link.
          Effect.catchTag("PartnerSilent", (silent) =>
            Effect.fail(
              new PartnerUnavailable({ message: `partner ${partner.partnerId} did not answer: ${silent.reason}` })
            )
          ),
          Effect.catchTag(["PartnerAnswered", "PartnerRefused", "PartnerEventMismatch"], () => Effect.void)
        )

      return PartnerTransfers.of({ begin, confirm, owns, cancel, reconcileOne })
    })
  )
}
