/** Federation with partner deployments (C18): partners, orders and transfers, the inbound webhook, reconciliation. */
import { Layer } from "effect"
import { FederationOrders } from "./FederationOrders.ts"
import { FederationReconcileCron } from "./FederationReconcile.ts"
import { FederationWebhook } from "./FederationWebhook.ts"
import { Partners } from "./Partners.ts"
import { PartnerTransfers } from "./PartnerTransfers.ts"

export const FederationFeature = Layer.merge(FederationReconcileCron, FederationWebhook.layer).pipe(
  Layer.provideMerge(PartnerTransfers.layer),
  Layer.provideMerge(FederationOrders.layer),
  Layer.provideMerge(Partners.layer)
)
