/** Federation actions (CONTRACT C18): thin calls into Partners and FederationOrders. */
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../../../schema/Api.ts"
import { ok } from "../../../schema/Envelope.ts"
import { CurrentSession } from "../../../schema/Security.ts"
import { FederationOrders } from "../../services/federation/FederationOrders.ts"
import { Partners } from "../../services/federation/Partners.ts"
import { PartnerTransfers } from "../../services/federation/PartnerTransfers.ts"
import { twoStep } from "../general/TwoStep.ts"

export const FederationWalletHandlers = HttpApiBuilder.group(
  Api,
  "federationWallet",
  Effect.fn(function* (handlers) {
    const partners = yield* Partners
    const orders = yield* FederationOrders
    const transfers = yield* PartnerTransfers
    return handlers
      .handle("create_partner_transfer", ({ payload, query, headers }) =>
        CurrentSession.use((s) =>
          Effect.flatMap(
            twoStep(s, { query, headers }, (sender) => transfers.begin(sender, payload), transfers.confirm),
            ok
          )
        )
      )
      .handle("cancel_partner_transfer", ({ query }) =>
        CurrentSession.use((s) => Effect.flatMap(transfers.cancel(s.walletId, String(query.id)), ok))
      )
      .handle("get_federation_partners", () => Effect.flatMap(partners.list(), ok))
      .handle("create_partner_order", ({ payload }) =>
        CurrentSession.use((s) => Effect.flatMap(orders.create(s, payload), ok))
      )
  })
)

export const PrivateFederationHandlers = HttpApiBuilder.group(
  Api,
  "privateFederation",
  Effect.fn(function* (handlers) {
    const partners = yield* Partners
    const orders = yield* FederationOrders
    return handlers
      .handle("add_federation_partner", ({ payload }) => Effect.flatMap(partners.add(payload), ok))
      .handle("federation_credit", ({ payload }) => Effect.flatMap(orders.credit(payload), ok))
  })
)
