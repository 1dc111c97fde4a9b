/**
 * Payment orders (CONTRACT C16, issue #14): a merchant creates an order
 * (put_payment_order, idempotent per (app, externalId)), reads and cancels it; the payment gate shows it
 * by code, starts it and pays it from a wallet (pay_internal). Every change is a message to the order's
 * actor (actors/payment), which asks the pure engine and commits. The terminals an order is offered on,
 * with their quotes, are PaymentOffers.ts; a merchant may preselect one (and fix its price) at creation.
 */
import { Context, Effect, Layer } from "effect"
import { SystemWallet } from "../../../sql/Ledger.ts"
import { createHash, randomBytes } from "node:crypto"
import { type OfferData, type OrderError, PaymentOrderEntity } from "../../../actors/payment/Protocol.ts"
import { acquiringSessionsOfOrder, latestAcquiringSession } from "../../../sql/AcquiringRepo.ts"
import { findAppById } from "../../../sql/CredentialRepo.ts"
import {
  paymentOrderByCodeHash,
  paymentOrderByExternalId,
  paymentOrderByTx,
  type PaymentOrderRow
} from "../../../sql/PaymentOrderRepo.ts"
import {
  ExternalIdConflict,
  InvalidAmount,
  InvalidRequest,
  RateLimited,
  TerminalNotFound,
  TooManyDecimals,
  UnknownCurrency
} from "../../../schema/Errors.ts"
import {
  AppNotFound,
  PayAmountNeedsTerminal,
  PaymentOrderNotFound,
  TerminalNotAvailable,
  WebhookUrlRejected
} from "../../../schema/PaymentErrors.ts"
import type {
  AcquiringSessionOut,
  OrderInfoOut,
  PaymentOrderOut,
  PutPaymentOrderIn,
  RefundOut,
  TerminalOut
} from "../../../schema/Payments.ts"
import { AppConfigService } from "../../platform/Config.ts"
import { Currencies } from "../../platform/Currencies.ts"
import { refuseDisabledApp } from "./AppGate.ts"
import type { AppDisabledOrder } from "../../../schema/EdgeErrors.ts"
import { makeDb } from "../../platform/db/Sql.ts"
import { delivered } from "../../platform/Delivery.ts"
import { TimeTicks } from "../../platform/TimeTicks.ts"
import { makePaymentOffers, type OfferOrder } from "./PaymentOffers.ts"
import { acquiringSessionOut, orderAcquiringOut } from "./acquiring/AcquiringViews.ts"
import { orderAddressOut } from "./OrderAddressView.ts"
import { orderViews } from "./PaymentOrderViews.ts"
import { checkWebhookUrl } from "./WebhookUrlCheck.ts"
import { Terminals } from "../crypto/Terminals.ts"
import type { Terminal } from "../../../sql/ReferenceRepo.ts"

export const hashOfOrderCode = (code: string): Uint8Array => createHash("sha256").update(code, "utf8").digest()
const newOrderCode = () => "P" + randomBytes(16).toString("base64url")

/**
 * Whether an order is past expiresAt with nothing in flight: Created or Started, or an underpaid crypto
 * order (Processing, no income in flight, final incomes short). The actor decides with the engine
 * (isDue, which also sees a Pending card session); this only picks when to ask.
 */
const looksDue = (row: PaymentOrderRow, now: number) =>
  now > row.expiresAt.getTime() &&
  (row.stateCode === 1 ||
    row.stateCode === 2 ||
    (row.stateCode === 3 && row.kind === "PaymentOrder" && row.incomeSeen === 0n && row.incomeFinal > 0n))

export interface OrderRef {
  readonly code?: string | undefined
  readonly id?: string | undefined
}

export type PutError =
  | UnknownCurrency
  | TooManyDecimals
  | InvalidRequest
  | ExternalIdConflict
  | PayAmountNeedsTerminal
  | TerminalNotFound
  | TerminalNotAvailable
  | InvalidAmount
  | RateLimited
  | WebhookUrlRejected
export type GateError = OrderError | PaymentOrderNotFound | TerminalNotFound | InvalidRequest | AppDisabledOrder

/**
 * An order with everything the service keeps beside it (private get_payment_order_info): its acquiring
 * sessions here; its refunds are filled by the handler from PaymentRefunds (which builds on this service).
 */
export type PaymentOrderDetail = PaymentOrderOut & {
  readonly refunds: ReadonlyArray<RefundOut>
  readonly acquiringSessions: ReadonlyArray<AcquiringSessionOut>
}

export class PaymentOrders extends Context.Service<
  PaymentOrders,
  {
    readonly put: (
      app: { readonly appId: string; readonly walletId: string },
      input: PutPaymentOrderIn
    ) => Effect.Effect<PaymentOrderOut & { readonly replayed: boolean }, PutError>
    /** Private create_payment_order: put_payment_order for the app named by id (404 10308). */
    readonly create: (
      appId: string,
      input: PutPaymentOrderIn
    ) => Effect.Effect<PaymentOrderOut & { readonly replayed: boolean }, PutError | AppNotFound>
    readonly get: (appId: string, ref: OrderRef) => Effect.Effect<PaymentOrderOut, GateError>
    readonly cancel: (appId: string, ref: OrderRef) => Effect.Effect<PaymentOrderOut, GateError>
    /** Private get_payment_order_info: any app's order by code or id. */
    readonly detail: (ref: OrderRef) => Effect.Effect<PaymentOrderDetail, GateError>
    readonly info: (code: string) => Effect.Effect<OrderInfoOut, GateError>
    /** get_terminals?code= / private get_payment_terminals: the order's offers with quotes. */
    readonly terminals: (code: string) => Effect.Effect<ReadonlyArray<TerminalOut>, GateError>
    /** get_terminals without a code: the generic list (`currency` marks sameAsOrderCurrency). */
    readonly genericTerminals: (currency: string | undefined) => Effect.Effect<ReadonlyArray<TerminalOut>>
    readonly start: (code: string, tokenNetworkId: string) => Effect.Effect<OrderInfoOut, GateError>
    readonly payInternal: (
      code: string,
      payer: string
    ) => Effect.Effect<OrderInfoOut & { readonly replayed: boolean }, GateError>
    /**
     * The engine's offer of one terminal for the order (PaymentOffers.ts; undefined: the internal one), as
     * order_start hands it over: not offered or not available now → an unavailable offer (10303 from the
     * engine, after its expiry, state and 10304 rules); unknown 404 10040. pay_crypto uses it too.
     */
    readonly offerOn: (
      row: PaymentOrderRow,
      terminalId: string | undefined
    ) => Effect.Effect<OfferData, TerminalNotFound>
    /** The order → PaymentOrderOut mapping every merchant read uses (get_app_payment, the feed). */
    readonly toOut: (row: PaymentOrderRow) => PaymentOrderOut
  }
>()("core/PaymentOrders") {
  static readonly layer = Layer.effect(
    PaymentOrders,
    Effect.gen(function* () {
      const db = yield* makeDb
      const ticks = yield* TimeTicks
      const currencies = yield* Currencies
      const terminals = yield* Terminals
      const offers = yield* makePaymentOffers
      const config = yield* AppConfigService
      const actor = yield* PaymentOrderEntity.client

      const { toOut, toInfo } = orderViews((currency) => currencies.find(currency)?.decimals ?? 0, config.publicBaseUrl)

      const notFound = () => new PaymentOrderNotFound({ message: "code: no such order" })

      /** Reads the order; one past expiresAt is expired first (reads show Expired). */
      const fresh = (row: PaymentOrderRow) =>
        Effect.gen(function* () {
          if (!looksDue(row, Date.now())) return row
          yield* Effect.ignore(delivered(actor(String(row.txId)).Expire({})))
          return (yield* db(paymentOrderByTx(row.txId))) ?? row
        })

      const byCode = (code: string) =>
        Effect.gen(function* () {
          const row = yield* db(paymentOrderByCodeHash(hashOfOrderCode(code)))
          // A TransferOrder is found too: its gate actions are pay_transfer's; others answer 10307 (engine).
          if (row === undefined) return yield* notFound()
          return yield* fresh(row)
        })

      /** Exactly one of code and id (10001); none: 404 10300 (`ofApp`: another app's order too). */
      const byRef = (ref: OrderRef, appId?: string) =>
        Effect.gen(function* () {
          if ((ref.code === undefined) === (ref.id === undefined))
            return yield* new InvalidRequest({ message: "query: send exactly one of `code` and `id`" })
          if (ref.id !== undefined && !/^[0-9]{1,19}$/.test(ref.id))
            return yield* new InvalidRequest({ message: "id: must be an order id" })
          const row =
            ref.code !== undefined
              ? yield* db(paymentOrderByCodeHash(hashOfOrderCode(ref.code)))
              : yield* db(paymentOrderByTx(ref.id!))
          if (row === undefined || (appId !== undefined && String(row.appId) !== appId))
            return yield* new PaymentOrderNotFound({
              message: `${ref.code !== undefined ? "code" : "id"}: no such order${appId !== undefined ? " of this app" : ""}`
            })
          return yield* fresh(row)
        })
      const ofApp = (appId: string, ref: OrderRef) => byRef(ref, appId)

      /**
       * The gate's view of an order: its locked (or preselected) terminal as offered (`known`: the terminals
       * this request already read), its crypto address (OrderAddressView.ts) and its latest card session.
       * A session is only ever opened by pay_card, which locks the order on its Card terminal for good (the
       * engine never moves a lock off a Card terminal), so an order not on one has none and is not asked.
       */
      const infoOf = (row: PaymentOrderRow, known?: ReadonlyArray<Terminal>) =>
        Effect.gen(function* () {
          const terminal = yield* offers.terminalOf(row, known)
          const address = yield* orderAddressOut(db, (c) => currencies.find(c)?.decimals ?? 0, row)
          const acquiring =
            row.method === "CardAcquiring" ? orderAcquiringOut(yield* db(latestAcquiringSession(row.txId))) : null
          return { ...toInfo(row, terminal), address, acquiring }
        })

      const reread = (txId: bigint) => Effect.map(db(paymentOrderByTx(txId)), (row) => row!)

      const requestHashOf = (fields: Record<string, unknown>) =>
        createHash("sha256").update(JSON.stringify(fields), "utf8").digest("hex")

      const put = Effect.fn("PaymentOrders.put")(function* (
        app: { readonly appId: string; readonly walletId: string },
        input: PutPaymentOrderIn
      ) {
        const currency = yield* currencies.require(input.currency, "currency")
        const orderAmount = yield* currencies.toMinor(input.orderAmount, currency, "orderAmount")
        const payAmountGiven = input.payAmount !== undefined && input.payAmount !== null
        const terminalGiven = input.terminalId !== undefined && input.terminalId !== null
        if (payAmountGiven && !terminalGiven)
          return yield* new PayAmountNeedsTerminal({ message: "payAmount: needs terminalId" })
        // The preselected terminal (404 10040 when unknown) and the price in its currency (10021).
        const presetTerminal = terminalGiven
          ? (yield* terminals.all()).find((t) => String(t.id) === String(input.terminalId))
          : undefined
        if (terminalGiven && presetTerminal === undefined)
          return yield* new TerminalNotFound({ message: `terminalId: no terminal ${input.terminalId}` })
        const presetCurrency =
          presetTerminal === undefined ? null : presetTerminal.builtIn ? currency.code : (presetTerminal.currency ?? "")
        const presetPayAmount =
          payAmountGiven && presetCurrency !== null
            ? yield* currencies.toMinor(
                String(input.payAmount),
                yield* currencies.require(presetCurrency, "terminalId"),
                "payAmount"
              )
            : null
        for (const [field, url] of [
          ["returnUrlSuccess", input.returnUrlSuccess],
          ["returnUrlFail", input.returnUrlFail]
        ] as const) {
          if (url !== undefined && url !== null && !/^https?:\/\/[^\s]+$/.test(url))
            return yield* new InvalidRequest({ message: `${field}: must be an http(s) URL` })
        }
        yield* checkWebhookUrl(input.webhookUrl, config.webhookAllowPrivateAddresses)
        const normalized = {
          currency: currency.code,
          orderAmount: String(orderAmount),
          description: input.description ?? null,
          expiresInSeconds: input.expiresInSeconds ?? null,
          terminalId: input.terminalId ?? null,
          payAmount: presetPayAmount === null ? null : String(presetPayAmount),
          returnUrlSuccess: input.returnUrlSuccess ?? null,
          returnUrlFail: input.returnUrlFail ?? null,
          webhookUrl: input.webhookUrl ?? null
        }
        const requestHash = requestHashOf(normalized)
        const replay = (row: PaymentOrderRow) =>
          row.requestHash === requestHash
            ? Effect.succeed({ ...toOut(row), replayed: true })
            : Effect.fail(new ExternalIdConflict({ message: "externalId: already used by this app with another body" }))
        const existing = yield* db(paymentOrderByExternalId(app.appId, input.externalId))
        if (existing !== undefined) return yield* replay(existing)
        const expiresAt = new Date(Date.now() + (input.expiresInSeconds ?? config.paymentOrderTtlSeconds) * 1000)
        if (presetTerminal !== undefined) {
          // The order as it will be created: the preselected terminal must be offered (10303), a
          // same-currency price must be orderAmount (10014), and it must be available now (10303).
          const draft: OfferOrder = {
            kind: "PaymentOrder",
            typeTx: 20,
            stateCode: 1,
            currency: currency.code,
            orderAmount,
            merchantWallet: BigInt(app.walletId),
            expiresAt,
            terminalId: null,
            method: null,
            payCurrency: null,
            payAmount: null,
            fee: 0n,
            profitWallet: SystemWallet.Fees,
            rate: null,
            spreadPct: null,
            presetTerminalId: presetTerminal.id,
            presetPayAmount
          }
          const offered = (yield* offers.forOrder(draft)).find((o) => o.terminal.id === presetTerminal.id)
          if (offered === undefined)
            return yield* new TerminalNotAvailable({ message: "terminalId: this terminal is not offered for payments" })
          if (presetPayAmount !== null && presetCurrency === currency.code && presetPayAmount !== orderAmount)
            return yield* new InvalidAmount({
              message: "payAmount: on a terminal in the order currency it must equal orderAmount"
            })
          if (!offered.out.available)
            return yield* new TerminalNotAvailable({
              message:
                "terminalId: the terminal cannot take this order now (no rate, or the price is outside its bounds)"
            })
        }
        const txId = ticks.next()
        const code = newOrderCode()
        const created = yield* delivered(
          actor(String(txId)).Create({
            appId: BigInt(app.appId),
            externalId: input.externalId,
            requestHash,
            merchantWallet: BigInt(app.walletId),
            codeHash: hashOfOrderCode(code),
            code,
            currency: currency.code,
            orderAmount,
            expiresAt,
            description: input.description ?? null,
            returnUrlSuccess: input.returnUrlSuccess ?? null,
            returnUrlFail: input.returnUrlFail ?? null,
            webhookUrl: input.webhookUrl ?? null,
            preset:
              presetTerminal === undefined
                ? null
                : { terminalId: presetTerminal.id, payCurrency: presetCurrency!, payAmount: presetPayAmount }
          })
        ).pipe(
          Effect.as(true),
          Effect.catchTag("NonceExists", () => Effect.succeed(false))
        )
        if (!created) {
          // Another request with this externalId won the unique index: answer as its replay.
          const first = yield* db(paymentOrderByExternalId(app.appId, input.externalId))
          if (first === undefined) return yield* Effect.die(new Error("invariant: the winning order is not readable"))
          return yield* replay(first)
        }
        return { ...toOut(yield* reread(txId)), replayed: false }
      })

      return PaymentOrders.of({
        put,
        toOut,
        offerOn: (row, terminalId) => offers.offerOn(row, terminalId),
        get: (appId, ref) => Effect.map(ofApp(appId, ref), toOut),
        cancel: (appId, ref) =>
          Effect.gen(function* () {
            const row = yield* ofApp(appId, ref)
            yield* delivered(actor(String(row.txId)).Cancel({}))
            return toOut(yield* reread(row.txId))
          }),
        create: (appId, input) =>
          Effect.gen(function* () {
            const found = yield* db(findAppById(appId))
            if (found === undefined) return yield* new AppNotFound({ message: `appId: no app ${appId}` })
            return yield* put({ appId: String(found.id), walletId: String(found.walletId) }, input)
          }),
        detail: (ref) =>
          Effect.gen(function* () {
            const row = yield* byRef(ref)
            const sessions = yield* db(acquiringSessionsOfOrder(row.txId))
            const acquiringSessions = sessions.map((s) =>
              acquiringSessionOut(s, (c) => currencies.find(c)?.decimals ?? 0)
            )
            return { ...toOut(row), refunds: [], acquiringSessions } satisfies PaymentOrderDetail
          }),
        info: (code) => Effect.flatMap(byCode(code), infoOf),
        terminals: (code) =>
          Effect.gen(function* () {
            const row = yield* byCode(code)
            return (yield* offers.forOrder(row)).map((o) => o.out)
          }),
        genericTerminals: (currency) => offers.generic(currency),
        start: (code, tokenNetworkId) =>
          Effect.gen(function* () {
            const row = yield* byCode(code)
            yield* refuseDisabledApp(row)
            // One read of the terminals serves the offer and the answer's view.
            const known = yield* terminals.all()
            const offer = yield* offers.offerOn(row, tokenNetworkId, known)
            yield* delivered(actor(String(row.txId)).Start({ offer }))
            return yield* infoOf(yield* reread(row.txId), known)
          }),
        payInternal: (code, payer) =>
          Effect.gen(function* () {
            const row = yield* byCode(code)
            yield* refuseDisabledApp(row)
            // pay_internal always pays on the internal terminal; one locked elsewhere answers 10304 (engine).
            const known = yield* terminals.all()
            const offer = yield* offers.offerOn(row, undefined, known)
            const answer = yield* delivered(actor(String(row.txId)).PayInternal({ payer: BigInt(payer), offer }))
            return { ...(yield* infoOf(yield* reread(row.txId), known)), replayed: answer.replayed }
          })
      })
    })
  )
}
