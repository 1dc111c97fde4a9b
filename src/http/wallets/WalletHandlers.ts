import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../../../schema/Api.ts"
import { ok, okCursor } from "../../../schema/Envelope.ts"
import { InvalidRequest, TransactionNotFound } from "../../../schema/Errors.ts"
import { CurrentSession } from "../../../schema/Security.ts"
import { historyLimitMax } from "../../../schema/Transfer.ts"
import { Codes } from "../../services/codes/Codes.ts"
import { PartnerTransfers } from "../../services/federation/PartnerTransfers.ts"
import { Journal } from "../../services/ledger/Journal.ts"
import { Transfers } from "../../services/wallets/Transfers.ts"
import { Wallets } from "../../services/wallets/Wallets.ts"
import { Withdrawals } from "../../services/crypto/Withdrawals.ts"
import { SecondFactorGate } from "../../services/wallets/SecondFactorGate.ts"
import { secondFactorCaller, twoStep } from "../general/TwoStep.ts"

/** Exactly one of `code` and `id` (SPEC error rule 1). */
const exactlyOne = (query: { readonly id?: string | undefined; readonly code?: string | undefined }) =>
  (query.id === undefined) === (query.code === undefined)
    ? Effect.fail(new InvalidRequest({ message: "query: send exactly one of `code` and `id`" }))
    : Effect.void

export const WalletHandlers = HttpApiBuilder.group(
  Api,
  "wallet",
  Effect.fn(function* (handlers) {
    const wallets = yield* Wallets
    const transfers = yield* Transfers
    const journal = yield* Journal
    const codes = yield* Codes
    const withdrawals = yield* Withdrawals
    const partnerTransfers = yield* PartnerTransfers
    const gate = yield* SecondFactorGate
    return handlers
      .handle("get_info", () => CurrentSession.use((s) => Effect.flatMap(wallets.withSiblings(s.walletId), ok)))
      .handle("update_settings", ({ payload }) =>
        CurrentSession.use((s) =>
          Effect.flatMap(
            wallets.updateSettings(s.walletId, {
              name: payload.name ?? null,
              sortOrder: payload.sortOrder ?? null,
              isDefault: payload.isDefault ?? null
            }),
            ok
          )
        )
      )
      .handle("get_balance", () => CurrentSession.use((s) => Effect.flatMap(wallets.balances(s.walletId), ok)))
      .handle("set_security", ({ payload, query, headers }) =>
        CurrentSession.use((s) =>
          Effect.flatMap(
            // C19 §4: switching Require2FA off needs the factor it protects; switching it on is one call.
            gate.guard(
              secondFactorCaller(s, { query, headers }),
              { action: "set_security", params: payload, required: payload.require2FA === false },
              wallets.setRequire2FA(s.walletId, payload.require2FA)
            ),
            ok
          )
        )
      )
      .handle("internal_transfer", ({ payload, query, headers }) =>
        CurrentSession.use((s) =>
          Effect.flatMap(
            twoStep(s, { query, headers }, (sender) => transfers.begin(sender, payload), transfers.confirm),
            ok
          )
        )
      )
      .handle("cancel_tx", ({ query }) =>
        CurrentSession.use((s) =>
          Effect.gen(function* () {
            yield* exactlyOne(query)
            // A code (by its string, or an id that names a code) is cancelled by its actor, which answers 404
            // to a caller not bound to it (C10) rather than the transfer path's 10082; else a pending transfer.
            if (query.code !== undefined || (yield* codes.isCode(query.id!)))
              return yield* ok(yield* codes.cancel(s.walletId, query))
            if (yield* withdrawals.isCrypto(query.id!))
              return yield* ok(yield* withdrawals.cancel(s.walletId, query.id!, false))
            // A partner transfer (C18): as cancel_partner_transfer, answering its TxRow; in 3 only its
            // partner can say whether it may still be canceled.
            if (yield* partnerTransfers.owns(s.walletId, String(query.id!)))
              return yield* ok(yield* partnerTransfers.cancel(s.walletId, String(query.id!)))
            return yield* ok(yield* transfers.cancel(s.walletId, query.id!))
          })
        )
      )
      .handle("cancel_withdraw", ({ query }) =>
        CurrentSession.use((s) => Effect.flatMap(withdrawals.cancel(s.walletId, query.id, true), ok))
      )
      .handle("get_tx_info", ({ query }) =>
        CurrentSession.use((s) =>
          Effect.gen(function* () {
            yield* exactlyOne(query)
            const code = yield* codes.find(s.walletId, query)
            if (query.code !== undefined && code === undefined)
              return yield* new TransactionNotFound({ message: "code: no such code" })
            const id = code !== undefined ? String(code.txId) : query.id!
            const row =
              code !== undefined
                ? yield* Effect.map(journal.tx(id), (tx) => tx!)
                : yield* journal.txOfWallet(s.walletId, id)
            if (code === undefined) return yield* ok(row)
            const face = codes.toOut(code, s.walletId, query.code ?? null)
            return yield* ok({
              ...row,
              state: face.state,
              stateCode: face.stateCode,
              timetick: face.timetick,
              code: face.code,
              isOwner: face.isOwner
            })
          })
        )
      )
      .handle("get_tx_list_info", ({ payload }) =>
        CurrentSession.use((s) => Effect.flatMap(journal.txsOfWallet(s.walletId, payload), ok))
      )
      .handle("get_history_transactions", ({ query }) =>
        CurrentSession.use((s) =>
          Effect.flatMap(
            journal.history({
              walletId: s.walletId,
              orderByUpdate: query.orderByUpdate ?? false,
              oldestFirst: query.oldestFirst ?? false,
              startTick: query.startTick,
              endTick: query.endTick,
              currency: query.currency,
              typeTx: query.typeTx,
              activeOnly: query.activeOnly ?? false,
              limit: query.limit ?? 100
            }),
            (page) => okCursor(page.rows, page.cursor)
          )
        )
      )
      .handle("get_profit_transactions", ({ query }) =>
        CurrentSession.use((s) =>
          Effect.flatMap(journal.profit(s.walletId, query.startTick, query.limit ?? historyLimitMax), (page) =>
            okCursor(page.rows, page.cursor)
          )
        )
      )
  })
)
