/**
 * Two-step internal transfers (SPEC "Internal transfer" rules 1-7, CONTRACT C10, C12). Step one
 * resolves the recipient, the type and the fee, picks the confirmation channel and asks the
 * sender's wallet actor to reserve amount + fee; step two hands the proof to the same actor, which
 * settles. Expired confirmations are released by a sweeper.
 */
import { Context, Effect, Layer, Schedule } from "effect"
import { WalletEntity } from "../../../actors/wallet/Protocol.ts"
import { ed25519PublicKey, newConfirmation } from "../../platform/SecondFactor.ts"
import { expiredConfirmations, insertSigningKey } from "../../../sql/TransferRepo.ts"
import { walletById } from "../../../sql/WalletRepo.ts"
import {
  BalanceNotEnough,
  ConfirmationExpired,
  ConfirmationFailed,
  FieldRuleViolated,
  InvalidRequest,
  NonceExists,
  RateLimited,
  SameAccounts,
  TooManyDecimals,
  TransactionNotPending,
  UnknownCurrency,
  WalletBlocked,
  WalletNotFound
} from "../../../schema/Errors.ts"
import { asTxId, asWalletId } from "../../../schema/Ids.ts"
import { fromMinorUnits } from "../../../schema/Money.ts"
import type { CurrentSession, KeyType } from "../../../schema/Security.ts"
import { type CreateTransactOut, type InternalTransferIn, TxType } from "../../../schema/Transfer.ts"
import { sendBlockingFlags, WalletFlag } from "../../../schema/Wallet.ts"
import { AppConfigService } from "../../platform/Config.ts"
import { makeDb } from "../../platform/db/Sql.ts"
import { delivered } from "../../platform/Delivery.ts"
import { TimeTicks } from "../../platform/TimeTicks.ts"
import { Currencies } from "../../platform/Currencies.ts"
import { Recipients } from "./Recipients.ts"
import { Tariffs } from "../../platform/Tariffs.ts"
import { confirmThrough, requireProof } from "./SecondStep.ts"

export const sweepIntervalMs = 1_000
export const sweepBatchMax = 500

export interface Sender {
  readonly walletId: string
  readonly keyType: KeyType
  /** The wallet as the request's session read it (no second read of the wallet row). */
  readonly session: CurrentSession["Service"]
}

export type TransferError =
  | BalanceNotEnough
  | NonceExists
  | SameAccounts
  | WalletBlocked
  | WalletNotFound
  | UnknownCurrency
  | TooManyDecimals
  | InvalidRequest
  | TransactionNotPending
  | ConfirmationFailed
  | ConfirmationExpired
  | RateLimited

export class Transfers extends Context.Service<
  Transfers,
  {
    readonly begin: (sender: Sender, input: InternalTransferIn) => Effect.Effect<CreateTransactOut, TransferError>
    readonly confirm: (
      sender: Sender,
      txId: string,
      code: string | undefined,
      signResult: string | undefined
    ) => Effect.Effect<CreateTransactOut, TransferError>
    readonly cancel: (
      walletId: string,
      txId: string
    ) => Effect.Effect<{ txId: string; idUpdate: string }, TransactionNotPending | RateLimited>
    readonly registerKey: (
      walletId: string,
      publicKeyBase64: string
    ) => Effect.Effect<void, WalletNotFound | FieldRuleViolated>
  }
>()("core/Transfers") {
  static readonly layer = Layer.effect(
    Transfers,
    Effect.gen(function* () {
      const db = yield* makeDb
      const ticks = yield* TimeTicks
      const currencies = yield* Currencies
      const recipients = yield* Recipients
      const tariffs = yield* Tariffs
      const walletActor = yield* WalletEntity.client
      const confirmationTtlMs = (yield* AppConfigService).confirmationTtlSeconds * 1000

      const begin = Effect.fn("Transfers.begin")(function* (sender: Sender, input: InternalTransferIn) {
        const wallet = sender.session
        if ((wallet.flags & sendBlockingFlags) !== 0) {
          return yield* new WalletBlocked({
            message: "wallet: blocked for outgoing transfers (WalletBlock, InnerTransferBlock or Deleted)"
          })
        }
        const currency = yield* currencies.require(input.currency, "currency")
        const amount = yield* currencies.toMinor(input.amount, currency, "amount")
        const recipient = yield* recipients.resolve(input.recipient, wallet.project)
        if (String(recipient.id) === wallet.walletId)
          return yield* new SameAccounts({ message: "recipient: is the active wallet itself" })
        if ((recipient.flags & WalletFlag.Deleted) !== 0) {
          return yield* new WalletBlocked({ message: "recipient: the wallet is deleted" })
        }
        const self = String(recipient.clientId) === wallet.clientId
        const typeTx = self ? TxType.SelfWalletTransfer : TxType.InternalTx
        const quote = yield* tariffs.resolve({
          txClass: self ? "SelfTransfer" : "InnerTransfer",
          currency: currency.code,
          decimals: currency.decimals,
          amount,
          walletGroup: wallet.walletGroup,
          typeTx
        })
        const confirmation = newConfirmation(
          (wallet.flags & WalletFlag.Require2FA) !== 0,
          sender.keyType,
          new Date(Date.now() + confirmationTtlMs)
        )
        const txId = String(ticks.next())
        yield* walletActor(sender.walletId)
          .ReserveTransfer({
            txId: asTxId(txId),
            typeTx,
            recipientId: asWalletId(recipient.id),
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
          txId: txId as CreateTransactOut["txId"],
          fee: Number(fromMinorUnits(quote.fee, currency.decimals)),
          ...confirmation.answer
        }
      })

      const confirm = Effect.fn("Transfers.confirm")(function* (
        sender: Sender,
        txId: string,
        code: string | undefined,
        signResult: string | undefined
      ) {
        yield* requireProof(code, signResult)
        const settled = yield* confirmThrough(walletActor, sender.walletId, txId, code, signResult, "transfer")
        const currency = currencies.find(settled.currency)
        return {
          txId: txId as CreateTransactOut["txId"],
          fee: Number(fromMinorUnits(settled.fee, currency?.decimals ?? 0)),
          confirmationStatusCode: "Confirmed" as const
        }
      })

      const cancel = (walletId: string, txId: string) =>
        walletActor(walletId)
          .CancelTransfer({ txId: asTxId(txId), reason: "cancelled by the sender" })
          .pipe(
            Effect.map(({ idUpdate }) => ({ txId, idUpdate })),
            delivered
          )

      const registerKey = Effect.fn("Transfers.registerKey")(function* (walletId: string, publicKeyBase64: string) {
        const wallet = yield* db(walletById(walletId))
        if (wallet === undefined || wallet.id < 0n)
          return yield* new WalletNotFound({ message: `walletId: no wallet ${walletId}` })
        const raw = Buffer.from(publicKeyBase64, "base64")
        const valid =
          raw.length === 32 &&
          (() => {
            try {
              ed25519PublicKey(raw)
              return true
            } catch {
              return false
            }
          })()
        if (!valid)
          return yield* new FieldRuleViolated({ message: "publicKey: must be a base64 raw 32-byte Ed25519 public key" })
        yield* db(insertSigningKey(walletId, new Uint8Array(raw)))
      })

      // Confirmations past their expiry are released by their wallet's actor (a conditional
      // transition, so two processes sweeping the same one is harmless).
      const sweep = Effect.gen(function* () {
        const expired = yield* db(expiredConfirmations(sweepBatchMax))
        yield* Effect.forEach(
          expired,
          (row) =>
            Effect.ignore(
              walletActor(String(row.walletId)).CancelTransfer({ txId: asTxId(row.txId), reason: "expired" })
            ),
          { concurrency: 8, discard: true }
        )
      })
      yield* Effect.forkScoped(sweep.pipe(Effect.ignore, Effect.repeat(Schedule.spaced(sweepIntervalMs))))

      return Transfers.of({ begin, confirm, cancel, registerKey })
    })
  )
}
