import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../../../schema/Api.ts"
import { ok } from "../../../schema/Envelope.ts"
import { InvalidRequest } from "../../../schema/Errors.ts"
import { fromMinorUnits } from "../../../schema/Money.ts"
import { TxClass, txClasses } from "../../../schema/Reference.ts"
import { CurrentSession } from "../../../schema/Security.ts"
import { Currencies } from "../../platform/Currencies.ts"
import { Tariffs, txClassOfType } from "../../platform/Tariffs.ts"
import { Terminals } from "../../services/crypto/Terminals.ts"
import { Codes } from "../../services/codes/Codes.ts"
import { MarketData } from "../../services/exchange/MarketData.ts"
import { Recipients } from "../../services/wallets/Recipients.ts"
import { SecondFactorGate } from "../../services/wallets/SecondFactorGate.ts"
import { Wallets } from "../../services/wallets/Wallets.ts"
import { TxType } from "../../../schema/Transfer.ts"
import { currencyOut } from "./PrivateHandlers.ts"
import { secondFactorCaller } from "./TwoStep.ts"

const txClassOf = (txType: string): TxClass | undefined =>
  (txClasses as ReadonlyArray<string>).includes(txType)
    ? (txType as TxClass)
    : /^[0-9]{1,3}$/.test(txType)
      ? txClassOfType(Number(txType))
      : undefined

export const GeneralHandlers = HttpApiBuilder.group(
  Api,
  "general",
  Effect.fn(function* (handlers) {
    const currencies = yield* Currencies
    const terminals = yield* Terminals
    const tariffs = yield* Tariffs
    const wallets = yield* Wallets
    const recipients = yield* Recipients
    const codes = yield* Codes
    const market = yield* MarketData
    const gate = yield* SecondFactorGate
    return handlers
      .handle("tokens_networks", () =>
        Effect.gen(function* () {
          const session = yield* CurrentSession
          const wallet = yield* Effect.orDie(wallets.get(session.walletId))
          return yield* ok(yield* terminals.forWallet(wallet.wallet_group))
        })
      )
      .handle("assets", () => ok(currencies.all().map(currencyOut)))
      .handle("order_tx_info", ({ payload }) =>
        CurrentSession.use((s) => Effect.flatMap(market.orderTxInfo(s.walletId, payload), ok))
      )
      .handle("get_candles", ({ query }) =>
        CurrentSession.use((s) =>
          Effect.flatMap(
            market.candles(s.walletId, {
              from: query.currency_from,
              to: query.currency_to,
              roomKey: query.room_key ?? "0",
              interval: Number(query.interval ?? 3600),
              start: query.start,
              end: query.end
            }),
            ok
          )
        )
      )
      .handle("create_tx_code", ({ payload, query, headers }) =>
        CurrentSession.use((s) =>
          Effect.flatMap(
            // C19 §4: the types that hold the creator's funds (11, 12) take the second factor.
            gate.guard(
              secondFactorCaller(s, { query, headers }),
              { action: "create_tx_code", params: payload, required: payload.typeTx === 11 || payload.typeTx === 12 },
              codes.create(s.walletId, payload)
            ),
            ok
          )
        )
      )
      .handle("apply_code", ({ query, headers }) =>
        CurrentSession.use((s) =>
          Effect.gen(function* () {
            const ref = { code: query.code, id: query.id }
            // C19 §4: applying debits the caller when it pays another's invoice (13, 14).
            const code = yield* codes.find(s.walletId, ref)
            const pays =
              code !== undefined &&
              code.kind === "transfer" &&
              (code.typeTx === 13 || code.typeTx === 14) &&
              String(code.creator) !== s.walletId
            return yield* ok(
              yield* gate.guard(
                secondFactorCaller(s, { query, headers }),
                {
                  action: "apply_code",
                  params: [query.code ?? null, query.id ?? null, query.amount ?? null, query.client_nonce],
                  required: pays
                },
                codes.apply(s.walletId, ref, query.amount, query.client_nonce)
              )
            )
          })
        )
      )
      .handle("cancel_code", ({ query }) =>
        CurrentSession.use((s) => Effect.flatMap(codes.cancel(s.walletId, { code: query.code, id: query.id }), ok))
      )
      .handle("estimate_fee", ({ query }) =>
        Effect.gen(function* () {
          const session = yield* CurrentSession
          let txClass = txClassOf(query.tx_type)
          if (txClass === undefined) {
            return yield* new InvalidRequest({
              message: `tx_type: expected one of ${txClasses.join(", ")} or a numeric typeTx`
            })
          }
          const currency = yield* currencies.require(query.currency, "currency")
          const amount = yield* currencies.toMinor(query.amount, currency, "amount")
          const wallet = yield* Effect.orDie(wallets.get(session.walletId))
          let typeTx = /^[0-9]+$/.test(query.tx_type) ? Number(query.tx_type) : undefined
          // With a recipient, a transfer to another wallet of the same client is priced as a self transfer (SPEC rule 3).
          if (txClass === "InnerTransfer" && query.recipient !== undefined) {
            const recipient = yield* recipients.resolve(query.recipient, wallet.project)
            if (String(recipient.clientId) === wallet.client_id) {
              txClass = "SelfTransfer"
              typeTx = TxType.SelfWalletTransfer
            }
          }
          const quote = yield* tariffs.resolve({
            txClass,
            currency: currency.code,
            decimals: currency.decimals,
            amount,
            walletGroup: wallet.wallet_group,
            typeTx
          })
          return yield* ok({
            txClass,
            currency: currency.code,
            amount: Number(fromMinorUnits(amount, currency.decimals)),
            fee: Number(fromMinorUnits(quote.fee, currency.decimals)),
            feeText: fromMinorUnits(quote.fee, currency.decimals)
          })
        })
      )
  })
)
