/** Handlers of the areas whose full capability arrives with later issues: market rates, investments' reads, merchant feed, gate terminals. */
import { BigNumber } from "bignumber.js"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../../../schema/Api.ts"
import type { InvestmentOut } from "../../../schema/api/InvestApi.ts"
import { appPaymentsPageMax } from "../../../schema/api/PayordersApi.ts"
import { ok, okCursor } from "../../../schema/Envelope.ts"
import { FieldRuleViolated, NotFound } from "../../../schema/Errors.ts"
import { fromMinorUnits } from "../../../schema/Money.ts"
import { TerminalFlag } from "../../../schema/Reference.ts"
import { CurrentApp, CurrentSession } from "../../../schema/Security.ts"
import { appPayments, findInvestment, type InvestmentRow, investmentsOf, journalWatermark } from "../../../sql/LedgerRepo.ts"
import { makeDb } from "../../platform/db/Sql.ts"
import { Currencies } from "../../platform/Currencies.ts"
import { crossRate, Rates } from "../../services/Rates.ts"
import { Tariffs } from "../../platform/Tariffs.ts"
import { Terminals } from "../../services/Terminals.ts"
import { rateOut } from "./PrivateHandlers.ts"

const txStateNames: Record<number, string> = { 1: "Created", 2: "Confirmed", 3: "Created|Confirmed", 4: "Predicted", 8: "Finished", 16: "Canceled" }

const DAY_MS = 86_400_000
const investmentTypes: Record<string, number> = { None: 0, interest_on_balance: 1 }

export const InvestHandlers = HttpApiBuilder.group(Api, "invest", Effect.fn(function*(handlers) {
  const db = yield* makeDb
  const currencies = yield* Currencies
  const toOut = (row: InvestmentRow): InvestmentOut => {
    const decimals = currencies.find(row.currency)?.decimals ?? 0
    return {
      timetick: String(row.timetick), walletId: String(row.wallet_id) as InvestmentOut["walletId"], currencyId: row.currency,
      investmentType: Number(row.investment_type), state: Number(row.state), flags: Number(row.flags),
      amount: Number(fromMinorUnits(BigInt(row.amount), decimals)), profit: Number(fromMinorUnits(BigInt(row.profit), decimals)),
      ratePct: row.rate_pct, dateEnd: row.date_end.toISOString(), tag: row.tag
    }
  }
  return handlers
    .handle("get_investments", ({ query }) =>
      Effect.gen(function*() {
        const session = yield* CurrentSession
        const end = query.end !== undefined ? new Date(`${query.end}T00:00:00Z`).getTime() + DAY_MS : Date.now() + DAY_MS
        const start = query.start !== undefined ? new Date(`${query.start}T00:00:00Z`).getTime() : end - 366 * DAY_MS
        if (!(start < end) || end - start > 3660 * DAY_MS) {
          return yield* new FieldRuleViolated({ message: "start/end: start must be before end, at most ten years apart" })
        }
        const types = query.investment_types?.map((name) => investmentTypes[name])
        const rows = yield* db(investmentsOf(session.walletId, new Date(start), new Date(end), types))
        return yield* ok(rows.map(toOut))
      }))
    .handle("get_investment_info", ({ query }) =>
      Effect.gen(function*() {
        const session = yield* CurrentSession
        const row = yield* db(findInvestment(query.investment_id))
        // Another wallet's investment is reported as missing: existence must not leak.
        if (row === undefined || String(row.wallet_id) !== session.walletId) {
          return yield* new NotFound({ message: `investment_id: no investment ${query.investment_id}` })
        }
        return yield* ok(toOut(row))
      }))
}))

export const PayordersHandlers = HttpApiBuilder.group(Api, "payorders", Effect.fn(function*(handlers) {
  const db = yield* makeDb
  const currencies = yield* Currencies
  return handlers.handle("get_app_payments", ({ query }) =>
    Effect.gen(function*() {
      const app = yield* CurrentApp
      const watermark = yield* db(journalWatermark)
      const rows = yield* db(appPayments(app.appId, query.cursor ?? "0", appPaymentsPageMax))
      const cursor = rows.length === appPaymentsPageMax ? String(rows[rows.length - 1].id_update) : String(rows.length > 0 ? rows[rows.length - 1].id_update : (BigInt(query.cursor ?? "0") > watermark ? BigInt(query.cursor ?? "0") : watermark))
      return yield* okCursor(rows.map((row) => {
        const decimals = currencies.find(row.currency)?.decimals ?? 0
        return {
          id: String(row.id), idUpdate: String(row.id_update), typeTx: Number(row.type_tx), txState: Number(row.tx_state),
          state: txStateNames[Number(row.tx_state)] ?? "Unknown", currency: row.currency,
          amount: Number(fromMinorUnits(BigInt(row.amount), decimals)), fee: Number(fromMinorUnits(BigInt(row.fee), decimals)),
          tag: row.tag, dateTxUTC: row.created_at.toISOString()
        }
      }), cursor)
    }))
}))

export const PaymentHandlers = HttpApiBuilder.group(Api, "payment", Effect.fn(function*(handlers) {
  const terminals = yield* Terminals
  const tariffs = yield* Tariffs
  const currencies = yield* Currencies
  return handlers.handle("get_terminals", ({ query }) =>
    Effect.gen(function*() {
      const rows = (yield* terminals.all()).filter((row) => !row.built_in && (Number(row.flags) & TerminalFlag.Hidden) === 0 && (Number(row.flags) & TerminalFlag.Deposit) !== 0)
      const rules = yield* tariffs.list()
      return yield* ok(rows.map((row) => {
        const rule = rules.find((r) => r.tx_class === "Payment" && r.currency === row.currency && r.wallet_group === null)
        const decimals = currencies.find(row.currency ?? "")?.decimals ?? 0
        const num = (text: string | null) => (text === null ? null : Number(new BigNumber(text).decimalPlaces(decimals).toFixed()))
        return {
          id: String(row.id) as any,
          displayName: row.display_name ?? row.currency ?? "",
          iconCode: row.icon_code,
          currency: row.currency ?? "",
          typeNetwork: Number(row.type_network),
          feeFixed: num(rule?.fee_fixed ?? "0") ?? 0,
          feePercent: Number(rule?.fee_percent ?? 0),
          minAmount: num(rule?.min_amount ?? null),
          maxAmount: num(rule?.max_amount ?? null),
          available: true,
          sameAsOrderCurrency: query.currency !== undefined && query.currency === row.currency,
          requiresAuth: false
        }
      }))
    }))
}))
