/**
 * Payout (transfer) orders (CONTRACT C16, docs/PAYMENTS.md "Payout orders"): the merchant's
 * put_transfer_order reserves orderAmount + fee (Payout tariff of the order currency for the merchant
 * wallet's group) from the merchant wallet at creation, idempotent per (app, externalId) like
 * put_payment_order; the gate's pay_transfer pays the reserve out to an internal wallet (C12 recipient),
 * or to a crypto address as a C15 withdrawal of the reserve (the order is Processing until it settles:
 * actors/payment/PayoutSettlement.ts).
 * Cancel, expiry and reads are PaymentOrders' (the engine returns the reserve). The `T…` code is shown
 * only by put_transfer_order and its replays (PayoutCodes derives it; only its hash is stored).
 */
import { Context, Effect, Layer } from "effect"
import { createHash } from "node:crypto"
import { PaymentOrderEntity } from "../../../actors/payment/Protocol.ts"
import {
  paymentOrderByCodeHash,
  paymentOrderByExternalId,
  type PaymentOrderRow
} from "../../../sql/PaymentOrderRepo.ts"
import { walletById } from "../../../sql/WalletRepo.ts"
import {
  BalanceNotEnough,
  ExternalIdConflict,
  InvalidRequest,
  RateLimited,
  TerminalNotFound,
  TooManyDecimals,
  UnknownCurrency,
  WalletNotFound
} from "../../../schema/Errors.ts"
import { InvalidAddress } from "../../../schema/CryptoErrors.ts"
import { TerminalFlag } from "../../../schema/Reference.ts"
import { isCryptoNetwork, isMemoNetwork, isValidAddress } from "../../platform/crypto/Addresses.ts"
import {
  PaymentOrderExpired,
  PaymentOrderNotFound,
  PaymentOrderNotPayable,
  TerminalNotAvailable,
  WebhookUrlRejected,
  WrongOrderKind
} from "../../../schema/PaymentErrors.ts"
import type { OrderInfoOut, PaymentOrderOut, PutTransferOrderIn } from "../../../schema/Payments.ts"
import { AppConfigService } from "../../platform/Config.ts"
import { Currencies } from "../../platform/Currencies.ts"
import { refuseDisabledApp } from "./AppGate.ts"
import { makeDb } from "../../platform/db/Sql.ts"
import { delivered } from "../../platform/Delivery.ts"
import { Tariffs } from "../../platform/Tariffs.ts"
import { TimeTicks } from "../../platform/TimeTicks.ts"
import { type GateError, hashOfOrderCode, PaymentOrders } from "./PaymentOrders.ts"
import { PayoutCodes } from "./PayoutCodes.ts"
import { Recipients } from "../wallets/Recipients.ts"
import { Terminals } from "../crypto/Terminals.ts"

/** C16: pay_transfer's `meta` is a JSON object of at most 4 KiB (UTF-8 of its JSON text). */
import { checkWebhookUrl } from "./WebhookUrlCheck.ts"
export const payoutMetaBytesMax = 4096
export const recipientLengthMax = 200

export interface PayTransferIn {
  readonly tokenNetworkId?: string | undefined
  readonly recipient: string
  readonly meta?: unknown
}

export type PutTransferError =
  | UnknownCurrency
  | TooManyDecimals
  | InvalidRequest
  | ExternalIdConflict
  | BalanceNotEnough
  | RateLimited
  | WebhookUrlRejected
  | GateError

export class PaymentPayouts extends Context.Service<
  PaymentPayouts,
  {
    readonly put: (
      app: { readonly appId: string; readonly walletId: string },
      input: PutTransferOrderIn
    ) => Effect.Effect<PaymentOrderOut & { readonly replayed: boolean }, PutTransferError>
    readonly payTransfer: (
      code: string,
      input: PayTransferIn
    ) => Effect.Effect<OrderInfoOut, GateError | WalletNotFound | TerminalNotAvailable | InvalidAddress>
  }
>()("core/PaymentPayouts") {
  static readonly layer = Layer.effect(
    PaymentPayouts,
    Effect.gen(function* () {
      const db = yield* makeDb
      const ticks = yield* TimeTicks
      const currencies = yield* Currencies
      const tariffs = yield* Tariffs
      const terminals = yield* Terminals
      const recipients = yield* Recipients
      const config = yield* AppConfigService
      const orders = yield* PaymentOrders
      const codes = yield* PayoutCodes
      const actor = yield* PaymentOrderEntity.client

      /** The order as the merchant sees it, with its code and payUrl (only this answer shows them). */
      const withCode = (appId: string, row: PaymentOrderRow, replayed: boolean) =>
        Effect.gen(function* () {
          const out = yield* orders.get(appId, { id: String(row.txId) })
          const derived = yield* codes.codeOf(row.txId)
          // A changed key no longer derives this order's code: it is not shown (docs/PAYMENTS.md).
          const mine = yield* db(paymentOrderByCodeHash(hashOfOrderCode(derived)))
          const code = mine?.txId === row.txId ? derived : null
          const payUrl = code === null ? null : `${config.publicBaseUrl}/pay?code=${code}`
          return { ...out, code, payUrl, replayed }
        })

      const put = Effect.fn("PaymentPayouts.put")(function* (
        app: { readonly appId: string; readonly walletId: string },
        input: PutTransferOrderIn
      ) {
        const currency = yield* currencies.require(input.currency, "currency")
        const orderAmount = yield* currencies.toMinor(input.orderAmount, currency, "orderAmount")
        yield* checkWebhookUrl(input.webhookUrl, config.webhookAllowPrivateAddresses)
        const normalized = {
          kind: "TransferOrder",
          currency: currency.code,
          orderAmount: String(orderAmount),
          description: input.description ?? null,
          expiresInSeconds: input.expiresInSeconds ?? null,
          webhookUrl: input.webhookUrl ?? null
        }
        const requestHash = createHash("sha256").update(JSON.stringify(normalized), "utf8").digest("hex")
        const replay = (row: PaymentOrderRow) =>
          row.requestHash === requestHash && row.kind === "TransferOrder"
            ? withCode(app.appId, row, true)
            : Effect.fail(new ExternalIdConflict({ message: "externalId: already used by this app with another body" }))
        const existing = yield* db(paymentOrderByExternalId(app.appId, input.externalId))
        if (existing !== undefined) return yield* replay(existing)

        const merchant = yield* db(walletById(app.walletId))
        const quote = yield* tariffs.resolve({
          txClass: "Payout",
          currency: currency.code,
          decimals: currency.decimals,
          amount: orderAmount,
          walletGroup: merchant?.walletGroup ?? 0,
          typeTx: 21
        })
        const txId = ticks.next()
        const code = yield* codes.codeOf(txId)
        const created = yield* delivered(
          actor(String(txId)).CreateTransfer({
            appId: BigInt(app.appId),
            externalId: input.externalId,
            requestHash,
            merchantWallet: BigInt(app.walletId),
            codeHash: hashOfOrderCode(code),
            currency: currency.code,
            orderAmount,
            fee: quote.fee,
            profitWallet: quote.profitWalletId,
            expiresAt: new Date(Date.now() + (input.expiresInSeconds ?? config.paymentOrderTtlSeconds) * 1000),
            description: input.description ?? null,
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
        const row = yield* db(paymentOrderByExternalId(app.appId, input.externalId))
        return yield* withCode(app.appId, row!, false)
      })

      /** `meta`: absent, null, or a JSON object of ≤ 4 KiB (10001). */
      const metaText = (meta: unknown) =>
        Effect.gen(function* () {
          if (meta === undefined || meta === null) return null
          if (typeof meta !== "object" || Array.isArray(meta))
            return yield* new InvalidRequest({ message: "meta: must be a JSON object" })
          const text = JSON.stringify(meta)
          if (Buffer.byteLength(text, "utf8") > payoutMetaBytesMax)
            return yield* new InvalidRequest({ message: `meta: at most ${payoutMetaBytesMax} bytes of JSON` })
          return text
        })

      const payTransfer = Effect.fn("PaymentPayouts.payTransfer")(function* (code: string, input: PayTransferIn) {
        const recipient = input.recipient.trim()
        if (recipient.length === 0 || recipient.length > recipientLengthMax)
          return yield* new InvalidRequest({ message: `recipient: 1–${recipientLengthMax} characters` })
        const meta = yield* metaText(input.meta)
        const row = yield* db(paymentOrderByCodeHash(hashOfOrderCode(code)))
        if (row === undefined) return yield* new PaymentOrderNotFound({ message: "code: no such order" })
        yield* refuseDisabledApp(row)
        if (row.kind !== "TransferOrder")
          return yield* new WrongOrderKind({ message: "code: pay_transfer pays out a TransferOrder only" })
        // The order's state first (a due order is expired by the read): a paid or ended order answers
        // 10301 / 10302 whatever the recipient; the actor decides again under its serialisation.
        const current = yield* orders.info(code)
        if (current.stateCode === 16) return yield* new PaymentOrderExpired({ message: "code: the order expired" })
        if (current.stateCode > 2)
          return yield* new PaymentOrderNotPayable({
            message: "code: the order does not take this action in its state"
          })
        const all = yield* terminals.all()
        const terminal =
          input.tokenNetworkId === undefined
            ? all.find((t) => t.builtIn)
            : all.find((t) => String(t.id) === input.tokenNetworkId)
        if (terminal === undefined)
          return yield* new TerminalNotFound({ message: `tokenNetworkId: no terminal ${input.tokenNetworkId}` })
        const offer = {
          terminalId: terminal.id,
          rate: "1",
          spreadPct: "0",
          payCurrency: row.currency,
          payAmount: row.orderAmount,
          fee: row.fee,
          profitWallet: row.profitWallet,
          available: true
        }
        if (!terminal.builtIn) {
          // A crypto payout: a Withdraw terminal of a crypto network in the order currency (else 10303).
          if (
            !isCryptoNetwork(terminal.typeNetwork) ||
            terminal.currency !== row.currency ||
            (terminal.flags & TerminalFlag.Withdraw) === 0 ||
            (terminal.flags & TerminalFlag.Hidden) !== 0
          )
            return yield* new TerminalNotAvailable({
              message: `tokenNetworkId: terminal ${terminal.id} does not pay out ${row.currency}`
            })
          if (isMemoNetwork(terminal.typeNetwork))
            return yield* new TerminalNotAvailable({
              message: "tokenNetworkId: payouts to memo networks are not served (pay_transfer has no memo)"
            })
          if (!isValidAddress(terminal.typeNetwork, recipient))
            return yield* new InvalidAddress({ message: "recipient: not an address of the terminal's network" })
          yield* delivered(
            actor(String(row.txId)).PayTransfer({
              recipientWallet: null,
              withdrawal: { txId: ticks.next(), terminalId: terminal.id, address: recipient, memo: null },
              recipient,
              meta,
              offer: { ...offer, method: "CryptoTransfer" }
            })
          )
          return yield* orders.info(code)
        }
        const merchant = yield* db(walletById(row.merchantWallet))
        const wallet = yield* recipients.resolve(recipient, merchant?.project ?? 0)
        yield* delivered(
          actor(String(row.txId)).PayTransfer({
            recipientWallet: wallet.id,
            withdrawal: null,
            recipient,
            meta,
            offer: { ...offer, method: "InternalPayment" }
          })
        )
        return yield* orders.info(code)
      })

      return PaymentPayouts.of({ put, payTransfer })
    })
  )
}
