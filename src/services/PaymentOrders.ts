/**
 * Payment orders (CONTRACT C16, issue #14), the first slice: a merchant creates an order
 * (put_payment_order, idempotent per (app, externalId)), reads and cancels it; the payment gate shows it
 * by code, starts it and pays it from a wallet (pay_internal). Every change is a message to the order's
 * actor (actors/payment), which asks the pure engine and commits. Only the built-in internal terminal
 * (typeNetwork 240, in the order currency) is offered for now; other terminals answer 10303.
 */
import { Context, Effect, Layer } from "effect"
import { createHash, randomBytes } from "node:crypto"
import { type OfferData, type OrderError, PaymentOrderEntity } from "../../actors/payment/Protocol.ts"
import {
  paymentOrderByCodeHash,
  paymentOrderByExternalId,
  paymentOrderByTx,
  type PaymentOrderRow
} from "../../sql/PaymentOrderRepo.ts"
import { walletById } from "../../sql/WalletRepo.ts"
import {
  ExternalIdConflict,
  InvalidRequest,
  RateLimited,
  TerminalNotFound,
  TooManyDecimals,
  UnknownCurrency
} from "../../schema/Errors.ts"
import { PayAmountNeedsTerminal, PaymentOrderNotFound, TerminalNotAvailable } from "../../schema/PaymentErrors.ts"
import type { OrderInfoOut, PaymentOrderOut, PutPaymentOrderIn } from "../../schema/Payments.ts"
import { fromMinorUnits } from "../../schema/Money.ts"
import { AppConfigService } from "../platform/Config.ts"
import { Currencies } from "../platform/Currencies.ts"
import { makeDb } from "../platform/db/Sql.ts"
import { delivered } from "../platform/Delivery.ts"
import { Tariffs } from "../platform/Tariffs.ts"
import { TimeTicks } from "../platform/TimeTicks.ts"
import { orderAddressOut } from "./OrderAddressView.ts"
import { Terminals } from "./Terminals.ts"

export const hashOfOrderCode = (code: string): Uint8Array => createHash("sha256").update(code, "utf8").digest()
const newOrderCode = () => "P" + randomBytes(16).toString("base64url")

const stateNames: Record<number, PaymentOrderOut["state"]> = {
  1: "Created",
  2: "Started",
  3: "Processing",
  8: "Paid",
  9: "PartiallyRefunded",
  10: "Refunded",
  16: "Expired",
  17: "Canceled",
  18: "Failed"
}

/** What the payer pays (payAmount + fee) once a terminal is locked. */
const totalToPay = (row: PaymentOrderRow) => (row.payAmount === null ? null : row.payAmount + row.fee)

/**
 * Whether an order is past expiresAt with nothing in flight (the engine's isDue, for this slice's
 * internal payments: Created or Started). The actor decides with the engine; this only picks when to ask.
 */
const looksDue = (row: PaymentOrderRow, now: number) =>
  now > row.expiresAt.getTime() && (row.stateCode === 1 || row.stateCode === 2)

export interface OrderRef {
  readonly code?: string | undefined
  readonly id?: string | undefined
}

export type PutError = UnknownCurrency | TooManyDecimals | InvalidRequest | ExternalIdConflict | PayAmountNeedsTerminal
export type GateError = OrderError | PaymentOrderNotFound | TerminalNotFound | InvalidRequest

export class PaymentOrders extends Context.Service<
  PaymentOrders,
  {
    readonly put: (
      app: { readonly appId: string; readonly walletId: string },
      input: PutPaymentOrderIn
    ) => Effect.Effect<PaymentOrderOut & { readonly replayed: boolean }, PutError | TerminalNotAvailable | RateLimited>
    readonly get: (appId: string, ref: OrderRef) => Effect.Effect<PaymentOrderOut, GateError>
    readonly cancel: (appId: string, ref: OrderRef) => Effect.Effect<PaymentOrderOut, GateError>
    readonly info: (code: string) => Effect.Effect<OrderInfoOut, GateError>
    readonly start: (code: string, tokenNetworkId: string) => Effect.Effect<OrderInfoOut, GateError>
    readonly payInternal: (
      code: string,
      payer: string
    ) => Effect.Effect<OrderInfoOut & { readonly replayed: boolean }, GateError>
  }
>()("core/PaymentOrders") {
  static readonly layer = Layer.effect(
    PaymentOrders,
    Effect.gen(function* () {
      const db = yield* makeDb
      const ticks = yield* TimeTicks
      const currencies = yield* Currencies
      const tariffs = yield* Tariffs
      const terminals = yield* Terminals
      const config = yield* AppConfigService
      const actor = yield* PaymentOrderEntity.client

      const dec = (row: PaymentOrderRow, minor: bigint | null, currency: string | null = row.currency) =>
        minor === null ? null : fromMinorUnits(minor, currencies.find(currency ?? "")?.decimals ?? 0)

      const payUrl = (code: string | null) => (code === null ? null : `${config.publicBaseUrl}/pay?code=${code}`)

      const toOut = (row: PaymentOrderRow): PaymentOrderOut => {
        const total = totalToPay(row)
        const started = row.terminalId !== null
        return {
          id: String(row.txId) as any,
          idUpdate: String(row.idUpdate),
          code: row.kind === "PaymentOrder" ? row.code : null,
          payUrl: row.kind === "PaymentOrder" ? payUrl(row.code) : null,
          kind: row.kind,
          typeTx: row.typeTx,
          appId: String(row.appId) as any,
          externalId: row.externalId,
          stateCode: row.stateCode,
          state: stateNames[row.stateCode] ?? "Created",
          txState: row.txState,
          currency: row.currency,
          orderAmount: dec(row, row.orderAmount)!,
          description: row.description,
          createdAt: row.createdAt.toISOString(),
          expiresAt: row.expiresAt.toISOString(),
          paidAt: row.paidAt?.toISOString() ?? null,
          terminalId: row.terminalId === null ? null : (String(row.terminalId) as any),
          typeNetwork: row.typeNetwork,
          paymentMethod: row.method as PaymentOrderOut["paymentMethod"],
          payCurrency: row.payCurrency,
          payAmount: dec(row, row.payAmount, row.payCurrency),
          fee: started ? dec(row, row.fee, row.payCurrency) : null,
          totalToPay: dec(row, total, row.payCurrency),
          rate: row.rate,
          spreadPct: row.spreadPct,
          paidAmount: dec(row, row.paidAmount)!,
          refundedAmount: dec(row, row.refundedAmount)!,
          payerWalletId: row.payerWalletId === null ? null : (String(row.payerWalletId) as any),
          recipient: null,
          meta: null,
          returnUrlSuccess: row.returnUrlSuccess,
          returnUrlFail: row.returnUrlFail,
          webhookUrl: row.webhookUrl
        }
      }

      const toInfo = (row: PaymentOrderRow): OrderInfoOut => {
        const out = toOut(row)
        const returnUrl =
          row.stateCode >= 8 && row.stateCode <= 10
            ? row.returnUrlSuccess
            : row.stateCode >= 16
              ? row.returnUrlFail
              : null
        return {
          code: row.code ?? "",
          kind: out.kind,
          typeTx: out.typeTx,
          stateCode: out.stateCode,
          state: out.state,
          txState: out.txState,
          currency: out.currency,
          orderAmount: out.orderAmount,
          description: out.description,
          merchantName: row.appName ?? "",
          createdAt: out.createdAt,
          expiresAt: out.expiresAt,
          paidAt: out.paidAt,
          terminal: null,
          typeNetwork: out.typeNetwork,
          payCurrency: out.payCurrency,
          payAmount: out.payAmount,
          fee: out.fee,
          totalToPay: out.totalToPay,
          rate: out.rate,
          spreadPct: out.spreadPct,
          address: null,
          acquiring: null,
          returnUrl
        }
      }

      /** The gate's view with the order's crypto address (OrderAddressView.ts). */
      const infoOf = (row: PaymentOrderRow) =>
        Effect.map(
          orderAddressOut(db, (c) => currencies.find(c)?.decimals ?? 0, row),
          (address): OrderInfoOut => ({ ...toInfo(row), address })
        )

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
          if (row === undefined || row.kind !== "PaymentOrder") return yield* notFound()
          return yield* fresh(row)
        })

      /** Exactly one of code and id (10001); another app's order or none: 404 10300. */
      const ofApp = (appId: string, ref: OrderRef) =>
        Effect.gen(function* () {
          if ((ref.code === undefined) === (ref.id === undefined))
            return yield* new InvalidRequest({ message: "query: send exactly one of `code` and `id`" })
          if (ref.id !== undefined && !/^[0-9]{1,19}$/.test(ref.id))
            return yield* new InvalidRequest({ message: "id: must be an order id" })
          const row =
            ref.code !== undefined
              ? yield* db(paymentOrderByCodeHash(hashOfOrderCode(ref.code)))
              : yield* db(paymentOrderByTx(ref.id!))
          if (row === undefined || String(row.appId) !== appId)
            return yield* new PaymentOrderNotFound({
              message: `${ref.code !== undefined ? "code" : "id"}: no such order of this app`
            })
          return yield* fresh(row)
        })

      /** The offer of a terminal for an order: for now only the built-in internal one, in the order currency. */
      const offerFor = (row: PaymentOrderRow, terminalId: string | undefined) =>
        Effect.gen(function* () {
          const all = yield* terminals.all()
          const terminal =
            terminalId === undefined ? all.find((t) => t.builtIn) : all.find((t) => String(t.id) === terminalId)
          if (terminal === undefined)
            return yield* new TerminalNotFound({ message: `tokenNetworkId: no terminal ${terminalId}` })
          if (!terminal.builtIn)
            return yield* new TerminalNotAvailable({
              message: "tokenNetworkId: only the internal terminal takes payments for now"
            })
          const merchant = yield* db(walletById(row.merchantWallet))
          const quote = yield* tariffs.resolve({
            txClass: "Payment",
            currency: row.currency,
            decimals: currencies.find(row.currency)?.decimals ?? 0,
            amount: row.orderAmount,
            walletGroup: merchant?.walletGroup ?? 0,
            typeTx: row.typeTx
          })
          const offer: OfferData = {
            terminalId: terminal.id,
            method: "InternalPayment",
            rate: "1",
            spreadPct: "0",
            payCurrency: row.currency,
            payAmount: row.orderAmount,
            fee: quote.fee,
            profitWallet: quote.profitWalletId,
            available: true
          }
          return offer
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
        for (const [field, url] of [
          ["returnUrlSuccess", input.returnUrlSuccess],
          ["returnUrlFail", input.returnUrlFail],
          ["webhookUrl", input.webhookUrl]
        ] as const) {
          if (url !== undefined && url !== null && !/^https?:\/\/[^\s]+$/.test(url))
            return yield* new InvalidRequest({ message: `${field}: must be an http(s) URL` })
        }
        const normalized = {
          currency: currency.code,
          orderAmount: String(orderAmount),
          description: input.description ?? null,
          expiresInSeconds: input.expiresInSeconds ?? null,
          terminalId: input.terminalId ?? null,
          payAmount: input.payAmount ?? null,
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
        if (terminalGiven)
          return yield* new TerminalNotAvailable({
            message: "terminalId: preselecting a terminal is not supported yet"
          })
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
            expiresAt: new Date(Date.now() + (input.expiresInSeconds ?? config.paymentOrderTtlSeconds) * 1000),
            description: input.description ?? null,
            returnUrlSuccess: input.returnUrlSuccess ?? null,
            returnUrlFail: input.returnUrlFail ?? null,
            webhookUrl: input.webhookUrl ?? null
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
        get: (appId, ref) => Effect.map(ofApp(appId, ref), toOut),
        cancel: (appId, ref) =>
          Effect.gen(function* () {
            const row = yield* ofApp(appId, ref)
            yield* delivered(actor(String(row.txId)).Cancel({}))
            return toOut(yield* reread(row.txId))
          }),
        info: (code) => Effect.flatMap(byCode(code), infoOf),
        start: (code, tokenNetworkId) =>
          Effect.gen(function* () {
            const row = yield* byCode(code)
            const offer = yield* offerFor(row, tokenNetworkId)
            yield* delivered(actor(String(row.txId)).Start({ offer }))
            return yield* infoOf(yield* reread(row.txId))
          }),
        payInternal: (code, payer) =>
          Effect.gen(function* () {
            const row = yield* byCode(code)
            // pay_internal always pays on the internal terminal; one locked elsewhere answers 10304 (engine).
            const offer = yield* offerFor(row, undefined)
            const answer = yield* delivered(actor(String(row.txId)).PayInternal({ payer: BigInt(payer), offer }))
            return { ...(yield* infoOf(yield* reread(row.txId))), replayed: answer.replayed }
          })
      })
    })
  )
}
