/**
 * Scanner pushes and the Income actions of C15: a push is validated whole (terminal, every item's
 * format, decimals and addresses, duplicates) before it reaches the terminal's chain actor, which
 * decides and commits it; links, sealed partner info and refunds go to the chain actor of the
 * Income's terminal, so a terminal's Incomes change in one place.
 */
import { Context, Effect, Layer } from "effect"
import { ChainEntity, type PushItem } from "../../../actors/chain/Protocol.ts"
import { storedTipOf, terminalOfTx } from "../../../sql/ChainRepo.ts"
import { findTerminal, type Terminal } from "../../../sql/ReferenceRepo.ts"
import { walletById } from "../../../sql/WalletRepo.ts"
import type { AddressTxBatch, AddressTxBatchOut, LinkItemOut, ScannerTerminalOut } from "../../../schema/Chain.ts"
import {
  BlockHeightGap,
  BlockNotConnected,
  BlockTooOld,
  DuplicateItem,
  IncomeNotRefundable,
  InvalidAddress,
  NotACryptoTerminal,
  PartnerInfoNotRequired,
  PartnerInfoSealed,
  RefundBelowNetworkFee
} from "../../../schema/CryptoErrors.ts"
import {
  codeOf,
  InvalidRequest,
  RateLimited,
  TerminalNotFound,
  TooManyDecimals,
  TooManyItems,
  TransactionNotFound,
  WalletNotFound
} from "../../../schema/Errors.ts"
import { asTxId, asWalletId } from "../../../schema/Ids.ts"
import { fromMinorUnits, toMinorUnits } from "../../../schema/Money.ts"
import { addressKey, isCryptoNetwork, isValidAddress } from "../../platform/crypto/Addresses.ts"
import { Currencies } from "../../platform/Currencies.ts"
import { makeDb } from "../../platform/db/Sql.ts"
import { delivered } from "../../platform/Delivery.ts"

/** C15: a block carries at most this many items; a link request at most this many links. */
export const pushItemsMax = 1000
export const linkItemsMax = 1000
/** The largest height a push may name (heights are answered as JSON numbers). */
const heightMax = BigInt(Number.MAX_SAFE_INTEGER)

export type PushError =
  | TerminalNotFound
  | NotACryptoTerminal
  | InvalidRequest
  | TooManyDecimals
  | InvalidAddress
  | DuplicateItem
  | TooManyItems
  | BlockHeightGap
  | BlockNotConnected
  | BlockTooOld
  | RateLimited

const integer = (value: string | number, field: string, min: bigint, max: bigint) => {
  const text = String(value)
  if (!/^-?[0-9]{1,19}$/.test(text)) return Effect.fail(new InvalidRequest({ message: `${field}: must be an integer` }))
  const n = BigInt(text)
  return n < min || n > max
    ? Effect.fail(new InvalidRequest({ message: `${field}: must be between ${min} and ${max}` }))
    : Effect.succeed(n)
}

export class Chains extends Context.Service<
  Chains,
  {
    readonly push: (batch: AddressTxBatch) => Effect.Effect<AddressTxBatchOut, PushError>
    /** C19 §10 scanner_terminal: a crypto terminal's settings and its stored tip. */
    readonly scannerTerminal: (
      tokenNetwork: string
    ) => Effect.Effect<ScannerTerminalOut, TerminalNotFound | NotACryptoTerminal>
    readonly link: (
      items: ReadonlyArray<{ readonly txId: string; readonly walletId: string }>
    ) => Effect.Effect<ReadonlyArray<LinkItemOut>, TooManyItems | InvalidRequest>
    readonly sealPartnerInfo: (
      walletId: string,
      input: { readonly txId: string; readonly partnerInfo: string; readonly description: string | null }
    ) => Effect.Effect<
      { readonly idUpdate: bigint },
      TransactionNotFound | PartnerInfoNotRequired | PartnerInfoSealed | RateLimited
    >
    readonly initRefund: (
      walletId: string,
      txId: string
    ) => Effect.Effect<
      { txId: string; incomeTxId: string; toAddress: string; amount: string; networkFee: string },
      TransactionNotFound | IncomeNotRefundable | RefundBelowNetworkFee | RateLimited
    >
  }
>()("core/Chains") {
  static readonly layer = Layer.effect(
    Chains,
    Effect.gen(function* () {
      const db = yield* makeDb
      const currencies = yield* Currencies
      const chainActor = yield* ChainEntity.client

      const cryptoTerminal = Effect.fnUntraced(function* (id: string, field: string) {
        const terminal = yield* db(findTerminal(id))
        if (terminal === undefined) return yield* new TerminalNotFound({ message: `${field}: no terminal ${id}` })
        if (!isCryptoNetwork(terminal.typeNetwork) || terminal.currency === null)
          return yield* new NotACryptoTerminal({ message: `${field}: terminal ${id} is not on a crypto network` })
        return terminal as Terminal & { readonly currency: string }
      })

      const decimalsOf = (terminal: Terminal & { readonly currency: string }) =>
        currencies.find(terminal.currency)?.decimals ?? terminal.decimals

      /** Every item checked and converted before anything moves; the first failure names its field. */
      const checkItems = Effect.fnUntraced(function* (
        terminal: Terminal & { readonly currency: string },
        batch: AddressTxBatch
      ) {
        const decimals = decimalsOf(terminal)
        const network = terminal.typeNetwork
        const seen = new Set<string>()
        const out: Array<PushItem> = []
        for (let i = 0; i < batch.items.length; i++) {
          const item = batch.items[i]
          const at = `items[${i}]`
          const index = yield* integer(item.index, `${at}.index`, 0n, heightMax)
          const amountText = typeof item.amount === "number" ? String(item.amount) : item.amount
          if (!/^[0-9]+(\.[0-9]+)?$/.test(amountText) || !/[1-9]/.test(amountText))
            return yield* new InvalidRequest({ message: `${at}.amount: must be a decimal string > 0` })
          const amount = toMinorUnits(amountText, decimals)
          if (amount === undefined)
            return yield* new TooManyDecimals({
              message: `${at}.amount: ${terminal.currency} has ${decimals} decimals`
            })
          if (!isValidAddress(network, item.to))
            return yield* new InvalidAddress({ message: `${at}.to: not an address of network ${network}` })
          const from = item.from ?? null
          if (from !== null && !isValidAddress(network, from))
            return yield* new InvalidAddress({ message: `${at}.from: not an address of network ${network}` })
          const key = `${item.txHash}:${index}`
          if (seen.has(key))
            return yield* new DuplicateItem({ message: `${at}.index: (txHash, index) appears twice in the block` })
          seen.add(key)
          out.push({
            txHash: item.txHash,
            index,
            direction: item.direction,
            from,
            fromKey: from === null ? null : addressKey(network, from),
            to: item.to,
            toKey: addressKey(network, item.to),
            memo: item.memo ?? null,
            amount,
            txId: item.txId === undefined || item.txId === null ? null : BigInt(item.txId)
          })
        }
        return out
      })

      const push = Effect.fn("Chains.push")(function* (batch: AddressTxBatch) {
        if (batch.items.length > pushItemsMax)
          return yield* new TooManyItems({ message: `items: at most ${pushItemsMax} per block` })
        const terminal = yield* cryptoTerminal(String(batch.tokenNetwork), "tokenNetwork")
        const height = yield* integer(batch.height, "height", 0n, heightMax)
        const items = yield* checkItems(terminal, batch)
        const answer = yield* chainActor(String(terminal.id))
          .PushBlock({ height, hash: batch.hash, parentHash: batch.parentHash, items })
          .pipe(delivered)
        return {
          tokenNetwork: String(terminal.id),
          height: Number(height),
          hash: batch.hash,
          tipHeight: Number(answer.tipHeight),
          replayed: answer.replayed,
          orphaned: answer.orphaned.map(Number),
          items: answer.items.map((i) => ({
            txHash: i.txHash,
            index: Number(i.index),
            direction: i.direction,
            txId: i.txId === null ? null : asTxId(i.txId),
            walletId: i.walletId === null ? null : asWalletId(i.walletId)
          }))
        }
      })

      const scannerTerminal = Effect.fn("Chains.scannerTerminal")(function* (tokenNetwork: string) {
        const terminal = yield* cryptoTerminal(tokenNetwork, "tokenNetwork")
        // The tip the chain actor last committed (chain_heads), whichever process holds the actor.
        const tip = yield* db(storedTipOf(terminal.id))
        return {
          tokenNetwork: String(terminal.id),
          typeNetwork: terminal.typeNetwork,
          typeContract: terminal.typeContract,
          currency: terminal.currency,
          decimals: decimalsOf(terminal),
          addressContract: terminal.addressContract,
          confirmations: terminal.confirmations,
          defaultHotAddress: terminal.defaultHotAddress,
          tip: tip === undefined ? null : { height: Number(tip.tipHeight), hash: tip.tipHash }
        }
      })

      const linkOne = (item: { readonly txId: string; readonly walletId: string }) =>
        Effect.gen(function* () {
          const owner = yield* db(terminalOfTx(item.txId))
          if (owner === undefined)
            return yield* new TransactionNotFound({ message: `txId: no crypto transaction ${item.txId}` })
          const wallet = yield* db(walletById(item.walletId))
          if (wallet === undefined || wallet.id < 0n)
            return yield* new WalletNotFound({ message: `walletId: no wallet ${item.walletId}` })
          return yield* chainActor(String(owner.terminalId))
            .Link({ txId: BigInt(item.txId), walletId: wallet.id })
            .pipe(delivered)
        })

      const link = Effect.fn("Chains.link")(function* (
        items: ReadonlyArray<{ readonly txId: string; readonly walletId: string }>
      ) {
        if (items.length === 0) return yield* new InvalidRequest({ message: "body: at least one link" })
        if (items.length > linkItemsMax)
          return yield* new TooManyItems({ message: `body: at most ${linkItemsMax} links per request` })
        return yield* Effect.forEach(items, (item) =>
          linkOne(item).pipe(
            Effect.map((r): LinkItemOut => ({ ...item, replayed: r.replayed, error: null })),
            Effect.catch((e: { readonly _tag: string; readonly message: string }) =>
              Effect.succeed<LinkItemOut>({
                ...item,
                replayed: false,
                error: { code: codeOf(e._tag) ?? 10500, message: e.message }
              })
            )
          )
        )
      })

      const incomeTerminal = (txId: string) =>
        Effect.flatMap(db(terminalOfTx(txId)), (owner) =>
          owner === undefined
            ? Effect.fail(new TransactionNotFound({ message: `txId: no Income ${txId} of this wallet` }))
            : Effect.succeed(String(owner.terminalId))
        )

      const sealPartnerInfo = Effect.fn("Chains.sealPartnerInfo")(function* (
        walletId: string,
        input: { readonly txId: string; readonly partnerInfo: string; readonly description: string | null }
      ) {
        const terminal = yield* incomeTerminal(input.txId)
        return yield* chainActor(terminal)
          .SealPartnerInfo({
            walletId: BigInt(walletId),
            txId: BigInt(input.txId),
            partnerInfo: input.partnerInfo,
            description: input.description
          })
          .pipe(delivered)
      })

      const initRefund = Effect.fn("Chains.initRefund")(function* (walletId: string, txId: string) {
        const terminalId = yield* incomeTerminal(txId)
        const terminal = yield* cryptoTerminal(terminalId, "txId").pipe(Effect.orDie)
        const decimals = decimalsOf(terminal)
        const refund = yield* chainActor(terminalId)
          .InitRefund({ walletId: BigInt(walletId), txId: BigInt(txId) })
          .pipe(delivered)
        return {
          txId: String(refund.refundTxId),
          incomeTxId: txId,
          toAddress: refund.toAddress,
          amount: fromMinorUnits(refund.amount, decimals),
          networkFee: fromMinorUnits(refund.networkFee, decimals)
        }
      })

      return Chains.of({ push, scannerTerminal, link, sealPartnerInfo, initRefund })
    })
  )
}
