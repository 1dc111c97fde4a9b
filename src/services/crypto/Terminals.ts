/**
 * Terminals: add_network (every field authoritative, one Base terminal per network) and
 * update_network with SPEC's preservation rules; the curated wallet view (WalletTerminalOut).
 */
import { Context, Effect, Layer } from "effect"
import {
  allTerminals,
  baseTerminalOf,
  findTerminal,
  insertTerminal,
  type Terminal,
  updateTerminal
} from "../../../sql/ReferenceRepo.ts"
import { walletById } from "../../../sql/WalletRepo.ts"
import {
  BaseTerminalExists,
  FieldRuleViolated,
  TerminalNotFound,
  TerminalReadOnly,
  UnknownCurrency,
  WalletNotFound
} from "../../../schema/Errors.ts"
import {
  confirmationsDefault,
  ContractType,
  type TerminalAdminOut,
  type TerminalCreateIn,
  TerminalFlag,
  type TerminalUpdateIn,
  type WalletTerminalOut
} from "../../../schema/Reference.ts"
import { isUniqueViolation } from "../../../sql/SqlState.ts"
import { makeDb } from "../../platform/db/Sql.ts"
import { Currencies } from "../../platform/Currencies.ts"

export const toAdmin = (row: Terminal): TerminalAdminOut => ({
  id: String(row.id) as TerminalAdminOut["id"],
  typeNetwork: row.typeNetwork,
  typeContract: row.typeContract,
  currencyId: row.currency ?? "*",
  decimals: row.decimals,
  addressContract: row.addressContract,
  name: row.name,
  tag: row.tag,
  priority: row.priority,
  networkFee: row.networkFee,
  displayName: row.displayName,
  iconCode: row.iconCode,
  flags: row.flags,
  defaultHotAddress: row.defaultHotAddress,
  defaultSystemWalletId:
    row.defaultSystemWalletId === null ? null : (String(row.defaultSystemWalletId) as TerminalAdminOut["id"] as any),
  walletGroups: [...row.walletGroups],
  lastBlock: row.lastBlock === null ? null : String(row.lastBlock),
  confirmations: row.confirmations,
  requirePartnerInfo: (row.flags & TerminalFlag.RequirePartnerInfo) !== 0
})

export const toWalletTerminal = (row: Terminal): WalletTerminalOut => ({
  id: String(row.id) as WalletTerminalOut["id"],
  typeNetwork: row.typeNetwork,
  typeContract: row.typeContract,
  currency: row.currency ?? "*",
  decimals: row.decimals,
  displayName: row.displayName ?? row.currency ?? "",
  iconCode: row.iconCode,
  networkFee: row.networkFee,
  priority: row.priority ?? 0,
  canDeposit: (row.flags & TerminalFlag.Deposit) !== 0,
  canWithdraw: (row.flags & TerminalFlag.Withdraw) !== 0,
  confirmations: row.confirmations,
  requirePartnerInfo: (row.flags & TerminalFlag.RequirePartnerInfo) !== 0
})

/** null keeps; "" or 0 clears (stored as NULL); anything else is written. */
const nullable = <A extends string | number>(value: A | null | undefined) =>
  value === null || value === undefined
    ? { keep: true as const }
    : { keep: false as const, value: value === "" || value === 0 ? null : value }

/** A decimal attribute arrives as text (a JSON 0 becomes "0"): any zero ("0", "0.00") clears it like "" does. */
const nullableDecimal = (value: string | null | undefined) =>
  nullable(value !== null && value !== undefined && /^0*(\.0*)?$/.test(value) ? "" : value)

export class Terminals extends Context.Service<
  Terminals,
  {
    readonly add: (
      input: TerminalCreateIn
    ) => Effect.Effect<TerminalAdminOut, UnknownCurrency | BaseTerminalExists | FieldRuleViolated | WalletNotFound>
    readonly update: (
      input: TerminalUpdateIn
    ) => Effect.Effect<TerminalAdminOut, TerminalNotFound | TerminalReadOnly | WalletNotFound>
    readonly all: () => Effect.Effect<ReadonlyArray<Terminal>>
    /** Deposit/withdraw terminals a wallet of this group may use (empty walletGroups = every group). */
    readonly forWallet: (walletGroup: number | undefined) => Effect.Effect<ReadonlyArray<WalletTerminalOut>>
  }
>()("core/Terminals") {
  static readonly layer = Layer.effect(
    Terminals,
    Effect.gen(function* () {
      const db = yield* makeDb
      const currencies = yield* Currencies

      const requireSystemWallet = (id: string | null) =>
        id === null
          ? Effect.void
          : Effect.flatMap(db(walletById(id)), (row) =>
              row === undefined
                ? Effect.fail(new WalletNotFound({ message: `defaultSystemWalletId: no wallet ${id}` }))
                : Effect.void
            )

      const add = Effect.fn("Terminals.add")(function* (input: TerminalCreateIn) {
        const currency = yield* currencies.require(input.currencyId, "currencyId")
        if (input.decimals !== currency.decimals) {
          return yield* new FieldRuleViolated({
            message: `decimals: ${currency.code} has ${currency.decimals} decimals`
          })
        }
        yield* requireSystemWallet(input.defaultSystemWalletId)
        if (input.typeContract === ContractType.Base && (yield* db(baseTerminalOf(input.typeNetwork))) !== undefined) {
          return yield* new BaseTerminalExists({
            message: `typeNetwork: network ${input.typeNetwork} already has its Base terminal`
          })
        }
        const row = yield* db(
          Effect.result(
            insertTerminal({
              typeNetwork: input.typeNetwork,
              typeContract: input.typeContract,
              currency: currency.code,
              decimals: input.decimals,
              addressContract: input.addressContract ?? null,
              name: input.name ?? null,
              tag: input.tag ?? null,
              priority: input.priority ?? null,
              networkFee: input.networkFee ?? null,
              displayName: input.displayName ?? null,
              iconCode: input.iconCode ?? null,
              flags: input.flags,
              defaultHotAddress: input.defaultHotAddress,
              defaultSystemWalletId: input.defaultSystemWalletId,
              walletGroups: input.walletGroups,
              confirmations: input.confirmations ?? confirmationsDefault
            })
          )
        )
        // A concurrent add of the same network's Base terminal loses on the unique index.
        if (row._tag === "Failure") {
          if (!isUniqueViolation(row.failure)) return yield* Effect.die(row.failure)
          return yield* new BaseTerminalExists({
            message: `typeNetwork: network ${input.typeNetwork} already has its Base terminal`
          })
        }
        return toAdmin(row.success)
      })

      const update = Effect.fn("Terminals.update")(function* (input: TerminalUpdateIn) {
        const existing = yield* db(findTerminal(input.id))
        if (existing === undefined) return yield* new TerminalNotFound({ message: `id: no terminal ${input.id}` })
        if (existing.builtIn)
          return yield* new TerminalReadOnly({ message: "id: the built-in internal terminal is read-only" })
        yield* requireSystemWallet(input.defaultSystemWalletId)
        const row = yield* db(
          updateTerminal(input.id, {
            name: nullable(input.name),
            tag: nullable(input.tag),
            priority: nullable(input.priority),
            networkFee: nullableDecimal(input.networkFee),
            displayName: nullable(input.displayName),
            iconCode: nullable(input.iconCode),
            flags: input.flags,
            defaultHotAddress: input.defaultHotAddress,
            defaultSystemWalletId: input.defaultSystemWalletId,
            walletGroups: input.walletGroups,
            confirmations:
              input.confirmations === undefined || input.confirmations === null
                ? null
                : input.confirmations === 0
                  ? confirmationsDefault
                  : input.confirmations
          })
        )
        if (row === undefined) return yield* new TerminalNotFound({ message: `id: no terminal ${input.id}` })
        return toAdmin(row)
      })

      return Terminals.of({
        add,
        update,
        all: () => db(allTerminals),
        forWallet: (walletGroup) =>
          Effect.map(db(allTerminals), (rows) =>
            rows
              .filter((row) => row.builtIn || (row.flags & TerminalFlag.Hidden) === 0)
              .filter((row) => row.builtIn || (row.flags & (TerminalFlag.Deposit | TerminalFlag.Withdraw)) !== 0)
              .filter(
                (row) =>
                  walletGroup === undefined || row.walletGroups.length === 0 || row.walletGroups.includes(walletGroup)
              )
              .map(toWalletTerminal)
          )
      })
    })
  )
}
