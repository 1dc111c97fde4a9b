/**
 * create_withdraw, two-step as internal_transfer (CONTRACT C15 "Withdrawals", C10, C12), and the
 * owner's cancellation of a withdrawal or deposit refund. Step one checks in C15's order, prices the
 * fee (Withdraw tariff + the terminal's networkFee) and asks the wallet's actor to reserve amount +
 * fee and record the Outcome with its on-chain record (AwaitingConfirmation) in one commit; step two
 * hands the proof to the same actor, which queues it for the signer. Expiry and exhausted attempts
 * release it through the transfers' sweeper and the actor (stage Canceled).
 */
import { Context, Effect, Layer, Result } from "effect"
import { SystemWallet } from "../../../sql/Ledger.ts"
import { WalletEntity } from "../../../actors/wallet/Protocol.ts"
import { Stage } from "../../../sql/rows/CryptoRows.ts"
import { findTerminal } from "../../../sql/ReferenceRepo.ts"
import { newestDerived, technicalAmountOf } from "../../../sql/AddressRepo.ts"
import { type CryptoTx, cryptoTxById, isCryptoTx, nonceUsed, walletAddressByKey } from "../../../sql/WithdrawRepo.ts"
import {
  InvalidAddress,
  NotACryptoTerminal,
  SourceAddressRefused,
  SourceTransferNotSupported,
  TerminalNotAllowed,
  WithdrawalHandedOff
} from "../../../schema/CryptoErrors.ts"
import {
  BalanceNotEnough,
  ConfirmationExpired,
  ConfirmationFailed,
  InvalidRequest,
  NonceExists,
  RateLimited,
  TerminalNotFound,
  TooManyDecimals,
  TransactionNotFound,
  TransactionNotPending,
  WalletBlocked
} from "../../../schema/Errors.ts"
import { asTxId, asWalletId } from "../../../schema/Ids.ts"
import { fromMinorUnits, toMinorUnits } from "../../../schema/Money.ts"
import { ContractType, TerminalFlag } from "../../../schema/Reference.ts"
import { type CreateTransactOut, TxState, TxType } from "../../../schema/Transfer.ts"
import { sendBlockingFlags, WalletFlag } from "../../../schema/Wallet.ts"
import type { CreateWithdrawIn, CreateWithdrawOut } from "../../../schema/Withdrawals.ts"
import { addressKey, isCryptoNetwork, isMemoNetwork, isValidAddress, Network } from "../../platform/crypto/Addresses.ts"
import { commitDecision, LostRace } from "../../platform/CommitDecision.ts"
import { AppConfigService } from "../../platform/Config.ts"
import { makeDb } from "../../platform/db/Sql.ts"
import { delivered } from "../../platform/Delivery.ts"
import { LedgerWriter } from "../../platform/LedgerWriter.ts"
import { newConfirmation } from "../../platform/SecondFactor.ts"
import { Tariffs } from "../../platform/Tariffs.ts"
import { TimeTicks } from "../../platform/TimeTicks.ts"
import { endUnsent } from "./CryptoTxOps.ts"
import { settlementHook, withSettlements } from "../../platform/WithdrawalSettlement.ts"
import type { Sender } from "../wallets/Transfers.ts"
import { confirmThrough, requireProof } from "../wallets/SecondStep.ts"

/** C15: sourceTransferSupported exactly on Ethereum and BnbSmartChain with Base, ERC20, BEP20 or EVM. */
export const sourceTransferSupported = (typeNetwork: number, typeContract: number): boolean =>
  (typeNetwork === Network.Ethereum || typeNetwork === Network.BnbSmartChain) &&
  [ContractType.Base, ContractType.ERC20, ContractType.BEP20, ContractType.EVM].includes(typeContract as 0)

/** A network fee in currency units as minor units, rounded up (the service never undercharges it). */
export const networkFeeMinor = (networkFee: string | null, decimals: number): bigint => {
  if (networkFee === null) return 0n
  const exact = toMinorUnits(networkFee, decimals)
  if (exact !== undefined) return exact
  const [whole, fraction = ""] = networkFee.split(".")
  return BigInt(whole + fraction.slice(0, decimals).padEnd(decimals, "0")) + 1n
}

export type WithdrawError =
  | InvalidRequest
  | BalanceNotEnough
  | NonceExists
  | WalletBlocked
  | TooManyDecimals
  | TransactionNotPending
  | ConfirmationFailed
  | ConfirmationExpired
  | RateLimited
  | TerminalNotFound
  | NotACryptoTerminal
  | TerminalNotAllowed
  | InvalidAddress
  | SourceTransferNotSupported
  | SourceAddressRefused

export type CancelError = TransactionNotFound | TransactionNotPending | WithdrawalHandedOff | RateLimited

/** How many times a cancel re-reads after losing a race (to step two, or to a hand-off). */
const cancelRetriesMax = 3

export class Withdrawals extends Context.Service<
  Withdrawals,
  {
    readonly begin: (sender: Sender, input: CreateWithdrawIn) => Effect.Effect<CreateWithdrawOut, WithdrawError>
    readonly confirm: (
      sender: Sender,
      txId: string,
      code: string | undefined,
      signResult: string | undefined
    ) => Effect.Effect<CreateWithdrawOut, WithdrawError>
    /** Whether the transaction has an on-chain record (cancel_tx sends those here). */
    readonly isCrypto: (txId: string) => Effect.Effect<boolean>
    /** The owner's cancel (cancel_tx: Outcomes and Refunds; cancel_withdraw: `outcomesOnly`). */
    readonly cancel: (
      walletId: string,
      txId: string,
      outcomesOnly: boolean
    ) => Effect.Effect<{ txId: string; idUpdate: string }, CancelError>
  }
>()("core/Withdrawals") {
  static readonly layer = Layer.effect(
    Withdrawals,
    Effect.gen(function* () {
      const db = yield* makeDb
      const ticks = yield* TimeTicks
      const tariffs = yield* Tariffs
      const ledger = yield* LedgerWriter
      const settlements = yield* settlementHook
      const walletActor = yield* WalletEntity.client
      const confirmationTtlMs = (yield* AppConfigService).confirmationTtlSeconds * 1000

      const units = (minor: bigint, decimals: number) => Number(fromMinorUnits(minor, decimals))

      /** The terminal checks shared by both steps' reading of it: 10040, 10200, 10201. */
      const withdrawTerminal = Effect.fnUntraced(function* (id: string, walletGroup: number) {
        const terminal = yield* db(findTerminal(id))
        if (terminal === undefined) return yield* new TerminalNotFound({ message: `tokenNetwork: no terminal ${id}` })
        if (!isCryptoNetwork(terminal.typeNetwork) || terminal.currency === null)
          return yield* new NotACryptoTerminal({ message: `tokenNetwork: terminal ${id} is not on a crypto network` })
        if ((terminal.flags & TerminalFlag.Withdraw) === 0)
          return yield* new TerminalNotAllowed({ message: `tokenNetwork: terminal ${id} does not allow withdrawals` })
        if (terminal.walletGroups.length > 0 && !terminal.walletGroups.includes(walletGroup))
          return yield* new TerminalNotAllowed({
            message: `tokenNetwork: terminal ${id} is not open to wallet group ${walletGroup}`
          })
        return { ...terminal, currency: terminal.currency }
      })

      /** The pinned source (C15 source rules): the wallet's own derived address holding at least A on chain. */
      const pinnedSource = Effect.fnUntraced(function* (
        walletId: string,
        terminal: { id: bigint; typeNetwork: number; typeContract: number },
        input: CreateWithdrawIn,
        amount: bigint
      ) {
        const requested = input.requireClientAssetSource === true
        const named = input.sourceAddress ?? null
        if (!requested && named === null) return null
        if (!sourceTransferSupported(terminal.typeNetwork, terminal.typeContract)) {
          return yield* new SourceTransferNotSupported({
            message: "requireClientAssetSource: the terminal does not support transfers from a client's address"
          })
        }
        const source =
          named === null
            ? yield* db(newestDerived(walletId, terminal.typeNetwork))
            : isValidAddress(terminal.typeNetwork, named)
              ? yield* db(walletAddressByKey(walletId, terminal.typeNetwork, addressKey(terminal.typeNetwork, named)))
              : undefined
        if (source === undefined) {
          return yield* new SourceAddressRefused({
            message:
              named === null
                ? "sourceAddress: the wallet has no address on this network"
                : "sourceAddress: not an address of this wallet on this network"
          })
        }
        const held = yield* db(technicalAmountOf(terminal.id, addressKey(terminal.typeNetwork, source.address)))
        if (held < amount)
          return yield* new SourceAddressRefused({
            message: "sourceAddress: holds less than the amount on chain"
          })
        return source
      })

      const begin = Effect.fn("Withdrawals.begin")(function* (sender: Sender, input: CreateWithdrawIn) {
        const wallet = sender.session
        const terminal = yield* withdrawTerminal(input.tokenNetwork, wallet.walletGroup)
        const network = terminal.typeNetwork
        if (!isValidAddress(network, input.address))
          return yield* new InvalidAddress({ message: "address: not an address of the terminal's network" })
        const memo = input.memo ?? null
        if (memo !== null && !isMemoNetwork(network))
          return yield* new InvalidRequest({ message: "memo: only on memo networks (Solana, Ton)" })
        if (!/[1-9]/.test(input.amount)) return yield* new InvalidRequest({ message: "amount: must be greater than 0" })
        const amount = toMinorUnits(input.amount, terminal.decimals)
        if (amount === undefined)
          return yield* new TooManyDecimals({
            message: `amount: ${terminal.currency} has ${terminal.decimals} decimals`
          })
        if ((wallet.flags & sendBlockingFlags) !== 0) {
          return yield* new WalletBlocked({
            message: "wallet: blocked for outgoing transfers (WalletBlock, InnerTransferBlock or Deleted)"
          })
        }
        const clientNonce =
          input.clientNonce === undefined || input.clientNonce === null ? null : BigInt(input.clientNonce)
        if (clientNonce !== null && (yield* db(nonceUsed(sender.walletId, String(clientNonce)))))
          return yield* new NonceExists({ message: "clientNonce: already used by this wallet" })
        const source = yield* pinnedSource(sender.walletId, terminal, input, amount)
        const networkFee = networkFeeMinor(terminal.networkFee, terminal.decimals)
        const quote = yield* tariffs.resolve({
          txClass: "Withdraw",
          currency: terminal.currency,
          decimals: terminal.decimals,
          amount,
          walletGroup: wallet.walletGroup,
          typeTx: TxType.Outcome
        })
        const fee = quote.fee + networkFee
        const confirmation = newConfirmation(
          (wallet.flags & WalletFlag.Require2FA) !== 0,
          sender.keyType,
          new Date(Date.now() + confirmationTtlMs)
        )
        const txId = ticks.next()
        yield* walletActor(sender.walletId)
          .ReserveTransfer({
            txId: asTxId(txId),
            typeTx: TxType.Outcome,
            recipientId: asWalletId(SystemWallet.Treasury),
            profitWalletId: asWalletId(quote.profitWalletId),
            currency: terminal.currency,
            amount,
            fee,
            tag: input.tag ?? null,
            clientNonce,
            ...confirmation.reserve,
            crypto: {
              txId,
              terminalId: terminal.id,
              typeTx: TxType.Outcome,
              stage: Stage.AwaitingConfirmation,
              networkFee,
              txHash: null,
              index: null,
              fromAddress: null,
              toAddress: input.address,
              memo,
              blockHeight: null,
              blockHash: null,
              sourceAddress: source?.address ?? null,
              sourceIndex: source?.derivationIndex ?? null,
              incomeTxId: null,
              queued: false
            }
          })
          .pipe(delivered)
        return {
          txId: String(txId) as CreateTransactOut["txId"],
          fee: units(fee, terminal.decimals),
          networkFee: units(networkFee, terminal.decimals),
          ...confirmation.answer
        }
      })

      const confirm = Effect.fn("Withdrawals.confirm")(function* (
        sender: Sender,
        txId: string,
        code: string | undefined,
        signResult: string | undefined
      ) {
        yield* requireProof(code, signResult)
        const settled = yield* confirmThrough(walletActor, sender.walletId, txId, code, signResult, "withdraw")
        const tx = yield* db(cryptoTxById(txId))
        const terminal = tx === undefined ? undefined : yield* db(findTerminal(String(tx.terminalId)))
        const decimals = terminal?.decimals ?? 0
        return {
          txId: txId as CreateTransactOut["txId"],
          fee: units(settled.fee, decimals),
          networkFee: units(tx?.networkFee ?? 0n, decimals),
          confirmationStatusCode: "Confirmed" as const
        }
      })

      /** The rules of C15's cancel on what the transaction is now. */
      const judge = (tx: CryptoTx | undefined, walletId: string, txId: string, outcomesOnly: boolean) => {
        if (
          tx === undefined ||
          String(tx.walletFrom) !== walletId ||
          (tx.typeTx !== TxType.Outcome && (outcomesOnly || tx.typeTx !== TxType.Refund))
        )
          return new TransactionNotFound({
            message: `id: no ${outcomesOnly ? "withdrawal" : "transaction"} ${txId} of this wallet`
          })
        if ((tx.txState & (TxState.Finished | TxState.Canceled)) !== 0)
          return new TransactionNotPending({ message: `id: transaction ${txId} is final` })
        if (tx.stage !== Stage.AwaitingConfirmation && tx.stage !== Stage.Queued)
          return new WithdrawalHandedOff({ message: `id: transaction ${txId} was handed to the signer (${tx.stage})` })
        return tx
      }

      /**
       * C15's cancel, judged on the transaction as it is now; a cancel that lost a race (to step two, or to
       * a hand-off) reads it again, at most `cancelRetriesMax` times, then answers what the last try met.
       */
      const cancel = (walletId: string, txId: string, outcomesOnly: boolean) =>
        commitDecision({
          subject: `transaction ${txId}`,
          load: db(cryptoTxById(txId)),
          decide: (found: CryptoTx | undefined) => {
            const judged = judge(found, walletId, txId, outcomesOnly)
            return "stage" in judged ? Result.succeed(judged) : Result.fail(judged)
          },
          commit: (tx: CryptoTx) =>
            Effect.gen(function* () {
              if (tx.stage === Stage.AwaitingConfirmation) {
                // Step one's reservation is the wallet actor's (it also drops the pending confirmation).
                const done = yield* walletActor(walletId)
                  .CancelTransfer({ txId: asTxId(txId), reason: "cancelled by the sender" })
                  .pipe(delivered, Effect.result)
                if (done._tag === "Success") return { txId, idUpdate: done.success.idUpdate }
                return yield* new LostRace({ ifLast: done.failure })
              }
              const ending = yield* withSettlements(settlements, endUnsent(tx, [Stage.Queued], Stage.Canceled))
              const committed = yield* ledger.commit(ending).pipe(Effect.result)
              if (committed._tag === "Failure")
                return yield* new LostRace({
                  ifLast: new WithdrawalHandedOff({ message: `id: transaction ${txId} changed; read it again` })
                })
              yield* walletActor(walletId).Reload().pipe(delivered, Effect.ignore)
              return { txId, idUpdate: String(committed.success) }
            }),
          retries: cancelRetriesMax
        }).pipe(
          Effect.catchTag("DecisionContended", () =>
            Effect.fail(new WithdrawalHandedOff({ message: `id: transaction ${txId} changed; read it again` }))
          ),
          Effect.withSpan("Withdrawals.cancel")
        )

      return Withdrawals.of({ begin, confirm, cancel, isCrypto: (txId) => db(isCryptoTx(txId)) })
    })
  )
}
