/** Federation actions (CONTRACT C18): thin calls into Partners and FederationOrders. */
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../../../schema/Api.ts"
import { ok } from "../../../schema/Envelope.ts"
import { CurrentSession } from "../../../schema/Security.ts"
import { FederationOrders } from "../../services/federation/FederationOrders.ts"
import { Partners } from "../../services/federation/Partners.ts"

export const FederationWalletHandlers = HttpApiBuilder.group(
  Api,
  "federationWallet",
  Effect.fn(function* (handlers) {
    const partners = yield* Partners
    const orders = yield* FederationOrders
    return handlers
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
