/**
 * Transfer codes, invoices and escrow (SPEC "Transfer code records", CONTRACT C10, C13). Creation
 * is the code actor's first message: it holds the amount through the creator's wallet actor
 * (types 11, 12) or moves nothing (invoices 13, 14); apply and cancel go to the same actor. A code is a bearer string of 128
 * random bits (plus its creation time with timeLimit); only its hash is stored. By `id`, only a
 * party already bound to the code may act or look (others get 404, as for a missing one).
 */
import { Context, Effect, Layer } from "effect"
import { createHash, randomBytes } from "node:crypto"
import { CodeEntity } from "../../../actors/code/Protocol.ts"
import { type Code, findCodeByHash, findCodeByTx } from "../../../sql/CodeRepo.ts"
import { walletById } from "../../../sql/WalletRepo.ts"
import {
  type ApplyCodeOut,
  type CreateTxCodeIn,
  stateCodeOf,
  stateNameOf,
  type TxCodesOut
} from "../../../schema/Code.ts"
import {
  BalanceNotEnough,
  InvalidAmount,
  InvalidRequest,
  NonceExists,
  RateLimited,
  SameAccounts,
  TooManyDecimals,
  TransactionNotFound,
  TransactionNotPending,
  UnknownCurrency,
  WalletBlocked,
  WalletNotFound,
  WrongSide
} from "../../../schema/Errors.ts"
import { fromMinorUnits } from "../../../schema/Money.ts"
import { asWalletId } from "../../../schema/Ids.ts"
import { sendBlockingFlags } from "../../../schema/Wallet.ts"
import { AppConfigService } from "../../platform/Config.ts"
import { makeDb } from "../../platform/db/Sql.ts"
import { TimeTicks } from "../../platform/TimeTicks.ts"
import { Currencies } from "../../platform/Currencies.ts"
import { delivered } from "../../platform/Delivery.ts"
import { isRoomCode, Rooms } from "../exchange/Rooms.ts"
import { Tariffs } from "../../platform/Tariffs.ts"

export const newCode = (timeLimit: boolean, now: number): string =>
  "C" + randomBytes(16).toString("base64url") + (timeLimit ? "-" + now.toString(36) : "")
export const hashOfCode = (code: string): Uint8Array => createHash("sha256").update(code, "utf8").digest()

export type CodeError =
  | SameAccounts
  | InvalidAmount
  | InvalidRequest
  | WrongSide
  | TransactionNotPending
  | BalanceNotEnough
  | NonceExists
  | TransactionNotFound
  | UnknownCurrency
  | TooManyDecimals
  | WalletBlocked
  | WalletNotFound
  | RateLimited

export interface CodeRef {
  readonly code?: string | undefined
  readonly id?: string | undefined
}

export class Codes extends Context.Service<
  Codes,
  {
    readonly create: (walletId: string, input: CreateTxCodeIn) => Effect.Effect<TxCodesOut, CodeError>
    readonly apply: (
      walletId: string,
      ref: CodeRef,
      amount: string | undefined,
      clientNonce: string
    ) => Effect.Effect<ApplyCodeOut, CodeError>
    readonly cancel: (walletId: string, ref: CodeRef) => Effect.Effect<{ txId: string; idUpdate: string }, CodeError>
    /** The code record behind a reference, if the caller may see it. */
    readonly find: (walletId: string, ref: CodeRef) => Effect.Effect<Code | undefined>
    /** Whether a transaction id names a code at all (whoever may see it). */
    readonly isCode: (txId: string) => Effect.Effect<boolean>
    readonly toOut: (row: Code, walletId: string, code: string | null) => TxCodesOut
  }
>()("core/Codes") {
  static readonly layer = Layer.effect(
    Codes,
    Effect.gen(function* () {
      const db = yield* makeDb
      const ticks = yield* TimeTicks
      const currencies = yield* Currencies
      const tariffs = yield* Tariffs
      const codeActor = yield* CodeEntity.client
      const rooms = yield* Rooms
      const codeTtlMs = (yield* AppConfigService).codeTtlSeconds * 1000

      const toOut = (row: Code, walletId: string, code: string | null): TxCodesOut => {
        const stateCode = stateCodeOf({ typeTx: row.typeTx as 11, txState: row.txState })
        return {
          timetick: String(row.txId),
          code,
          currency: row.currency,
          amount: Number(fromMinorUnits(row.amount, currencies.find(row.currency)?.decimals ?? 0)),
          typeTx: row.typeTx,
          stateCode,
          state: stateNameOf(stateCode),
          isOwner: String(row.creator) === walletId,
          dateTxUTC: row.createdAt.toISOString()
        }
      }

      /** Exactly one of code and id; by id only a bound party sees the code. */
      const resolve = (walletId: string, ref: CodeRef) =>
        Effect.gen(function* () {
          if ((ref.code === undefined) === (ref.id === undefined)) {
            return yield* new InvalidRequest({ message: "query: send exactly one of `code` and `id`" })
          }
          const row =
            ref.code !== undefined ? yield* db(findCodeByHash(hashOfCode(ref.code))) : yield* db(findCodeByTx(ref.id!))
          const bound =
            row !== undefined &&
            (String(row.creator) === walletId || (row.counterparty !== null && String(row.counterparty) === walletId))
          if (row === undefined || (ref.id !== undefined && !bound)) {
            return yield* new TransactionNotFound({
              message: ref.code !== undefined ? "code: no such code" : `id: no code ${ref.id} for this wallet`
            })
          }
          return row
        })

      const create = Effect.fn("Codes.create")(function* (walletId: string, input: CreateTxCodeIn) {
        const wallet = yield* db(walletById(walletId))
        if (wallet === undefined)
          return yield* new WalletNotFound({ message: "sid: the session's wallet no longer exists" })
        if ((wallet.flags & sendBlockingFlags) !== 0) {
          return yield* new WalletBlocked({ message: "wallet: blocked (WalletBlock, InnerTransferBlock or Deleted)" })
        }
        const currency = yield* currencies.require(input.currency, "currency")
        const amount = yield* currencies.toMinor(input.amount, currency, "amount")
        const quote = yield* tariffs.resolve({
          txClass: "InnerTransfer",
          currency: currency.code,
          decimals: currency.decimals,
          amount,
          walletGroup: wallet.walletGroup,
          typeTx: input.typeTx
        })
        if (quote.fee >= amount) return yield* new InvalidAmount({ message: "amount: must be greater than the fee" })
        const now = Date.now()
        const code = newCode(input.timeLimit === true, now)
        const txId = ticks.next()
        yield* delivered(
          codeActor(String(txId)).CreateCode({
            creator: BigInt(walletId),
            typeTx: input.typeTx,
            currency: currency.code,
            amount,
            fee: quote.fee,
            profitWallet: quote.profitWalletId,
            tag: input.tag ?? null,
            codeHash: hashOfCode(code),
            expiresAt: input.timeLimit === true ? new Date(now + codeTtlMs) : null,
            partnerInfo: input.partnerInfo ?? null
          })
        )
        const row = yield* db(findCodeByTx(txId))
        return toOut(row!, walletId, code)
      })

      const apply = Effect.fn("Codes.apply")(function* (
        walletId: string,
        ref: CodeRef,
        amount: string | undefined,
        clientNonce: string
      ) {
        // A room's share code joins the room (SPEC market rule 2); `result` is the room key (C14).
        if (ref.code !== undefined && ref.id === undefined && isRoomCode(ref.code)) {
          const roomKey = yield* rooms.join(walletId, ref.code)
          if (roomKey === undefined) return yield* new TransactionNotFound({ message: "code: no such open room" })
          return { confirmationStatusCode: "Confirmed" as const, txId: roomKey, result: roomKey }
        }
        const row = yield* resolve(walletId, ref)
        if (row.kind === "room") {
          return {
            confirmationStatusCode: "Confirmed" as const,
            txId: String(row.txId),
            result: String(row.roomKey ?? 0n)
          }
        }
        const currency = yield* currencies.require(row.currency, "currency")
        const amountMinor = amount === undefined ? null : yield* currencies.toMinor(amount, currency, "amount")
        const outcome = yield* delivered(
          codeActor(String(row.txId)).ApplyCode({
            by: asWalletId(walletId),
            amount: amountMinor,
            clientNonce: BigInt(clientNonce)
          })
        )
        const stateCode = stateCodeOf({ typeTx: row.typeTx as 11, txState: outcome.txState })
        return {
          confirmationStatusCode: outcome.confirmationStatusCode,
          txId: String(row.txId),
          result: stateNameOf(stateCode)
        }
      })

      const cancel = Effect.fn("Codes.cancel")(function* (walletId: string, ref: CodeRef) {
        const row = yield* resolve(walletId, ref)
        if (row.kind === "room") return yield* new WrongSide({ message: "code: a room code is closed with its room" })
        yield* delivered(codeActor(String(row.txId)).CancelCode({ by: asWalletId(walletId) }))
        const after = yield* db(findCodeByTx(row.txId))
        return { txId: String(row.txId), idUpdate: String(after?.idUpdate ?? "") }
      })

      return Codes.of({
        create: create as any,
        apply: apply as any,
        cancel: cancel as any,
        find: (walletId, ref) =>
          Effect.match(resolve(walletId, ref), { onFailure: () => undefined, onSuccess: (row) => row }),
        isCode: (txId) => Effect.map(db(findCodeByTx(txId)), (row) => row !== undefined),
        toOut
      })
    })
  )
}
