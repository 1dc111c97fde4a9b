/**
 * Partner orders and credits (CONTRACT C18): create_partner_order (a C16 payment order on the partner,
 * then our FederationCredit in Created, committed with its link), `fetchOrder` (get_app_payment on the
 * partner), `applyReadBack` (the partner's order as read back, applied by one conditional transition:
 * src/services/federation/Settlement.ts), `readBack` (both: what reconciliation calls; the webhook
 * fetches, decides, then applies) and federation_credit (trusted).
 */
import { Context, Effect, Layer } from "effect"
import { type LinkInsert, linkByRemote, type LinkRow } from "../../../sql/FederationRepo.ts"
import { type LedgerOperation, rowsOf, SystemWallet } from "../../../sql/Ledger.ts"
import { FederationLinkInserts } from "../../../sql/rows/FederationRows.ts"
import { walletById } from "../../../sql/WalletRepo.ts"
import {
  ExternalIdConflict,
  TooManyDecimals,
  TransactionNotPending,
  UnknownCurrency,
  WalletBlocked,
  WalletNotFound
} from "../../../schema/Errors.ts"
import {
  type CreatePartnerOrderIn,
  type FederationCreditIn,
  type FederationCreditOut,
  PartnerCapabilityMissing,
  PartnerCurrencyNotAllowed,
  PartnerEventMismatch,
  PartnerNotFound,
  type PartnerOrderOut,
  PartnerRefused,
  PartnerUnavailable
} from "../../../schema/Federation.ts"
import type { PartnerOrder } from "../../../schema/FederationWire.ts"
import { fromMinorUnits, toMinorUnits } from "../../../schema/Money.ts"
import type { CurrentSession } from "../../../schema/Security.ts"
import { TxState, TxType } from "../../../schema/Transfer.ts"
import { WalletFlag } from "../../../schema/Wallet.ts"
import { AppConfigService } from "../../platform/Config.ts"
import { Currencies } from "../../platform/Currencies.ts"
import { makeDb } from "../../platform/db/Sql.ts"
import { LedgerWriter } from "../../platform/LedgerWriter.ts"
import { TimeTicks } from "../../platform/TimeTicks.ts"
import { makePartnerClient, type PartnerCallError, type PartnerClient, refusedMessage } from "./PartnerClient.ts"
import { type Partner, Partners } from "./Partners.ts"
import { cancelOperation, finishOperation, transition, verdictOf, waitingState } from "./Settlement.ts"

export const externalIdOf = (txId: bigint | string) => `fed-${txId}`

/** Our transaction id from a partner order's externalId ("fed-<txId>"), if it has that form. */
export const txIdOfExternal = (externalId: unknown): bigint | undefined =>
  typeof externalId === "string" && /^fed-[0-9]{1,19}$/.test(externalId) ? BigInt(externalId.slice(4)) : undefined

/** A partner call's failure as C18's 10176 / 10177. */
export const partnerFailure = (partnerId: string) => (error: PartnerCallError) =>
  error._tag === "PartnerAnswered"
    ? new PartnerRefused({ message: refusedMessage(partnerId, error) })
    : new PartnerUnavailable({ message: `partner ${partnerId} did not answer: ${error.reason}` })

export interface Applied {
  readonly moved: boolean
  readonly verdict: "finish" | "cancel" | "none"
  /** Nothing new was recorded because the outcome already was (C18's `duplicate`). */
  readonly settled: boolean
}

const isFinal = (state: number | null) => state !== null && (state & (TxState.Finished | TxState.Canceled)) !== 0

export class FederationOrders extends Context.Service<
  FederationOrders,
  {
    readonly create: (
      session: CurrentSession["Service"],
      input: CreatePartnerOrderIn
    ) => Effect.Effect<
      PartnerOrderOut,
      | PartnerNotFound
      | PartnerCapabilityMissing
      | UnknownCurrency
      | PartnerCurrencyNotAllowed
      | TooManyDecimals
      | WalletBlocked
      | PartnerRefused
      | PartnerUnavailable
      | ExternalIdConflict
    >
    /** get_app_payment on the partner for our transaction's order, checked to be that order (10174 if not). */
    readonly fetchOrder: (
      partner: Partner,
      link: LinkRow
    ) => Effect.Effect<PartnerOrder, PartnerRefused | PartnerUnavailable | PartnerEventMismatch>
    /** The partner's order (as read back) applied to our transaction; PartnerEventMismatch if it is not ours. */
    readonly applyReadBack: (link: LinkRow, order: PartnerOrder) => Effect.Effect<Applied, PartnerEventMismatch>
    /** fetchOrder, then applyReadBack. */
    readonly readBack: (
      partner: Partner,
      link: LinkRow
    ) => Effect.Effect<
      Applied & { readonly order: PartnerOrder },
      PartnerRefused | PartnerUnavailable | PartnerEventMismatch
    >
    readonly credit: (
      input: FederationCreditIn
    ) => Effect.Effect<
      FederationCreditOut,
      | PartnerNotFound
      | PartnerCapabilityMissing
      | WalletNotFound
      | UnknownCurrency
      | TooManyDecimals
      | ExternalIdConflict
      | TransactionNotPending
    >
    readonly client: PartnerClient
  }
>()("core/FederationOrders") {
  static readonly layer = Layer.effect(
    FederationOrders,
    Effect.gen(function* () {
      const db = yield* makeDb
      const config = yield* AppConfigService
      const currencies = yield* Currencies
      const partners = yield* Partners
      const ledger = yield* LedgerWriter
      const ticks = yield* TimeTicks
      const client = makePartnerClient(config.federationHttpTimeoutSeconds)
      const webhookUrlOf = (partnerId: string) =>
        `${config.publicBaseUrl}/auth/v1/app/federation_webhook?partner=${encodeURIComponent(partnerId)}`

      /**
       * A FederationCredit with its link, in one commit: Created (a partner order, nothing moves yet) or
       * Finished at once (a federation_credit without an order: −16 free −amount, the wallet free +amount).
       */
      const creditCommit = (
        link: LinkInsert,
        state: typeof TxState.Created | typeof TxState.Finished
      ): LedgerOperation => ({
        tx: {
          id: link.txId,
          typeTx: TxType.FederationCredit,
          txState: state,
          walletFrom: SystemWallet.Federation,
          walletTo: link.walletId,
          currency: link.currency,
          amount: link.amount,
          fee: 0n,
          tag: link.tag,
          appId: null,
          externalId: null,
          requestHash: null
        },
        postings:
          state === TxState.Finished
            ? finishOperation({ ...link, kind: 2, createdAt: new Date(), txState: null }).postings
            : [],
        rows: [rowsOf(FederationLinkInserts, [link])]
      })

      const create = Effect.fn("FederationOrders.create")(function* (
        session: CurrentSession["Service"],
        input: CreatePartnerOrderIn
      ) {
        const partner = yield* partners.require(input.partnerId, ["Federation", "FederationWallet"])
        const currency = yield* currencies.require(input.currency, "currency")
        yield* partners.requireCurrency(partner, currency.code)
        const amount = yield* currencies.toMinor(input.amount, currency, "amount")
        if ((session.flags & (WalletFlag.WalletBlock | WalletFlag.Deleted)) !== 0)
          return yield* new WalletBlocked({ message: "wallet: blocked (WalletBlock or Deleted)" })
        const txId = ticks.next()
        const order = yield* client
          .putPaymentOrder(partner.endpoint, {
            currency: currency.code,
            orderAmount: fromMinorUnits(amount, currency.decimals),
            externalId: externalIdOf(txId),
            ...(input.description === undefined || input.description === null
              ? {}
              : { description: input.description }),
            ...(input.expiresInSeconds === undefined || input.expiresInSeconds === null
              ? {}
              : { expiresInSeconds: input.expiresInSeconds }),
            webhookUrl: webhookUrlOf(partner.partnerId)
          })
          .pipe(Effect.mapError(partnerFailure(partner.partnerId)))
        const remoteOrderId = order.id
        const expiresAt = order.expiresAt
        // The link and the FederationCredit are one commit: a failure leaves neither behind.
        yield* ledger
          .commit(
            creditCommit(
              {
                txId,
                partnerId: partner.partnerId,
                kind: 1,
                remoteId: remoteOrderId,
                remoteCode: order.code,
                payUrl: order.payUrl,
                expiresAt: expiresAt === null ? null : new Date(expiresAt),
                walletId: BigInt(session.walletId),
                currency: currency.code,
                amount,
                fee: 0n,
                profitWallet: null,
                tag: input.tag ?? null,
                recipient: null
              },
              TxState.Created
            )
          )
          .pipe(
            Effect.catchTag("Duplicate", () =>
              Effect.fail(
                new ExternalIdConflict({
                  message: `partnerId: partner ${partner.partnerId}'s order ${remoteOrderId} is already credited here by reference`
                })
              )
            ),
            Effect.catchTag(["ConstraintViolated", "StateConflict", "LedgerRefused"], Effect.die)
          )
        return {
          txId: String(txId) as PartnerOrderOut["txId"],
          partnerId: partner.partnerId,
          currency: currency.code,
          amount: fromMinorUnits(amount, currency.decimals),
          code: order.code,
          payUrl: order.payUrl,
          remoteOrderId,
          expiresAt
        }
      })

      const matches = (link: LinkRow, order: PartnerOrder) => {
        const currency = currencies.find(link.currency)
        return order.externalId === externalIdOf(link.txId) &&
          order.currency === link.currency &&
          toMinorUnits(order.orderAmount, currency?.decimals ?? 0) === link.amount
          ? Effect.void
          : Effect.fail(
              new PartnerEventMismatch({
                message: `the partner's order does not match transaction ${link.txId} (externalId, currency or amount)`
              })
            )
      }

      const fetchOrder = (partner: Partner, link: LinkRow) =>
        Effect.gen(function* () {
          if (link.remoteId === null)
            return yield* new PartnerEventMismatch({ message: `transaction ${link.txId} has no partner order yet` })
          const order = yield* client
            .getAppPayment(partner.endpoint, link.remoteId)
            .pipe(Effect.mapError(partnerFailure(partner.partnerId)))
          yield* matches(link, order)
          return order
        })

      const applyReadBack = (link: LinkRow, order: PartnerOrder) =>
        Effect.gen(function* () {
          yield* matches(link, order)
          const verdict = verdictOf(order.state)
          if (verdict === "none" || link.txState !== waitingState(link))
            return { moved: false, verdict, settled: isFinal(link.txState) }
          const moved = yield* transition(ledger, verdict === "finish" ? finishOperation(link) : cancelOperation(link))
          // Not moved: another path moved it first (the conditional transition found it settled).
          return { moved, verdict, settled: !moved }
        })

      const readBack = (partner: Partner, link: LinkRow) =>
        Effect.gen(function* () {
          const order = yield* fetchOrder(partner, link)
          const applied = yield* applyReadBack(link, order)
          return { ...applied, order }
        })

      const credit = Effect.fn("FederationOrders.credit")(function* (input: FederationCreditIn) {
        const partner = yield* partners.require(input.partnerId, ["FederationWallet"])
        const wallet = yield* db(walletById(String(input.walletId)))
        if (wallet === undefined || wallet.id < 0n)
          return yield* new WalletNotFound({ message: `walletId: no wallet ${input.walletId}` })
        const currency = yield* currencies.require(input.currency, "currency")
        const amount = yield* currencies.toMinor(input.amount, currency, "amount")
        const tag = input.tag ?? null
        const same = (link: LinkRow) =>
          link.walletId === wallet.id && link.currency === currency.code && link.amount === amount
        const conflict = () =>
          new ExternalIdConflict({ message: `reference: ${input.reference} was credited with another body` })
        for (let round = 0; round < 50; round++) {
          const existing = yield* db(linkByRemote(partner.partnerId, input.reference))
          if (existing !== undefined) {
            if (existing.kind === 3) return yield* conflict()
            if (existing.txState === null) {
              // A link without its transaction: only code before migration 0030 wrote one ahead of its
              // commit. Such a commit in flight gets a moment; one that never happened is answered.
              if (round < 10) {
                yield* Effect.sleep(100)
                continue
              }
              return yield* new TransactionNotPending({
                message: `reference: partner order ${input.reference} is linked here without a transaction (its commit never happened); it cannot be credited by reference`
              })
            }
            if (existing.kind === 1 && existing.txState === TxState.Created) {
              if (!same(existing)) return yield* conflict()
              const moved = yield* transition(ledger, finishOperation(existing))
              if (moved) return { txId: String(existing.txId) as FederationCreditOut["txId"], replayed: false }
              continue
            }
            if (existing.txState === TxState.Canceled)
              return yield* new TransactionNotPending({
                message: `reference: partner order ${input.reference} is canceled`
              })
            if (!same(existing) || (existing.kind === 2 && existing.tag !== tag)) return yield* conflict()
            return { txId: String(existing.txId) as FederationCreditOut["txId"], replayed: true }
          }
          // A new FederationCredit, Finished at once, committed with its link: a concurrent call that
          // took the reference first fails this commit (Duplicate) and the next round answers from its link.
          const txId = ticks.next()
          const committed = yield* ledger
            .commit(
              creditCommit(
                {
                  txId,
                  partnerId: partner.partnerId,
                  kind: 2,
                  remoteId: input.reference,
                  remoteCode: null,
                  payUrl: null,
                  expiresAt: null,
                  walletId: wallet.id,
                  currency: currency.code,
                  amount,
                  fee: 0n,
                  profitWallet: null,
                  tag,
                  recipient: null
                },
                TxState.Finished
              )
            )
            .pipe(
              Effect.map(() => true),
              Effect.catchTag("Duplicate", () => Effect.succeed(false)),
              Effect.catchTag(["ConstraintViolated", "StateConflict", "LedgerRefused"], Effect.die)
            )
          if (committed) return { txId: String(txId) as FederationCreditOut["txId"], replayed: false }
        }
        return yield* Effect.die(new Error(`federation_credit: reference ${input.reference} did not settle`))
      })

      return FederationOrders.of({ create, fetchOrder, applyReadBack, readBack, credit, client })
    })
  )
}
