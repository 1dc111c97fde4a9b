/**
 * The instant swap against the Broker (SPEC market rules 3-5 and 8, CONTRACT C14). Step one prices
 * the swap at the current rate, checks the client's net toAmount against the server's recomputation
 * (tolerance SWAP_DRIFT_PCT), and reserves fromAmount through the wallet's actor with a one-time
 * confirmation, exactly like an internal transfer. Step two checks the rate again and settles
 * atomically: fromAmount to the Broker, toAmount net and the fee (in the target currency) from it.
 */
import { canonicalPair } from "../../../actors/room/Protocol.ts"
import { BigNumber } from "bignumber.js"
import { Context, Effect, Layer } from "effect"
import { newConfirmation } from "../../platform/SecondFactor.ts"
import { WalletEntity } from "../../../actors/wallet/Protocol.ts"
import { txById } from "../../../sql/JournalRepo.ts"
import { balanceIn } from "../../../sql/LedgerRepo.ts"
import { recentCredits } from "../../../sql/OrderRepo.ts"
import { walletById } from "../../../sql/WalletRepo.ts"
import type { NewOrderInfo, SwapInfoOut } from "../../../schema/Exchange.ts"
import {
  BalanceNotEnough,
  ConfirmationExpired,
  ConfirmationFailed,
  CurrencyNotEnabled,
  InvalidAmount,
  InvalidRequest,
  NonceExists,
  RateLimited,
  RateNotFound,
  SwapDrift,
  TooManyDecimals,
  TransactionNotPending,
  UnknownCurrency,
  WalletBlocked,
  WalletNotFound
} from "../../../schema/Errors.ts"
import { asTxId, asWalletId } from "../../../schema/Ids.ts"
import { SystemWallet } from "../../../sql/Ledger.ts"
import { fromMinorUnits } from "../../../schema/Money.ts"
import type { KeyType } from "../../../schema/Security.ts"
import { type CreateTransactOut, TxType } from "../../../schema/Transfer.ts"
import { WalletFlag } from "../../../schema/Wallet.ts"
import { AppConfigService } from "../../platform/Config.ts"
import { makeDb } from "../../platform/db/Sql.ts"
import { TimeTicks } from "../../platform/TimeTicks.ts"
import { type Currency, Currencies } from "../../platform/Currencies.ts"
import { delivered } from "../../platform/Delivery.ts"
import { ExchangeOrders } from "./ExchangeOrders.ts"
import { Rates } from "./Rates.ts"
import { quoteFee, ruleFor, Tariffs } from "../../platform/Tariffs.ts"
import { confirmThrough, requireProof } from "../wallets/SecondStep.ts"

export type SwapError =
  | BalanceNotEnough
  | ConfirmationExpired
  | ConfirmationFailed
  | CurrencyNotEnabled
  | InvalidAmount
  | InvalidRequest
  | NonceExists
  | RateLimited
  | RateNotFound
  | SwapDrift
  | TooManyDecimals
  | TransactionNotPending
  | UnknownCurrency
  | WalletBlocked
  | WalletNotFound

const exchangeBlockingFlags = WalletFlag.WalletBlock | WalletFlag.Deleted

export class Swaps extends Context.Service<
  Swaps,
  {
    readonly info: (
      walletId: string | undefined,
      from: string,
      to: string
    ) => Effect.Effect<SwapInfoOut, UnknownCurrency | CurrencyNotEnabled | InvalidRequest | RateNotFound>
    readonly begin: (
      sender: { walletId: string; keyType: KeyType },
      input: NewOrderInfo
    ) => Effect.Effect<CreateTransactOut, SwapError>
    readonly confirm: (
      sender: { walletId: string; keyType: KeyType },
      txId: string,
      code: string | undefined,
      signResult: string | undefined
    ) => Effect.Effect<CreateTransactOut, SwapError>
  }
>()("core/Swaps") {
  static readonly layer = Layer.effect(
    Swaps,
    Effect.gen(function* () {
      const db = yield* makeDb
      const ticks = yield* TimeTicks
      const currencies = yield* Currencies
      const rates = yield* Rates
      const tariffs = yield* Tariffs
      const orders = yield* ExchangeOrders
      const config = yield* AppConfigService
      const walletActor = yield* WalletEntity.client
      const drift = new BigNumber(config.swapDriftPct)
      const confirmationTtlMs = config.confirmationTtlSeconds * 1000

      const rateOf = Effect.fnUntraced(function* (from: string, to: string) {
        const rate = yield* rates.rate(from, to)
        if (rate === undefined) return yield* new RateNotFound({ message: `currency_to: no rate for ${from}/${to}` })
        return rate.rate
      })

      /** The server's figures for a swap of `fromMinor`: gross and fee in the target currency, rounded down / up. */
      const price = Effect.fnUntraced(function* (from: Currency, to: Currency, fromMinor: bigint, walletGroup: number) {
        const rate = yield* rateOf(from.code, to.code)
        const gross = BigInt(
          new BigNumber(fromMinorUnits(fromMinor, from.decimals))
            .times(rate)
            .shiftedBy(to.decimals)
            .integerValue(BigNumber.ROUND_FLOOR)
            .toFixed(0)
        )
        const quote = quoteFee(yield* tariffs.list(), {
          txClass: "Swap",
          currency: to.code,
          decimals: to.decimals,
          amount: gross,
          walletGroup
        })
        const fee = quote.fee > gross ? gross : quote.fee
        return { gross, fee, net: gross - fee, profitWalletId: quote.profitWalletId }
      })

      /** |client − server| ≤ server × drift%, in exact decimals. */
      const withinDrift = (clientNet: bigint, serverNet: bigint) => {
        const diff = new BigNumber((clientNet > serverNet ? clientNet - serverNet : serverNet - clientNet).toString())
        return diff.lte(new BigNumber(serverNet.toString()).times(drift).shiftedBy(-2))
      }

      const chargebackWithheld = (walletId: string, currency: string) =>
        config.chargebackDays <= 0
          ? Effect.succeed(0n)
          : db(recentCredits(walletId, currency, new Date(Date.now() - config.chargebackDays * 86_400_000)))

      const info = Effect.fn("Swaps.info")(function* (walletId: string | undefined, fromCode: string, toCode: string) {
        yield* orders.pairOf(fromCode, toCode)
        const from = currencies.find(fromCode)!,
          to = currencies.find(toCode)!
        const rate = yield* rateOf(from.code, to.code)
        const wallet = walletId === undefined ? undefined : yield* db(walletById(walletId))
        const rule = ruleFor(yield* tariffs.list(), {
          txClass: "Swap",
          currency: to.code,
          decimals: to.decimals,
          amount: 0n,
          walletGroup: wallet?.walletGroup ?? 0
        })
        let maxAmount: string | null = null
        if (walletId !== undefined) {
          const balance = yield* db(balanceIn(walletId, from.code))
          const free = (balance?.free ?? 0n) - (yield* chargebackWithheld(walletId, from.code))
          maxAmount = fromMinorUnits(free > 0n ? free : 0n, from.decimals)
        }
        return {
          currencyFrom: from.code,
          currencyTo: to.code,
          rate: rate.toFixed(),
          minAmount: fromMinorUnits(1n, from.decimals),
          maxAmount,
          feeCurrency: to.code,
          feePercent: rule === undefined ? "0" : new BigNumber(rule.feePercent).toFixed(),
          feeFixed: rule === undefined ? "0" : new BigNumber(rule.feeFixed).toFixed(),
          driftPct: drift.toFixed(),
          chargebackDays: config.chargebackDays
        }
      })

      const begin = Effect.fn("Swaps.begin")(function* (
        sender: { walletId: string; keyType: KeyType },
        input: NewOrderInfo
      ) {
        if (input.toAmount === undefined || input.toAmount === null) {
          return yield* new InvalidAmount({ message: "toAmount: required for a swap (the net amount to receive)" })
        }
        const wallet = yield* db(walletById(sender.walletId))
        if (wallet === undefined)
          return yield* new WalletNotFound({ message: "sid: the session's wallet no longer exists" })
        if ((wallet.flags & exchangeBlockingFlags) !== 0)
          return yield* new WalletBlocked({ message: "wallet: blocked (WalletBlock or Deleted)" })
        yield* orders.pairOf(input.fromCurrency, input.toCurrency)
        const from = currencies.find(input.fromCurrency)!,
          to = currencies.find(input.toCurrency)!
        const fromMinor = yield* currencies.toMinor(input.fromAmount, from, "fromAmount")
        const toMinor = yield* currencies.toMinor(input.toAmount, to, "toAmount")
        const server = yield* price(from, to, fromMinor, wallet.walletGroup)
        if (server.net <= 0n || !withinDrift(toMinor, server.net)) {
          return yield* new SwapDrift({
            message: `toAmount: the server computes ${fromMinorUnits(server.net > 0n ? server.net : 0n, to.decimals)} ${to.code} net of a fee of ${fromMinorUnits(server.fee, to.decimals)}; the difference exceeds ${drift.toFixed()} %`
          })
        }
        const confirmation = newConfirmation(
          (wallet.flags & WalletFlag.Require2FA) !== 0,
          sender.keyType,
          new Date(Date.now() + confirmationTtlMs)
        )
        const txId = String(ticks.next())
        const { base } = canonicalPair(from.code, to.code)
        yield* walletActor(sender.walletId)
          .ReserveTransfer({
            txId: asTxId(txId),
            typeTx: from.code === base ? TxType.ExchangeToBroker : TxType.ExchangeFromBroker,
            recipientId: asWalletId(SystemWallet.Broker),
            profitWalletId: asWalletId(server.profitWalletId),
            currency: from.code,
            amount: fromMinor,
            fee: server.fee,
            tag: input.tag ?? null,
            clientNonce:
              input.clientNonce === undefined || input.clientNonce === null ? null : BigInt(input.clientNonce),
            ...confirmation.reserve,
            exchange: { currencyTo: to.code, amountTo: toMinor },
            withheld: yield* chargebackWithheld(sender.walletId, from.code)
          })
          .pipe(delivered)
        return {
          txId: txId as CreateTransactOut["txId"],
          fee: Number(fromMinorUnits(server.fee, to.decimals)),
          ...confirmation.answer
        }
      })

      const confirm = Effect.fn("Swaps.confirm")(function* (
        sender: { walletId: string; keyType: KeyType },
        txId: string,
        code: string | undefined,
        signResult: string | undefined
      ) {
        yield* requireProof(code, signResult)
        const tx = yield* db(txById(txId))
        if (tx === undefined || String(tx.walletFrom) !== sender.walletId || tx.currencyTo === null) {
          return yield* new TransactionNotPending({
            message: `confirmationTimetick: transaction ${txId} is not a swap waiting for confirmation`
          })
        }
        const wallet = yield* db(walletById(sender.walletId))
        const from = currencies.find(tx.currency)!,
          to = currencies.find(tx.currencyTo)!
        // The rate may have moved since step one: the swap executes only while it is still within tolerance.
        const server = yield* price(from, to, tx.amount, wallet?.walletGroup ?? 0)
        if (!withinDrift(tx.amountTo ?? 0n, server.net)) {
          yield* Effect.ignore(
            walletActor(sender.walletId).CancelTransfer({ txId: asTxId(txId), reason: "rate drift" })
          )
          return yield* new SwapDrift({
            message:
              "confirmationTimetick: the rate moved beyond the tolerance since step one; the reservation was released"
          })
        }
        const settled = yield* confirmThrough(walletActor, sender.walletId, txId, code, signResult, "swap")
        return {
          txId: txId as CreateTransactOut["txId"],
          fee: Number(fromMinorUnits(settled.fee, to.decimals)),
          confirmationStatusCode: "Confirmed" as const
        }
      })

      return Swaps.of({ info: info as any, begin: begin as any, confirm: confirm as any })
    })
  )
}
