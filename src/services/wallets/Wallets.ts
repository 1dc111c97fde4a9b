/**
 * Wallet lifecycle and reads: create_wallet (C3/C12), update_wallet (SPEC write rules: null keeps,
 * client_id and timetick_update ignored, one IsDefault per owner), session settings and security,
 * and balances with their base-currency equivalent.
 */
import { BigNumber } from "bignumber.js"
import { Context, Effect, Layer } from "effect"
import { randomBytes } from "node:crypto"
import { balancesOf } from "../../../sql/LedgerRepo.ts"
import {
  clientHasDefault,
  insertWallet,
  listWallets,
  nextWalletId,
  patchWallet,
  upsertClient,
  type Wallet,
  walletById,
  type WalletPatch,
  walletsOfClient
} from "../../../sql/WalletRepo.ts"
import { FieldRuleViolated, WalletNotFound } from "../../../schema/Errors.ts"
import type { ClientId, WalletId } from "../../../schema/Ids.ts"
import { fromMinorUnits } from "../../../schema/Money.ts"
import { type CreateWalletIn, WalletFlag, type WalletInfo, type WalletInfoIn } from "../../../schema/Wallet.ts"
import { isUniqueViolation } from "../../../sql/SqlState.ts"
import { makeDb } from "../../platform/db/Sql.ts"
import { TimeTicks } from "../../platform/TimeTicks.ts"
import { ChangeNotices } from "../../platform/ChangeNotices.ts"
import { Currencies } from "../../platform/Currencies.ts"
import { crossRate, Rates } from "../exchange/Rates.ts"

export const toWalletInfo = (wallet: Wallet): WalletInfo => ({
  id: String(wallet.id) as WalletInfo["id"],
  client_id: String(wallet.clientId) as WalletInfo["client_id"],
  timetick_update: String(wallet.timetickUpdate),
  flags: wallet.flags,
  wallet_group: wallet.walletGroup,
  project: wallet.project,
  max_addr_count: wallet.maxAddrCount,
  name: wallet.name,
  sort_order: wallet.sortOrder,
  address: wallet.address
})

const newWalletAddress = () => "W" + randomBytes(12).toString("hex").toUpperCase()

export interface BalanceOut {
  readonly currency: string
  readonly freeBalance: number
  readonly lockOutBalance: number
  readonly lockInBalance: number
  readonly lockOrders: number
  readonly userBalance: number
  readonly userBalanceBaseEqu: number | null
}

export class Wallets extends Context.Service<
  Wallets,
  {
    readonly create: (input: CreateWalletIn) => Effect.Effect<WalletInfo, FieldRuleViolated>
    readonly update: (input: WalletInfoIn) => Effect.Effect<WalletInfo, WalletNotFound>
    readonly get: (id: WalletId) => Effect.Effect<WalletInfo, WalletNotFound>
    readonly list: (options: {
      clientId?: ClientId | undefined
      fromId?: WalletId | undefined
      limit: number
    }) => Effect.Effect<ReadonlyArray<WalletInfo>>
    readonly withSiblings: (
      id: WalletId
    ) => Effect.Effect<{ wallet: WalletInfo; siblings: ReadonlyArray<WalletInfo> }, WalletNotFound>
    readonly updateSettings: (
      id: WalletId,
      settings: { name: string | null; sortOrder: number | null; isDefault: boolean | null }
    ) => Effect.Effect<WalletInfo, WalletNotFound>
    readonly setRequire2FA: (id: WalletId, required: boolean) => Effect.Effect<WalletInfo, WalletNotFound>
    readonly balances: (id: WalletId) => Effect.Effect<ReadonlyArray<BalanceOut>>
  }
>()("core/Wallets") {
  static readonly layer = Layer.effect(
    Wallets,
    Effect.gen(function* () {
      const db = yield* makeDb
      const ticks = yield* TimeTicks
      const currencies = yield* Currencies
      const rates = yield* Rates
      const notices = yield* ChangeNotices

      const get = (id: WalletId) =>
        Effect.flatMap(db(walletById(id)), (row) =>
          row === undefined || row.id < 0n
            ? Effect.fail(new WalletNotFound({ message: `wallet ${id} not found` }))
            : Effect.succeed(row)
        )

      // System wallets (negative ids, CONTRACT C6) are not user wallets: update_wallet cannot reach them.
      const patch = (id: WalletId, values: WalletPatch) =>
        BigInt(id) < 0n
          ? Effect.fail(new WalletNotFound({ message: `id: wallet ${id} not found` }))
          : Effect.flatMap(
              Effect.tap(db(patchWallet(id, values, ticks.next())), () =>
                Effect.sync(() => notices.changed("wallets"))
              ),
              (row) =>
                row === undefined
                  ? Effect.fail(new WalletNotFound({ message: `id: wallet ${id} not found` }))
                  : Effect.succeed(toWalletInfo(row))
            )

      const keepAll: WalletPatch = {
        flags: null,
        walletGroup: null,
        project: null,
        maxAddrCount: null,
        name: null,
        sortOrder: null
      }

      const create = Effect.fn("Wallets.create")(function* (input: CreateWalletIn) {
        const client = yield* db(
          Effect.result(
            upsertClient({
              id: input.clientId,
              crmId: input.crmId ?? null,
              phone: input.phone ?? null,
              messengerId: input.messengerId ?? null
            })
          )
        )
        if (client._tag === "Failure") {
          if (!isUniqueViolation(client.failure)) return yield* Effect.die(client.failure)
          return yield* new FieldRuleViolated({ message: "crmId/phone/messengerId: already belongs to another client" })
        }
        const id = yield* db(nextWalletId)
        const insert = (isDefault: boolean) =>
          db(
            insertWallet({
              id,
              clientId: BigInt(input.clientId),
              project: input.project ?? 0,
              walletGroup: input.walletGroup ?? 0,
              flags: isDefault ? WalletFlag.IsDefault : 0,
              name: input.name ?? "",
              sortOrder: 0,
              address: newWalletAddress(),
              timetickUpdate: ticks.next()
            }).pipe(Effect.result)
          )
        const first = !(yield* db(clientHasDefault(input.clientId)))
        let inserted = yield* insert(first)
        // Two first wallets created at once: the unique index keeps one default; the other retries without it.
        if (inserted._tag === "Failure" && first && isUniqueViolation(inserted.failure)) inserted = yield* insert(false)
        if (inserted._tag === "Failure") return yield* Effect.die(inserted.failure)
        return toWalletInfo(inserted.success)
      })

      const update = Effect.fn("Wallets.update")(function* (input: WalletInfoIn) {
        return yield* patch(input.id, {
          flags: input.flags ?? null,
          walletGroup: input.wallet_group ?? null,
          project: input.project ?? null,
          maxAddrCount: input.max_addr_count ?? null,
          name: input.name ?? null,
          sortOrder: input.sort_order ?? null
        })
      })

      const baseEquivalent = (
        currency: string,
        total: bigint,
        decimals: number,
        table: ReadonlyMap<string, BigNumber>
      ) => {
        const base = currencies.base()
        const rate = currency === base.code ? new BigNumber(1) : crossRate(table, currency, base.code)?.rate
        if (rate === undefined) return null
        return Number(
          new BigNumber(fromMinorUnits(total, decimals))
            .times(rate)
            .decimalPlaces(base.decimals, BigNumber.ROUND_HALF_EVEN)
            .toFixed()
        )
      }

      return Wallets.of({
        create,
        update,
        get: (id) => Effect.map(get(id), toWalletInfo),
        list: (options) => Effect.map(db(listWallets(options)), (rows) => rows.map(toWalletInfo)),
        withSiblings: (id) =>
          Effect.gen(function* () {
            const row = yield* get(id)
            const all = yield* db(walletsOfClient(row.clientId))
            return { wallet: toWalletInfo(row), siblings: all.filter((w) => w.id !== row.id).map(toWalletInfo) }
          }),
        updateSettings: (id, settings) =>
          Effect.gen(function* () {
            yield* get(id)
            const bit =
              settings.isDefault === null
                ? {}
                : settings.isDefault
                  ? { flagsSet: WalletFlag.IsDefault }
                  : { flagsClear: WalletFlag.IsDefault }
            return yield* patch(id, { ...keepAll, name: settings.name, sortOrder: settings.sortOrder, ...bit })
          }),
        setRequire2FA: (id, required) =>
          Effect.gen(function* () {
            yield* get(id)
            return yield* patch(id, {
              ...keepAll,
              ...(required ? { flagsSet: WalletFlag.Require2FA } : { flagsClear: WalletFlag.Require2FA })
            })
          }),
        balances: (id) =>
          Effect.gen(function* () {
            const rows = yield* db(balancesOf(id))
            const table = yield* rates.table()
            return rows.map((row): BalanceOut => {
              const decimals = currencies.find(row.currency)?.decimals ?? 0
              const { free, lockOut, lockIn, lockOrders } = row
              const total = free + lockOut + lockIn + lockOrders
              const number = (minor: bigint) => Number(fromMinorUnits(minor, decimals))
              return {
                currency: row.currency,
                freeBalance: number(free),
                lockOutBalance: number(lockOut),
                lockInBalance: number(lockIn),
                lockOrders: number(lockOrders),
                userBalance: number(total),
                userBalanceBaseEqu: baseEquivalent(row.currency, total, decimals, table)
              }
            })
          })
      })
    })
  )
}
