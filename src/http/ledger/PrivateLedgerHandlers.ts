import { Effect } from "effect"
import { HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../../../schema/Api.ts"
import { ok, okCursor, RequestId } from "../../../schema/Envelope.ts"
import { DebtCharges } from "../../services/wallets/DebtCharges.ts"
import { Feeds, longPollDefaultSeconds, longPollMaxSeconds } from "../../services/ledger/Feeds.ts"
import { Journal } from "../../services/ledger/Journal.ts"
import { Transfers } from "../../services/wallets/Transfers.ts"

export const journalLimitMax = 1000

export const PrivateLedgerHandlers = HttpApiBuilder.group(
  Api,
  "privateLedger",
  Effect.fn(function* (handlers) {
    const journal = yield* Journal
    const feeds = yield* Feeds
    const transfers = yield* Transfers
    const debts = yield* DebtCharges
    return handlers
      .handle("transact_get", ({ query }) => Effect.flatMap(journal.tx(query.timetick), ok))
      .handle("list_last_updated_txs", ({ payload }) =>
        Effect.flatMap(
          journal.journal({
            since: payload.since ?? "0",
            limit: Math.min(journalLimitMax, Math.max(1, Math.trunc(payload.limit ?? 100))),
            scope: payload.scope ?? 0,
            intern: payload.intern ?? null,
            networks: payload.networks ?? [],
            tokenNetworks: payload.tokenNetworks ?? []
          }),
          (page) => okCursor(page.rows, page.cursor)
        )
      )
      .handle("wait_cursor", ({ query }) =>
        Effect.gen(function* () {
          const seconds = Math.min(query.timeout ?? longPollDefaultSeconds, longPollMaxSeconds)
          const { moved, watermark } = yield* feeds.waitBeyond("journal", BigInt(query.cursor ?? "0"), seconds * 1000)
          const id = yield* RequestId.useSync((n) => n)
          return HttpServerResponse.jsonUnsafe(
            { result: { moved }, error: null, id, cursor: String(watermark) },
            { status: moved ? 200 : 202 }
          )
        })
      )
      .handle("events", ({ query }) =>
        Effect.flatMap(journal.events(query.cursor ?? "0", query.limit ?? 100), (page) =>
          okCursor(page.rows as any, page.cursor)
        )
      )
      .handle("register_key", ({ payload }) =>
        Effect.flatMap(transfers.registerKey(payload.walletId, payload.publicKey), () => ok({ registered: true }))
      )
      .handle("create_debt_charge", ({ payload }) =>
        Effect.flatMap(debts.charge(payload), (result) => ok({ ...result, txId: result.txId as any }))
      )
  })
)
