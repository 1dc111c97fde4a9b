/**
 * Federation reconciliation (CONTRACT C18 "Reconciliation"): every FEDERATION_RECONCILE_SECONDS (0 = off)
 * the partner orders still Created and the partner transfers in txState 3 are read back on their partner
 * and applied as the webhook would (the same conditional transitions, so exactly once whichever comes
 * first). A ClusterCron, as src/services/PaymentExpiry.ts: one run per cluster per beat, durable across
 * restarts; a first pass also runs as the layer starts.
 */
import { Cron, Effect, Layer } from "effect"
import { ClusterCron } from "effect/cluster"
import { AppConfigService } from "../../platform/Config.ts"
import { beat } from "../../platform/CronBeat.ts"
import { FederationOrders } from "./FederationOrders.ts"
import { PartnerTransfers } from "./PartnerTransfers.ts"

const reconcile = Effect.gen(function* () {
  const orders = yield* FederationOrders
  const transfers = yield* PartnerTransfers
  yield* orders.reconcile
  yield* transfers.reconcile
})

export const FederationReconcileCron = Layer.unwrap(
  Effect.gen(function* () {
    const config = yield* AppConfigService
    if (config.federationReconcileSeconds === 0) return Layer.empty
    const cron = Cron.parseUnsafe(beat(config.federationReconcileSeconds))
    return Layer.merge(
      ClusterCron.make({ name: "FederationReconcile", cron, execute: Effect.ignoreCause(reconcile) }),
      Layer.effectDiscard(Effect.forkScoped(Effect.ignoreCause(reconcile)))
    )
  })
)
