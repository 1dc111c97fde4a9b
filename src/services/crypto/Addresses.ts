/**
 * Deposit addresses (CONTRACT C15 "Addresses"): create_address and list_addresses for a wallet,
 * address_block_list for the scanner. Derived networks take the next index of the network in the
 * transaction that stores the address (sql/AddressRepo.ts); memo networks give the terminal's hot
 * address with the wallet's memo, allocated once.
 */
import { Context, Effect, Layer } from "effect"
import {
  type AddressRecord,
  addressesUsableOn,
  allocateDerived,
  insertMemoRecord,
  insertWalletMemo,
  memoRecordOf,
  newestDerived,
  technicalSums,
  walletAddresses,
  walletMemo,
  watchList
} from "../../../sql/AddressRepo.ts"
import { baseTerminalOf, findTerminal, type Terminal } from "../../../sql/ReferenceRepo.ts"
import { walletById } from "../../../sql/WalletRepo.ts"
import {
  type AddressOut,
  contractName,
  networkName,
  sourceTransferSupported,
  type TechnicalState,
  typeAddressOf,
  type WatchedAddress
} from "../../../schema/Addresses.ts"
import {
  AddressesUnavailable,
  AddressLimitReached,
  NotACryptoTerminal,
  TerminalNotAllowed
} from "../../../schema/CryptoErrors.ts"
import { TerminalNotFound, WalletNotFound } from "../../../schema/Errors.ts"
import { asWalletId } from "../../../schema/Ids.ts"
import { minorToNumber } from "../../../schema/Money.ts"
import { ContractType, TerminalFlag } from "../../../schema/Reference.ts"
import { AccountKeys } from "../../platform/crypto/AccountKeys.ts"
import {
  addressKey,
  deriveAddress,
  isCryptoNetwork,
  isDerivedNetwork,
  isMemoNetwork,
  randomMemo,
  xpubEnvName
} from "../../platform/crypto/Addresses.ts"
import { makeDb } from "../../platform/db/Sql.ts"
import { TimeTicks } from "../../platform/TimeTicks.ts"

/** Tries at a fresh random memo before giving up (a collision needs ~10^5 memos already taken). */
const memoAttemptsMax = 20

const toOut = (row: AddressRecord, technicalState: TechnicalState | null = null): AddressOut => ({
  id: String(row.id),
  address: row.address,
  typeAddress: typeAddressOf(row.typeNetwork),
  memo: row.memo,
  typeNetwork: row.typeNetwork,
  technicalState
})

const toWatched = (row: AddressRecord): WatchedAddress => ({
  id: String(row.id),
  address: row.address,
  memo: row.memo,
  walletId: asWalletId(row.walletId),
  typeNetwork: row.typeNetwork,
  derivationIndex: row.derivationIndex,
  tick: String(row.tick)
})

const terminalOf = (t: Terminal) => ({
  id: t.id,
  typeNetwork: t.typeNetwork,
  memoNetwork: isMemoNetwork(t.typeNetwork)
})

export class Addresses extends Context.Service<
  Addresses,
  {
    readonly create: (
      walletId: string,
      terminalId: string,
      fresh: boolean
    ) => Effect.Effect<
      AddressOut,
      | TerminalNotFound
      | WalletNotFound
      | NotACryptoTerminal
      | TerminalNotAllowed
      | AddressesUnavailable
      | AddressLimitReached
    >
    readonly list: (
      walletId: string,
      terminalId: string | undefined,
      includeTechnicalState: boolean
    ) => Effect.Effect<ReadonlyArray<AddressOut>, TerminalNotFound>
    readonly watchList: (
      terminalId: string,
      cursor: string,
      limit: number
    ) => Effect.Effect<
      { readonly items: ReadonlyArray<WatchedAddress>; readonly cursor: string },
      TerminalNotFound | NotACryptoTerminal
    >
  }
>()("core/Addresses") {
  static readonly layer = Layer.effect(
    Addresses,
    Effect.gen(function* () {
      const db = yield* makeDb
      const keys = yield* AccountKeys
      const ticks = yield* TimeTicks

      const requireTerminal = (id: string) =>
        Effect.flatMap(db(findTerminal(id)), (t) =>
          t === undefined
            ? Effect.fail(new TerminalNotFound({ message: `token_network: no terminal ${id}` }))
            : Effect.succeed(t)
        )

      /** The wallet's memo, allocated once: a random 6..10 digits, retried on a collision. */
      const memoOf = Effect.fn("Addresses.memoOf")(function* (walletId: string) {
        for (let attempt = 0; attempt < memoAttemptsMax; attempt++) {
          const known = yield* db(walletMemo(walletId))
          if (known !== undefined) return known
          const stored = yield* db(insertWalletMemo(walletId, randomMemo()))
          if (stored !== undefined) return stored
        }
        return yield* Effect.die(new Error(`no free memo for wallet ${walletId} after ${memoAttemptsMax} attempts`))
      })

      const create = Effect.fn("Addresses.create")(function* (walletId: string, terminalId: string, fresh: boolean) {
        const terminal = yield* requireTerminal(terminalId)
        const network = terminal.typeNetwork
        if (terminal.builtIn || !isCryptoNetwork(network))
          return yield* new NotACryptoTerminal({
            message: `token_network: terminal ${terminalId} is not on a crypto network`
          })
        const wallet = yield* db(walletById(walletId))
        if (wallet === undefined) return yield* new WalletNotFound({ message: `wallet ${walletId} not found` })
        if ((terminal.flags & TerminalFlag.Deposit) === 0)
          return yield* new TerminalNotAllowed({ message: `token_network: terminal ${terminalId} takes no deposits` })
        if (terminal.walletGroups.length > 0 && !terminal.walletGroups.includes(wallet.walletGroup))
          return yield* new TerminalNotAllowed({
            message: `token_network: terminal ${terminalId} is not open to wallet group ${wallet.walletGroup}`
          })

        if (isDerivedNetwork(network)) {
          const key = keys.keyOf(network)
          if (key === undefined)
            return yield* new AddressesUnavailable({
              message: `token_network: no addresses on network ${networkName(network)} (${xpubEnvName(network)} is not set)`
            })
          if (!fresh) {
            const newest = yield* db(newestDerived(walletId, network))
            if (newest !== undefined) return toOut(newest)
          }
          const outcome = yield* db(
            allocateDerived({
              walletId,
              typeNetwork: network,
              purpose: 0,
              maxCount: wallet.maxAddrCount,
              reuseNewest: !fresh,
              tick: ticks.next(),
              addressAt: (index) => {
                const address = deriveAddress(network, key, index)
                return { address, addressKey: addressKey(network, address) }
              }
            })
          )
          if (outcome._tag === "LimitReached")
            return yield* new AddressLimitReached({
              message: `new: the wallet holds ${outcome.count} addresses on ${networkName(network)}, its max_addr_count is ${wallet.maxAddrCount}`
            })
          return toOut(outcome.row)
        }

        // Memo networks: one record per wallet and terminal, whatever `new` says.
        const known = yield* db(memoRecordOf(walletId, terminal.id))
        if (known !== undefined) return toOut(known)
        const hot = terminal.defaultHotAddress
        if (hot === null || hot.trim() === "")
          return yield* new AddressesUnavailable({
            message: `token_network: terminal ${terminalId} has no defaultHotAddress`
          })
        const memo = yield* memoOf(walletId)
        const stored = yield* db(
          insertMemoRecord({
            walletId,
            terminalId: terminal.id,
            typeNetwork: network,
            address: hot,
            addressKey: addressKey(network, hot),
            memo,
            purpose: 0,
            tick: ticks.next()
          })
        )
        if (stored !== undefined) return toOut(stored)
        const raced = yield* db(memoRecordOf(walletId, terminal.id))
        if (raced === undefined) return yield* Effect.die(new Error("memo record vanished"))
        return toOut(raced)
      })

      /** technicalState of derived records on a crypto terminal (C15): sums on it and on its native terminal. */
      const withStates = Effect.fn("Addresses.withStates")(function* (
        terminal: Terminal,
        rows: ReadonlyArray<AddressRecord>
      ) {
        const derived = rows.filter((row) => row.derivationIndex !== null).map((row) => row.addressKey)
        const base =
          terminal.typeContract === ContractType.Base ? undefined : yield* db(baseTerminalOf(terminal.typeNetwork))
        const native =
          terminal.typeContract === ContractType.Base
            ? terminal
            : base === undefined
              ? undefined
              : yield* db(findTerminal(String(base.id)))
        const own = new Map((yield* db(technicalSums(terminal.id, derived))).map((s) => [s.addressKey, s]))
        const nat =
          native === undefined
            ? new Map()
            : native.id === terminal.id
              ? own
              : new Map((yield* db(technicalSums(native.id, derived))).map((s) => [s.addressKey, s]))
        return rows.map((row): AddressOut => {
          if (row.derivationIndex === null) return toOut(row)
          const mine = own.get(row.addressKey)
          const theirs = nat.get(row.addressKey)
          return toOut(row, {
            tokenNetwork: String(terminal.id) as TechnicalState["tokenNetwork"],
            typeNetwork: networkName(terminal.typeNetwork),
            typeContract: contractName(terminal.typeContract),
            currency: terminal.currency ?? "",
            technicalAmount: minorToNumber(mine?.amount ?? 0n, terminal.decimals),
            nativeTokenNetwork: native === undefined ? null : (String(native.id) as TechnicalState["tokenNetwork"]),
            nativeTypeContract: native === undefined ? null : contractName(native.typeContract),
            nativeCurrency: native === undefined ? null : (native.currency ?? ""),
            nativeTechnicalAmount: native === undefined ? null : minorToNumber(theirs?.amount ?? 0n, native.decimals),
            hotApproved: false,
            sourceTransferSupported: sourceTransferSupported(terminal.typeNetwork, terminal.typeContract),
            timetickUpdate: String(mine?.tick ?? 0n),
            nativeTimetickUpdate: native === undefined ? null : String(theirs?.tick ?? 0n)
          })
        })
      })

      const list = Effect.fn("Addresses.list")(function* (
        walletId: string,
        terminalId: string | undefined,
        includeTechnicalState: boolean
      ) {
        if (terminalId === undefined) return (yield* db(walletAddresses(walletId))).map((row) => toOut(row))
        const terminal = yield* requireTerminal(terminalId)
        if (terminal.builtIn || !isCryptoNetwork(terminal.typeNetwork)) return []
        const rows = yield* db(addressesUsableOn(walletId, terminalOf(terminal)))
        return includeTechnicalState ? yield* withStates(terminal, rows) : rows.map((row) => toOut(row))
      })

      const watch = Effect.fn("Addresses.watchList")(function* (terminalId: string, cursor: string, limit: number) {
        const terminal = yield* Effect.mapError(
          requireTerminal(terminalId),
          () => new TerminalNotFound({ message: `tokenNetwork: no terminal ${terminalId}` })
        )
        if (terminal.builtIn || !isCryptoNetwork(terminal.typeNetwork))
          return yield* new NotACryptoTerminal({
            message: `tokenNetwork: terminal ${terminalId} is not on a crypto network`
          })
        const rows = yield* db(watchList(terminalOf(terminal), cursor, limit))
        return { items: rows.map(toWatched), cursor: rows.length === 0 ? cursor : String(rows[rows.length - 1]!.id) }
      })

      return Addresses.of({ create, list, watchList: watch })
    })
  )
}
