/**
 * Refunds of payment orders (CONTRACT C16 "Refunds"): refund_payment, get_refund_status and the
 * `refunds` of get_app_payment. The service validates the request, resolves the amount (default: all
 * still refundable) and the Refund fee (C7 tariff, order currency, the merchant wallet's group), and
 * asks the order's actor, which decides with the engine and commits (actors/payment/RefundHandler.ts).
 * Idempotent per (app, externalId), under concurrency too: a refund already stored answers as its
 * replay when the normalised body matches (amounts by value), 10060 otherwise.
 */
import { Context, Effect, Layer } from "effect"
import { createHash } from "node:crypto"
import { PaymentOrderEntity } from "../../../actors/payment/Protocol.ts"
import { paymentOrderByCodeHash, paymentOrderByTx, type PaymentOrderRow } from "../../../sql/PaymentOrderRepo.ts"
import {
  refundByExternalId,
  refundByTx,
  refundsOfOrder,
  type PaymentRefundRow
} from "../../../sql/PaymentRefundRepo.ts"
import { findTerminal } from "../../../sql/ReferenceRepo.ts"
import { walletById } from "../../../sql/WalletRepo.ts"
import {
  BalanceNotEnough,
  ExternalIdConflict,
  InvalidRequest,
  RateLimited,
  TooManyDecimals,
  type WalletBlocked
} from "../../../schema/Errors.ts"
import {
  PaymentOrderNotFound,
  PaymentOrderNotPayable,
  RefundAddressRequired,
  RefundExceedsPaid,
  RefundNotAllowed,
  RefundNotFound,
  TooManyRefunds
} from "../../../schema/PaymentErrors.ts"
import { InvalidAddress, RefundBelowNetworkFee } from "../../../schema/CryptoErrors.ts"
import type { RefundOut, RefundPaymentIn } from "../../../schema/Payments.ts"
import { networkFeeMinor } from "../../../schema/Money.ts"
import { TxType } from "../../../schema/Transfer.ts"
import { isCryptoNetwork, isValidAddress } from "../../platform/crypto/Addresses.ts"
import { Currencies } from "../../platform/Currencies.ts"
import { makeDb } from "../../platform/db/Sql.ts"
import { delivered } from "../../platform/Delivery.ts"
import { Tariffs } from "../../platform/Tariffs.ts"
import { TimeTicks } from "../../platform/TimeTicks.ts"
import { hashOfOrderCode } from "./PaymentOrders.ts"
import { refundView } from "./PaymentOrderViews.ts"

export type RefundPaymentError =
  | InvalidRequest
  | TooManyDecimals
  | ExternalIdConflict
  | PaymentOrderNotFound
  | PaymentOrderNotPayable
  | RefundNotAllowed
  | RefundExceedsPaid
  | RefundAddressRequired
  | InvalidAddress
  | RefundBelowNetworkFee
  | TooManyRefunds
  | BalanceNotEnough
  | RateLimited
  | WalletBlocked

export interface RefundRef {
  readonly refundId?: string | undefined
  readonly externalId?: string | undefined
}

export class PaymentRefunds extends Context.Service<
  PaymentRefunds,
  {
    readonly refund: (
      appId: string,
      input: RefundPaymentIn
    ) => Effect.Effect<RefundOut & { readonly replayed: boolean }, RefundPaymentError>
    readonly status: (appId: string, ref: RefundRef) => Effect.Effect<RefundOut, InvalidRequest | RefundNotFound>
    /** An order's refunds, oldest first (get_app_payment's `refunds`). */
    readonly ofOrder: (orderId: string) => Effect.Effect<ReadonlyArray<RefundOut>>
  }
>()("core/PaymentRefunds") {
  static readonly layer = Layer.effect(
    PaymentRefunds,
    Effect.gen(function* () {
      const db = yield* makeDb
      const ticks = yield* TimeTicks
      const currencies = yield* Currencies
      const tariffs = yield* Tariffs
      const actor = yield* PaymentOrderEntity.client

      const toOut = refundView((currency) => currencies.find(currency)?.decimals ?? 0)

      /** Exactly one of code and id (10001); another app's order or none: 404 10300. */
      const orderOf = (appId: string, input: RefundPaymentIn) =>
        Effect.gen(function* () {
          const code = input.code ?? undefined
          const id = input.id ?? undefined
          if ((code === undefined) === (id === undefined))
            return yield* new InvalidRequest({ message: "code: send exactly one of `code` and `id`" })
          const row: PaymentOrderRow | undefined =
            code !== undefined
              ? yield* db(paymentOrderByCodeHash(hashOfOrderCode(code)))
              : yield* db(paymentOrderByTx(String(id)))
          if (row === undefined || String(row.appId) !== appId)
            return yield* new PaymentOrderNotFound({
              message: `${code !== undefined ? "code" : "id"}: no such order of this app`
            })
          return row
        })

      const refund = Effect.fn("PaymentRefunds.refund")(function* (appId: string, input: RefundPaymentIn) {
        const order = yield* orderOf(appId, input)
        const currency = currencies.find(order.currency)
        if (currency === undefined) return yield* Effect.die(new Error("invariant: an order's currency is known"))
        const given =
          input.amount === undefined || input.amount === null
            ? null
            : yield* currencies.toMinor(input.amount, currency, "amount")
        const requestHash = createHash("sha256")
          .update(
            JSON.stringify({
              orderId: String(order.txId),
              amount: given === null ? null : String(given),
              reason: input.reason ?? null,
              refundAddress: input.refundAddress ?? null
            }),
            "utf8"
          )
          .digest("hex")
        const replay = (row: PaymentRefundRow) =>
          row.requestHash === requestHash
            ? Effect.succeed({ ...toOut(row), replayed: true })
            : Effect.fail(new ExternalIdConflict({ message: "externalId: already used by this app with another body" }))
        const existing = yield* db(refundByExternalId(appId, input.externalId))
        if (existing !== undefined) return yield* replay(existing)

        // Default: all still refundable as read now; the actor decides on its own read (a refund that
        // took part of it meanwhile makes this one exceed: 10321).
        const left = order.paidAmount - order.refundedAmount - order.pendingRefunds
        const amount = given ?? left
        if (given === null && left <= 0n)
          return yield* order.stateCode === 8 || order.stateCode === 9
            ? new RefundExceedsPaid({ message: "amount: nothing is left to refund" })
            : new RefundNotAllowed({ message: "code: only Paid or PartiallyRefunded payment orders are refunded" })
        const merchant = yield* db(walletById(order.merchantWallet))
        const quote = yield* tariffs.resolve({
          txClass: "Refund",
          currency: currency.code,
          decimals: currency.decimals,
          amount,
          walletGroup: merchant?.walletGroup ?? 0,
          typeTx: TxType.Refund
        })
        const refundTxId = ticks.next()
        // A crypto-paid order's refund goes to refundAddress as a C15 withdrawal on the order's terminal
        // (the engine answers 10323 without one). Memo networks: the address alone, no memo (C16 has no
        // refund memo field; a payer's own wallet needs none).
        const refundAddress = input.refundAddress?.trim() ?? null
        const onChain =
          (order.stateCode === 8 || order.stateCode === 9) &&
          order.method === "CryptoTransfer" &&
          order.terminalId !== null &&
          order.typeNetwork !== null &&
          isCryptoNetwork(order.typeNetwork)
        if (onChain && refundAddress !== null && !isValidAddress(order.typeNetwork!, refundAddress))
          return yield* new InvalidAddress({ message: "refundAddress: not an address of the order's network" })
        const withdrawal =
          onChain && refundAddress !== null
            ? { txId: ticks.next(), terminalId: order.terminalId!, address: refundAddress, memo: null }
            : null
        // C16: a C15 Refund on the order's terminal, so the terminal's networkFee is charged once (C15).
        const terminal = withdrawal === null ? undefined : yield* db(findTerminal(String(order.terminalId)))
        const networkFee =
          terminal === undefined
            ? 0n
            : networkFeeMinor(
                terminal.networkFee,
                currencies.find(terminal.currency ?? "")?.decimals ?? terminal.decimals
              )
        const created = yield* delivered(
          actor(String(order.txId)).Refund({
            refundTxId,
            appId: order.appId,
            externalId: input.externalId,
            requestHash,
            amount,
            fee: quote.fee,
            profitWallet: quote.profitWalletId,
            reason: input.reason ?? null,
            refundAddress: input.refundAddress ?? null,
            withdrawal,
            networkFee
          })
        ).pipe(
          Effect.as(true),
          Effect.catchTag("NonceExists", () => Effect.succeed(false))
        )
        if (!created) {
          // Another request with this externalId won the unique index: answer as its replay.
          const first = yield* db(refundByExternalId(appId, input.externalId))
          if (first === undefined) return yield* Effect.die(new Error("invariant: the winning refund is not readable"))
          return yield* replay(first)
        }
        const row = yield* db(refundByTx(refundTxId))
        if (row === undefined) return yield* Effect.die(new Error("invariant: a committed refund is readable"))
        return { ...toOut(row), replayed: false }
      })

      const status = (appId: string, ref: RefundRef) =>
        Effect.gen(function* () {
          if ((ref.refundId === undefined) === (ref.externalId === undefined))
            return yield* new InvalidRequest({ message: "query: send exactly one of `refundId` and `externalId`" })
          if (ref.refundId !== undefined && !/^[0-9]{1,19}$/.test(ref.refundId))
            return yield* new InvalidRequest({ message: "refundId: must be a refund id" })
          const row =
            ref.refundId !== undefined
              ? yield* db(refundByTx(ref.refundId))
              : yield* db(refundByExternalId(appId, ref.externalId!))
          if (row === undefined || String(row.appId) !== appId)
            return yield* new RefundNotFound({
              message: `${ref.refundId !== undefined ? "refundId" : "externalId"}: no such refund of this app`
            })
          return toOut(row)
        })

      return PaymentRefunds.of({
        refund,
        status,
        ofOrder: (orderId) => Effect.map(db(refundsOfOrder(orderId)), (rows) => rows.map(toOut))
      })
    })
  )
}
