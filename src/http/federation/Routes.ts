/** Federation (C18): the partner-facing wallet area and the operator's; the inbound webhook route is FederationWebhookRoute. */
import { Layer } from "effect"
import { FederationWalletHandlers, PrivateFederationHandlers } from "./FederationHandlers.ts"

export const FederationRoutes = Layer.mergeAll(FederationWalletHandlers, PrivateFederationHandlers)
