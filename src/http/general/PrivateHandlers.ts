import { Effect, Option } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../../../schema/Api.ts"
import { ok } from "../../../schema/Envelope.ts"
import { FieldRuleViolated, RateNotFound } from "../../../schema/Errors.ts"
import type { CurrencyOut, RateOut } from "../../../schema/Reference.ts"
import type { Tariff } from "../../platform/Tariffs.ts"
import { appId, walletId } from "../../../schema/Ids.ts"
import { AppNotFound } from "../../../schema/PaymentErrors.ts"
import { limits } from "../../platform/Config.ts"
import { Metrics } from "../../platform/monitoring/Metrics.ts"
import { statsOf } from "../../platform/monitoring/MetricsView.ts"
import { ScannerMetrics } from "../../platform/monitoring/ScannerMetrics.ts"
import { Credentials } from "../../services/wallets/Credentials.ts"
import { type Currency, Currencies } from "../../platform/Currencies.ts"
import { LedgerAudit } from "../../services/ledger/LedgerAudit.ts"
import { type Rate, Rates } from "../../services/exchange/Rates.ts"
import { Swaps } from "../../services/exchange/Swaps.ts"
import { Tariffs } from "../../platform/Tariffs.ts"
import { Terminals, toWalletTerminal } from "../../services/crypto/Terminals.ts"
import { Treasury } from "../../services/wallets/Treasury.ts"
import { Wallets } from "../../services/wallets/Wallets.ts"

export const currencyOut = (c: Currency): CurrencyOut => ({
  currency: c.code,
  name: c.name,
  decimals: c.decimals,
  exchangeEnabled: c.exchangeEnabled,
  isBase: c.isBase
})
export const rateOut = (r: Rate): RateOut => ({ from: r.from, to: r.to, rate: r.rate.toFixed(), via: r.via })

export const PrivateHandlers = HttpApiBuilder.group(
  Api,
  "private",
  Effect.fn(function* (handlers) {
    const currencies = yield* Currencies
    const wallets = yield* Wallets
    const credentials = yield* Credentials
    const rates = yield* Rates
    const swaps = yield* Swaps
    const tariffs = yield* Tariffs
    const terminals = yield* Terminals
    const treasury = yield* Treasury
    const metrics = yield* Metrics
    const scanners = yield* ScannerMetrics
    const ledgerAudit = yield* LedgerAudit

    const requireCurrencies = (codes: ReadonlyArray<string>, field: string) =>
      Effect.forEach(codes, (code) => currencies.require(code, field), { discard: true })

    return handlers
      .handle("currencys", () => ok(currencies.all().map(currencyOut)))
      .handle("tokens_networks", () => Effect.flatMap(terminals.all(), (rows) => ok(rows.map(toWalletTerminal))))
      .handle("get_wallets", ({ query }) =>
        Effect.flatMap(
          wallets.list({
            clientId: query.client_id,
            fromId: query.from_id,
            limit: query.limit ?? limits.getWalletsPageMax
          }),
          ok
        )
      )
      .handle("wallet_info_get", ({ query }) => Effect.flatMap(wallets.get(query.wallet_id), ok))
      .handle("get_rate", ({ query }) =>
        Effect.gen(function* () {
          yield* currencies.require(query.from, "from")
          yield* currencies.require(query.to, "to")
          const rate = yield* rates.rate(query.from, query.to)
          if (rate === undefined)
            return yield* new RateNotFound({ message: `from/to: no rate for ${query.from}/${query.to}` })
          return yield* ok(rateOut(rate))
        })
      )
      .handle("get_rates", () => Effect.flatMap(rates.listSet(), (list) => ok(list.map(rateOut))))
      .handle("swap_info", ({ query }) =>
        Effect.flatMap(swaps.info(undefined, query.currency_from, query.currency_to), ok)
      )
      .handle("create_wallet", ({ payload }) => Effect.flatMap(wallets.create(payload), ok))
      .handle("update_wallet", ({ payload }) => Effect.flatMap(wallets.update(payload), ok))
      .handle("create_session", ({ payload }) =>
        Effect.flatMap(
          credentials.createSession(payload.walletId, payload.ttlSeconds ?? limits.sessionTtlSecondsDefault),
          (s) => ok({ sid: s.sid, expiresAt: s.expiresAt.toISOString() })
        )
      )
      .handle("end_session", ({ payload }) =>
        Effect.flatMap(credentials.endSession(payload.sid), (ended) => ok({ ended }))
      )
      .handle("create_app", ({ payload }) => Effect.flatMap(credentials.createApp(payload.walletId, payload.name), ok))
      .handle("rotate_app_key", ({ payload }) =>
        Effect.flatMap(credentials.rotateAppKey(String(payload.appId)), (pkey) =>
          Option.isNone(pkey)
            ? Effect.fail(new AppNotFound({ message: `appId: no app ${payload.appId}` }))
            : ok({ appId: appId(String(payload.appId)), pkey: pkey.value })
        )
      )
      .handle("set_app_enabled", ({ payload }) =>
        Effect.flatMap(credentials.setAppEnabled(String(payload.appId), payload.enabled), (found) =>
          found
            ? ok({ appId: appId(String(payload.appId)), enabled: payload.enabled })
            : Effect.fail(new AppNotFound({ message: `appId: no app ${payload.appId}` }))
        )
      )
      .handle("set_rates", ({ payload }) =>
        Effect.gen(function* () {
          for (const [index, rate] of payload.entries()) {
            yield* currencies.require(rate.from, `[${index}].from`)
            yield* currencies.require(rate.to, `[${index}].to`)
            if (rate.from === rate.to)
              return yield* new FieldRuleViolated({ message: `[${index}]: from and to must differ` })
          }
          return yield* ok({ updated: yield* rates.setRates(payload) })
        })
      )
      .handle("set_tariffs", ({ payload }) =>
        Effect.gen(function* () {
          yield* requireCurrencies(
            payload.map((rule) => rule.currency),
            "currency"
          )
          const rows: Array<Tariff> = payload.map((rule) => ({
            txClass: rule.txClass,
            currency: rule.currency,
            walletGroup: rule.walletGroup ?? null,
            typeTx: rule.typeTx ?? null,
            feeFixed: rule.feeFixed,
            feePercent: rule.feePercent,
            minAmount: rule.minAmount ?? null,
            maxAmount: rule.maxAmount ?? null,
            profitWalletId:
              rule.profitWalletId === undefined || rule.profitWalletId === null ? null : BigInt(rule.profitWalletId)
          }))
          for (const row of rows) {
            if (row.profitWalletId !== null && row.profitWalletId > 0n) yield* wallets.get(walletId(row.profitWalletId))
          }
          return yield* ok({ rules: yield* tariffs.replace(rows) })
        })
      )
      .handle("get_tariffs", () =>
        Effect.flatMap(tariffs.list(), (rows) =>
          ok(
            rows.map((r) => ({
              txClass: r.txClass as any,
              currency: r.currency,
              walletGroup: r.walletGroup,
              typeTx: r.typeTx,
              feeFixed: r.feeFixed,
              feePercent: r.feePercent,
              minAmount: r.minAmount,
              maxAmount: r.maxAmount,
              profitWalletId: r.profitWalletId === null ? null : (String(r.profitWalletId) as any)
            }))
          )
        )
      )
      .handle("execute_transactions", ({ payload }) => Effect.flatMap(treasury.execute(payload), ok))
      .handle("ledger_audit", () => Effect.flatMap(ledgerAudit.audit(), ok))
      .handle("add_network", ({ payload }) => Effect.flatMap(terminals.add(payload), ok))
      .handle("update_network", ({ payload }) => Effect.flatMap(terminals.update(payload), ok))
      .handle("monitoring_stats", () =>
        Effect.flatMap(metrics.refresh, () => ok(statsOf(metrics, scanners.latest()) as unknown))
      )
  })
)
