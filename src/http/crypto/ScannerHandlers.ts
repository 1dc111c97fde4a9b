import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../../../schema/Api.ts"
import { ok } from "../../../schema/Envelope.ts"
import { CurrentSession } from "../../../schema/Security.ts"
import { Chains } from "../../services/crypto/Chains.ts"
import { Journal } from "../../services/ledger/Journal.ts"

export const ScannerHandlers = HttpApiBuilder.group(
  Api,
  "scanner",
  Effect.fn(function* (handlers) {
    const chains = yield* Chains
    return handlers
      .handle("tx_list_push", ({ payload }) => Effect.flatMap(chains.push(payload), ok))
      .handle("scanner_terminal", ({ query }) => Effect.flatMap(chains.scannerTerminal(String(query.tokenNetwork)), ok))
      .handle("link_address_transactions", ({ payload }) =>
        Effect.flatMap(
          chains.link(payload.map((item) => ({ txId: String(item.txId), walletId: String(item.walletId) }))),
          ok
        )
      )
  })
)

export const PartnerInfoHandlers = HttpApiBuilder.group(
  Api,
  "partnerInfo",
  Effect.fn(function* (handlers) {
    const chains = yield* Chains
    const journal = yield* Journal
    return handlers
      .handle("update_tx_partner_info", ({ payload }) =>
        CurrentSession.use((s) =>
          Effect.gen(function* () {
            yield* chains.sealPartnerInfo(s.walletId, {
              txId: String(payload.txId),
              partnerInfo: payload.partnerInfo,
              description: payload.description ?? null
            })
            return yield* ok(yield* journal.txOfWallet(s.walletId, String(payload.txId)))
          })
        )
      )
      .handle("init_refund", ({ payload }) =>
        CurrentSession.use((s) =>
          Effect.flatMap(chains.initRefund(s.walletId, String(payload.txId)), (out) => ok(out as any))
        )
      )
  })
)
