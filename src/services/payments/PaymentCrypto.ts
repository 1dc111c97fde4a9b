/**
 * Paying a payment order by crypto at the payment gate (C16 pay_crypto, confirm_crypto, cancel_crypto).
 * pay_crypto starts the order on a crypto terminal (the order's actor, PayCrypto) and reserves a fresh
 * C15 address of the merchant wallet for the order (purpose 1; memo networks: a memo of its own), one
 * per order and terminal, so a repeat returns it. confirm_crypto records the payer's claimed hash
 * (money follows the scanner only); cancel_crypto detaches the address and sends the order back to
 * Created. Incomes to the address are booked by the chain actor (actors/chain/OrderIncomes.ts). The
 * terminal's offer (price, fee, availability) is PaymentOffers.ts', the one computation order_start uses, so
 * a crypto terminal in another currency than the order's is paid at its quote (Broker legs when Paid).
 */
import { Context, Effect, Layer } from "effect"
import { PaymentOrderEntity } from "../../../actors/payment/Protocol.ts"
import { rowsOf } from "../../../sql/Ledger.ts"
import { attachedAddressOf, orderAddressCount, reserveOrderAddress } from "../../../sql/OrderAddressRepo.ts"
import { paymentOrderByCodeHash, type PaymentOrderRow } from "../../../sql/PaymentOrderRepo.ts"
import { findTerminal, type Terminal } from "../../../sql/ReferenceRepo.ts"
import { PaymentOrderAddressClaims } from "../../../sql/rows/PaymentCryptoRows.ts"
import { AddressesUnavailable } from "../../../schema/CryptoErrors.ts"
import { InvalidRequest, TerminalNotFound } from "../../../schema/Errors.ts"
import { NoPaymentInProgress, PaymentOrderNotFound, WrongOrderKind } from "../../../schema/PaymentErrors.ts"
import type { OrderInfoOut } from "../../../schema/Payments.ts"
import { TooManyOrderAddresses } from "../../../schema/RailErrors.ts"
import { AppConfigService } from "../../platform/Config.ts"
import { AccountKeys } from "../../platform/crypto/AccountKeys.ts"
import { addressKey, deriveAddress, isDerivedNetwork, randomMemo } from "../../platform/crypto/Addresses.ts"
import { refuseDisabledApp } from "./AppGate.ts"
import { makeDb } from "../../platform/db/Sql.ts"
import { delivered } from "../../platform/Delivery.ts"
import { LedgerWriter } from "../../platform/LedgerWriter.ts"
import { TimeTicks } from "../../platform/TimeTicks.ts"
import { type GateError, hashOfOrderCode, PaymentOrders } from "./PaymentOrders.ts"
import { payableOn } from "./PaymentOffers.ts"

/** Tries at a fresh random memo before giving up (as Addresses.ts). */
const memoAttemptsMax = 20

export type CryptoGateError =
  GateError | AddressesUnavailable | WrongOrderKind | NoPaymentInProgress | TooManyOrderAddresses

export class PaymentCrypto extends Context.Service<
  PaymentCrypto,
  {
    readonly payCrypto: (code: string, tokenNetworkId: string) => Effect.Effect<OrderInfoOut, CryptoGateError>
    readonly confirmCrypto: (code: string, txHash: string) => Effect.Effect<OrderInfoOut, CryptoGateError>
    readonly cancelCrypto: (code: string) => Effect.Effect<OrderInfoOut, CryptoGateError>
  }
>()("core/PaymentCrypto") {
  static readonly layer = Layer.effect(
    PaymentCrypto,
    Effect.gen(function* () {
      const db = yield* makeDb
      const ticks = yield* TimeTicks
      const keys = yield* AccountKeys
      const config = yield* AppConfigService
      const ledger = yield* LedgerWriter
      const orders = yield* PaymentOrders
      const actor = yield* PaymentOrderEntity.client

      /** A PaymentOrder by code (404 10300); a TransferOrder's code here is 10307. */
      const byCode = (code: string) =>
        Effect.gen(function* () {
          const row = yield* db(paymentOrderByCodeHash(hashOfOrderCode(code)))
          if (row === undefined) return yield* new PaymentOrderNotFound({ message: "code: no such order" })
          if (row.kind !== "PaymentOrder")
            return yield* new WrongOrderKind({ message: "code: pay_crypto applies to payment orders" })
          return row
        })

      /** C19 §9: the order was given PAYMENT_MAX_ADDRESSES_PER_ORDER addresses (detached ones count). */
      const tooMany = () =>
        new TooManyOrderAddresses({
          message: `tokenNetworkId: the order was given ${config.paymentMaxAddressesPerOrder} deposit addresses (PAYMENT_MAX_ADDRESSES_PER_ORDER), no more`
        })

      const unavailable = (terminal: Terminal, why: string) =>
        new AddressesUnavailable({ message: `tokenNetworkId: no addresses on terminal ${terminal.id} (${why})` })

      /** The order's address on the terminal: the attached one, else a fresh purpose-1 one. */
      const reserve = (row: PaymentOrderRow, terminal: Terminal) =>
        Effect.gen(function* () {
          const network = terminal.typeNetwork
          const base = {
            orderTxId: row.txId,
            terminalId: terminal.id,
            walletId: row.merchantWallet,
            typeNetwork: network,
            maxAddresses: config.paymentMaxAddressesPerOrder
          }
          if (isDerivedNetwork(network)) {
            const key = keys.keyOf(network)
            if (key === undefined) return yield* unavailable(terminal, "its XPUB setting is unset")
            const done = yield* db(
              reserveOrderAddress({
                ...base,
                tick: ticks.next(),
                derived: (index) => {
                  const address = deriveAddress(network, key, index)
                  return { address, addressKey: addressKey(network, address) }
                }
              })
            )
            if (done === undefined) return yield* Effect.die(new Error("invariant: an order address vanished"))
            if (done === "limit") return yield* tooMany()
            return done
          }
          const hot = terminal.defaultHotAddress
          if (hot === null || hot.trim() === "") return yield* unavailable(terminal, "no defaultHotAddress")
          for (let attempt = 0; attempt < memoAttemptsMax; attempt++) {
            const done = yield* db(
              reserveOrderAddress({
                ...base,
                tick: ticks.next(),
                memo: { memo: randomMemo(), address: hot, addressKey: addressKey(network, hot) }
              })
            )
            if (done === "limit") return yield* tooMany()
            if (done !== undefined) return done
          }
          return yield* Effect.die(new Error(`no free memo for order ${row.txId} after ${memoAttemptsMax} attempts`))
        })

      const payCrypto = Effect.fn("PaymentCrypto.payCrypto")(function* (code: string, tokenNetworkId: string) {
        const row = yield* byCode(code)
        yield* refuseDisabledApp(row)
        const terminal = yield* db(findTerminal(tokenNetworkId))
        if (terminal === undefined)
          return yield* new TerminalNotFound({ message: `tokenNetworkId: no terminal ${tokenNetworkId}` })
        // The one offers computation (PaymentOffers.ts, as order_start): any offered crypto terminal, in the
        // order currency or another at the C14 rate with PAYMENT_FX_SPREAD_PCT. The engine answers 10303 for an
        // offer not available (or not crypto), 10304 when locked elsewhere, expiry and state first.
        const offer = yield* orders.offerOn(row, tokenNetworkId)
        // A terminal without addresses is offered `available: false`; pay_crypto names why (10202) where the
        // order could otherwise start there (expiry, state and another locked terminal are the engine's).
        const open =
          offer.method === "CryptoTransfer" &&
          row.stateCode <= 2 &&
          Date.now() <= row.expiresAt.getTime() &&
          (row.terminalId === null || row.terminalId === terminal.id)
        if (open && !payableOn("PaymentOrder", terminal, (n) => isDerivedNetwork(n) && keys.keyOf(n) !== undefined))
          return yield* unavailable(
            terminal,
            isDerivedNetwork(terminal.typeNetwork) ? "its XPUB setting is unset" : "no defaultHotAddress"
          )
        // C19 §9, before the order moves: a terminal where the order had an address reuses it; a new one is
        // refused once the order was given PAYMENT_MAX_ADDRESSES_PER_ORDER (checked again as it is made).
        const given = yield* db(orderAddressCount(row.txId, terminal.id))
        if (!given.onTerminal && given.count >= config.paymentMaxAddressesPerOrder) return yield* tooMany()
        yield* delivered(actor(String(row.txId)).PayCrypto({ offer }))
        yield* reserve(row, terminal)
        return yield* orders.info(code)
      })

      const confirmCrypto = Effect.fn("PaymentCrypto.confirmCrypto")(function* (code: string, txHash: string) {
        if (!/^[0-9A-Za-z]{1,128}$/.test(txHash))
          return yield* new InvalidRequest({ message: "txHash: 1 to 128 letters and digits" })
        yield* orders.info(code) // an order past expiresAt is expired first
        const row = yield* byCode(code)
        const none = new NoPaymentInProgress({ message: "code: no crypto payment started" })
        if ((row.stateCode !== 2 && row.stateCode !== 3) || row.method !== "CryptoTransfer" || row.terminalId === null)
          return yield* none
        const at = yield* db(attachedAddressOf(row.txId, row.terminalId))
        if (at === undefined) return yield* none
        yield* ledger
          .commit({
            postings: [],
            rows: [rowsOf(PaymentOrderAddressClaims, [{ orderTxId: row.txId, terminalId: row.terminalId, txHash }])]
          })
          .pipe(Effect.catch((failure) => (failure._tag === "StateConflict" ? Effect.fail(none) : Effect.die(failure))))
        return yield* orders.info(code)
      })

      const cancelCrypto = Effect.fn("PaymentCrypto.cancelCrypto")(function* (code: string) {
        const row = yield* byCode(code)
        yield* delivered(actor(String(row.txId)).CancelCrypto({}))
        return yield* orders.info(code)
      })

      return PaymentCrypto.of({ payCrypto, confirmCrypto, cancelCrypto })
    })
  )
}
