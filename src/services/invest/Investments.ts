/**
 * Investments (CONTRACT C17): the private actions (create, activate, push profits, read) and the session
 * ones (list, read, return early, invest_tx_info). Each change is the investment actor's
 * (actors/invest/): this service checks requests in C17's order and maps rows to InvestmentOut.
 */
import { createHash } from "node:crypto"
import { Context, Effect, Layer } from "effect"
import { InvestmentEntity } from "../../../actors/invest/Protocol.ts"
import { investStateName, scaledRate } from "../../../actors/invest/Protocol.ts"
import type { InvestmentOut, InvestTxOut } from "../../../schema/api/InvestApi.ts"
import type { CreateInvestmentIn, ProfitItemIn, ProfitItemOut } from "../../../schema/api/PrivateInvestApi.ts"
import {
  BalanceNotEnough,
  codeOf,
  ExternalIdConflict,
  InvalidRequest,
  RateLimited,
  TooManyItems,
  UnknownCurrency,
  WalletBlocked,
  WalletNotFound
} from "../../../schema/Errors.ts"
import {
  EarlyCloseNotAllowed,
  InvestmentAmountZero,
  InvestmentFlagsUnknown,
  InvestmentNotFound,
  InvestmentRateInvalid,
  InvestmentStateConflict,
  InvestmentStateNotAllowed,
  InvestmentTermInvalid,
  InvestmentTypeUnknown,
  ManagedProfitMode,
  TooManyOpenInvestments
} from "../../../schema/InvestErrors.ts"
import { fromMinorUnits } from "../../../schema/Money.ts"
import { WalletFlag } from "../../../schema/Wallet.ts"
import {
  investmentByExternalId,
  type InvestmentRow,
  investmentRow,
  investmentsOfWallet,
  investTxsOf,
  openInvestmentCount
} from "../../../sql/InvestmentRepo.ts"
import { balancesOf } from "../../../sql/LedgerRepo.ts"
import { walletById } from "../../../sql/WalletRepo.ts"
import { AppConfigService } from "../../platform/Config.ts"
import { Currencies } from "../../platform/Currencies.ts"
import { makeDb } from "../../platform/db/Sql.ts"
import { delivered } from "../../platform/Delivery.ts"
import { TimeTicks } from "../../platform/TimeTicks.ts"

export const investmentTypeNames: Record<number, string> = { 0: "None", 1: "interest_on_balance" }
const DAY_MS = 86_400_000
const profitItemsMax = 1000
const txInfoMax = 100

type CreateError =
  | InvalidRequest
  | WalletNotFound
  | WalletBlocked
  | UnknownCurrency
  | InvestmentTypeUnknown
  | InvestmentStateNotAllowed
  | InvestmentFlagsUnknown
  | InvestmentAmountZero
  | InvestmentRateInvalid
  | InvestmentTermInvalid
  | TooManyOpenInvestments
  | BalanceNotEnough
  | ExternalIdConflict
  | RateLimited

type StepError = InvestmentNotFound | InvestmentStateConflict | EarlyCloseNotAllowed

/** X-Owner-Id: 1–64 printable ASCII (C17), else 10001 naming the header. */
export const ownerOf = (header: string | undefined): Effect.Effect<string, InvalidRequest> =>
  header !== undefined && /^[\x20-\x7e]{1,64}$/.test(header)
    ? Effect.succeed(header)
    : Effect.fail(new InvalidRequest({ message: "header X-Owner-Id: required, 1-64 printable ASCII characters" }))

/** Minor units: a JSON integer or a string of digits; anything else 10001 naming the field. */
export const minorOf = (value: string | number, field: string): Effect.Effect<bigint, InvalidRequest> => {
  if (typeof value === "number" && Number.isSafeInteger(value) && value >= 0) return Effect.succeed(BigInt(value))
  if (typeof value === "string" && /^[0-9]{1,30}$/.test(value)) return Effect.succeed(BigInt(value))
  return Effect.fail(
    new InvalidRequest({ message: `${field}: minor units as a non-negative integer or a string of digits` })
  )
}

export class Investments extends Context.Service<
  Investments,
  {
    readonly create: (owner: string, input: CreateInvestmentIn) => Effect.Effect<string, CreateError>
    readonly activate: (owner: string, timetick: string) => Effect.Effect<InvestmentOut, StepError>
    readonly setProfits: (
      owner: string,
      items: ReadonlyArray<ProfitItemIn>
    ) => Effect.Effect<ReadonlyArray<ProfitItemOut>, InvalidRequest | TooManyItems | ManagedProfitMode>
    readonly get: (timetick: string) => Effect.Effect<InvestmentOut, InvestmentNotFound>
    readonly ofWallet: (
      walletId: string,
      start: Date,
      end: Date,
      types: ReadonlyArray<number> | undefined
    ) => Effect.Effect<ReadonlyArray<InvestmentOut>>
    /** An investment of this wallet; another wallet's is reported as missing (existence must not leak). */
    readonly ofWalletById: (walletId: string, investmentId: string) => Effect.Effect<InvestmentOut, InvestmentNotFound>
    readonly returnEarly: (walletId: string, investmentId: string) => Effect.Effect<InvestmentOut, StepError>
    readonly txInfo: (
      walletId: string,
      txIds: ReadonlyArray<string>
    ) => Effect.Effect<ReadonlyArray<InvestTxOut>, InvalidRequest | TooManyItems>
  }
>()("core/Investments") {
  static readonly layer = Layer.effect(
    Investments,
    Effect.gen(function* () {
      const db = yield* makeDb
      const currencies = yield* Currencies
      const config = yield* AppConfigService
      const ticks = yield* TimeTicks
      const actor = yield* InvestmentEntity.client

      const toOut = (row: InvestmentRow, detail: "plain" | "session" | "private"): InvestmentOut => {
        const decimals = currencies.find(row.currency)?.decimals ?? 0
        const iso = (d: Date | null) => (d === null ? null : d.toISOString())
        const out: InvestmentOut = {
          timetick: String(row.timetick),
          walletId: String(row.walletId) as InvestmentOut["walletId"],
          currencyId: row.currency,
          investmentType: row.investmentType,
          investmentTypeName: investmentTypeNames[row.investmentType] ?? "Unknown",
          state: row.state,
          stateName: investStateName(row.state),
          flags: row.flags,
          amount: Number(fromMinorUnits(row.amount, decimals)),
          amountMinor: String(row.amount),
          profit: Number(fromMinorUnits(row.profit, decimals)),
          profitMinor: String(row.profit),
          ratePct: row.ratePct,
          dateEnd: row.dateEnd.toISOString(),
          tag: row.tag,
          createdAt: row.createdAt.toISOString(),
          activatedAt: iso(row.activatedAt),
          closedAt: iso(row.closedAt),
          penaltyMinor: String(row.penalty)
        }
        if (detail === "plain") return out
        const transitions = (JSON.parse(row.transitions) as Array<{ state: number; at: string }>).map((t) => ({
          state: t.state,
          stateName: investStateName(t.state),
          at: t.at
        }))
        return detail === "private" ? { ...out, transitions, ownerId: row.ownerId } : { ...out, transitions }
      }

      const notFound = (id: string) => new InvestmentNotFound({ message: `timetick: no investment ${id}` })
      const read = (id: string, detail: "session" | "private") =>
        Effect.flatMap(db(investmentRow(id)), (row) =>
          row === undefined ? Effect.fail(notFound(id)) : Effect.succeed(toOut(row, detail))
        )

      const bad = (message: string) => new InvalidRequest({ message })

      const create = (owner: string, input: CreateInvestmentIn): Effect.Effect<string, CreateError> =>
        Effect.gen(function* () {
          // 10001: the fields' forms.
          const amount = yield* minorOf(input.amount, "amount")
          const profit = input.profit === undefined ? 0n : yield* minorOf(input.profit, "profit")
          const rateText = plainDecimal(typeof input.ratePct === "number" ? String(input.ratePct) : input.ratePct)
          if (rateText === undefined) return yield* bad("ratePct: a decimal number")
          if (!/^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+(Z|[+-][0-9]{2}:?[0-9]{2})$/.test(input.dateEnd))
            return yield* bad("dateEnd: an ISO 8601 date-time with a zone")
          const dateEnd = new Date(input.dateEnd)
          if (Number.isNaN(dateEnd.getTime())) return yield* bad("dateEnd: an ISO 8601 date-time with a zone")
          // 10030 / 10031
          const wallet = yield* db(walletById(String(input.walletId)))
          if (wallet === undefined)
            return yield* new WalletNotFound({ message: `walletId: no wallet ${input.walletId}` })
          if ((wallet.flags & (WalletFlag.WalletBlock | WalletFlag.Deleted)) !== 0)
            return yield* new WalletBlocked({ message: `walletId: wallet ${input.walletId} is blocked or deleted` })
          // 10020
          if (currencies.find(input.currencyId) === undefined)
            return yield* new UnknownCurrency({ message: `currencyId: unknown currency ${input.currencyId}` })
          if (input.investmentType !== 1)
            return yield* new InvestmentTypeUnknown({ message: "investmentType: only interest_on_balance (1)" })
          if (input.state !== 1 && input.state !== 2)
            return yield* new InvestmentStateNotAllowed({ message: "state: Created (1) or Activated (2)" })
          if (input.flags !== 0 && input.flags !== 1)
            return yield* new InvestmentFlagsUnknown({ message: "flags: 0 or EarlyCloseAllowed (1)" })
          if (amount === 0n) return yield* new InvestmentAmountZero({ message: "amount: must be above 0" })
          const rate = scaledRate(rateText)
          if (rate === undefined || rate > 1000n * 100_000_000n)
            return yield* new InvestmentRateInvalid({ message: "ratePct: in [0, 1000] with at most 8 decimals" })
          const ratePct = normalizeRate(rateText)
          const requestHash = createHash("sha256")
            .update(
              JSON.stringify([
                String(input.walletId),
                input.currencyId,
                input.investmentType,
                input.state,
                input.flags,
                String(amount),
                String(profit),
                ratePct,
                dateEnd.toISOString(),
                input.tag ?? null
              ])
            )
            .digest("hex")
          // externalId: the same body answers the first timetick, another body 10060.
          const replay = (row: InvestmentRow) =>
            row.requestHash === requestHash
              ? Effect.succeed(String(row.timetick))
              : Effect.fail(new ExternalIdConflict({ message: "externalId: already used with another body" }))
          // The replay answers before the checks that depend on the time or on the wallet's figures since
          // (10155 term, 10161 cap, 10002 free): the first request passed them, so its answer stands.
          if (input.externalId !== undefined) {
            const existing = yield* db(investmentByExternalId(input.externalId))
            if (existing !== undefined) return yield* replay(existing)
          }
          const now = Date.now()
          if (
            dateEnd.getTime() < now + config.investMinTermSeconds * 1000 ||
            dateEnd.getTime() > now + config.investMaxTermDays * DAY_MS
          )
            return yield* new InvestmentTermInvalid({
              message: `dateEnd: from now + ${config.investMinTermSeconds} s to now + ${config.investMaxTermDays} days`
            })
          if ((yield* db(openInvestmentCount(String(input.walletId)))) >= config.investMaxOpenPerWallet)
            return yield* new TooManyOpenInvestments({
              message: `walletId: at most ${config.investMaxOpenPerWallet} open investments`
            })
          const balances = yield* db(balancesOf(String(input.walletId)))
          const free = balances.find((b) => b.currency === input.currencyId)?.free ?? 0n
          if (free < amount)
            return yield* new BalanceNotEnough({ message: `amount: the wallet's free ${input.currencyId} is short` })
          const timetick = String(ticks.next())
          const created = yield* delivered(
            actor(timetick).CreateInvestment({
              walletId: BigInt(input.walletId),
              currency: input.currencyId,
              investmentType: input.investmentType,
              state: input.state,
              flags: input.flags,
              amount,
              profit,
              ratePct,
              dateEnd,
              tag: input.tag ?? null,
              ownerId: owner,
              externalId: input.externalId ?? null,
              requestHash
            })
          ).pipe(
            Effect.map(() => timetick),
            Effect.result
          )
          if (created._tag === "Success") return created.success
          const failure = created.failure
          if (failure._tag === "InvestmentStateConflict" && input.externalId !== undefined) {
            // Another request with this externalId won the unique index: answer as its replay.
            const first = yield* db(investmentByExternalId(input.externalId))
            if (first !== undefined) return yield* replay(first)
          }
          if (failure._tag === "InvestmentStateConflict") return yield* Effect.die(failure)
          return yield* Effect.fail(failure)
        })

      const stepError = <A>(effect: Effect.Effect<A, any>): Effect.Effect<A, StepError> =>
        Effect.catchIf(
          delivered(effect),
          (e: any) => e?._tag === "RateLimited" || e?._tag === "ProfitBelowCredited",
          (e) => Effect.die(e)
        ) as any

      const pushOne = (item: ProfitItemIn): Effect.Effect<ProfitItemOut> =>
        Effect.gen(function* () {
          const timetick = String(item.timetick)
          const profit = yield* minorOf(item.profit, "profit")
          return yield* delivered(actor(timetick).PushProfit({ profit })).pipe(
            Effect.map((r) => ({ timetick, ...r, error: null }))
          )
        }).pipe(
          Effect.catch((e: any) =>
            Effect.succeed({
              timetick: String(item.timetick),
              profitMinor: null,
              creditedMinor: "0",
              txId: null,
              error: { code: codeOf(e._tag) ?? 10500, message: String(e.message) }
            })
          )
        )

      return Investments.of({
        create,
        activate: (_owner, timetick) =>
          Effect.flatMap(stepError(actor(timetick).ActivateInvestment({})), () => read(timetick, "private")),
        setProfits: (_owner, items) =>
          Effect.gen(function* () {
            if (items.length === 0) return yield* bad("body: 1 to 1000 entries")
            if (items.length > profitItemsMax)
              return yield* new TooManyItems({ message: `body: at most ${profitItemsMax} entries` })
            if (config.investProfitMode === "managed")
              return yield* new ManagedProfitMode({
                message: "INVEST_PROFIT_MODE=managed: the service accrues profits; nothing is pushed"
              })
            // A malformed profit refuses the whole request (10001 naming the entry), before anything moves.
            for (const [i, item] of items.entries()) yield* minorOf(item.profit, `[${i}].profit`)
            return yield* Effect.forEach(items, pushOne)
          }),
        get: (timetick) => read(timetick, "private"),
        ofWallet: (walletId, start, end, types) =>
          Effect.map(db(investmentsOfWallet(walletId, start, end, types)), (rows) =>
            rows.map((row) => toOut(row, "plain"))
          ),
        ofWalletById: (walletId, investmentId) =>
          Effect.flatMap(db(investmentRow(investmentId)), (row) =>
            row === undefined || String(row.walletId) !== walletId
              ? Effect.fail(new InvestmentNotFound({ message: `investment_id: no investment ${investmentId}` }))
              : Effect.succeed(toOut(row, "session"))
          ),
        returnEarly: (walletId, investmentId) =>
          Effect.gen(function* () {
            const row = yield* db(investmentRow(investmentId))
            if (row === undefined || String(row.walletId) !== walletId)
              return yield* new InvestmentNotFound({ message: `investment: no investment ${investmentId}` })
            yield* stepError(actor(investmentId).ReturnInvestment({}))
            return yield* read(investmentId, "session")
          }),
        txInfo: (walletId, txIds) =>
          Effect.gen(function* () {
            if (txIds.length > txInfoMax) return yield* new TooManyItems({ message: `body: at most ${txInfoMax} ids` })
            for (const [i, id] of txIds.entries())
              if (!/^[0-9]{1,19}$/.test(id) || BigInt(id) > 9223372036854775807n)
                return yield* bad(`[${i}]: a transaction id (a decimal int64)`)
            if (txIds.length === 0) return []
            const rows = yield* db(investTxsOf(walletId, txIds))
            const byId = new Map(rows.map((r) => [String(r.id), r]))
            const out: Array<InvestTxOut> = []
            for (const id of txIds) {
              const tx = byId.get(String(BigInt(id)))
              if (tx === undefined) continue
              const inv = yield* db(investmentRow(String(tx.investmentId)))
              if (inv === undefined) continue
              const decimals = currencies.find(tx.currency)?.decimals ?? 0
              out.push({
                txId: String(tx.id),
                typeTx: tx.typeTx,
                txState: tx.txState,
                investmentId: String(tx.investmentId),
                currency: tx.currency,
                amount: Number(fromMinorUnits(tx.amount, decimals)),
                amountMinor: String(tx.amount),
                fee: Number(fromMinorUnits(tx.fee, decimals)),
                feeMinor: String(tx.fee),
                dateTxUTC: tx.createdAt.toISOString(),
                investment: toOut(inv, "session")
              })
            }
            return out
          })
      })
    })
  )
}

/**
 * ratePct's text as a plain decimal: "12.5" as is; an exponent form ("1e-2", "1.25E+1", or a JSON number
 * that JavaScript prints so, 1e-7) written out exactly; undefined when it is no decimal number at all.
 */
export const plainDecimal = (text: string): string | undefined => {
  if (/^-?[0-9]+(\.[0-9]+)?$/.test(text)) return text
  const match = /^(-?)([0-9]+)(?:\.([0-9]+))?[eE]([+-]?[0-9]{1,4})$/.exec(text)
  if (match === null) return undefined
  const [, sign, whole, fraction = "", exponentText] = match
  const digits = whole! + fraction
  const point = whole!.length + Number(exponentText)
  const padded = point <= 0 ? "0".repeat(1 - point) + digits : digits.padEnd(point, "0")
  const at = Math.max(point, 1)
  const intPart = padded.slice(0, at).replace(/^0+(?=[0-9])/, "")
  const fracPart = padded.slice(at).replace(/0+$/, "")
  return `${sign}${intPart}${fracPart.length > 0 ? "." + fracPart : ""}`
}

/** ratePct as stored and answered: no leading zeros, no trailing fraction zeros ("5.50" → "5.5"). */
const normalizeRate = (text: string): string => {
  const [whole, fraction = ""] = text.split(".")
  const w = whole!.replace(/^0+(?=[0-9])/, "")
  const f = fraction.replace(/0+$/, "")
  return f.length > 0 ? `${w}.${f}` : w
}
