/**
 * Federation reconciliation (CONTRACT C18 "Reconciliation"): every FEDERATION_RECONCILE_SECONDS (0 = off)
 * the partner orders still Created and the partner transfers in txState 3 are read back on their partner
 * and applied as the webhook would (the same conditional transitions, so exactly once whichever comes
 * first). A periodic job (src/platform/PeriodicJob.ts): one run per cluster per beat, the start-up pass
 * (the current beat's) included.
 *
 * A pass goes partner by partner, each through ALL its unsettled links in pages of `page` (by tx_id), so
 * one partner's backlog never hides another's links. A disabled partner is not called at all (its links
 * wait until it is enabled again); a partner that does not answer is left for this pass at its first
 * silence (the next beat tries again); a link whose read-back fails otherwise is skipped, the pass goes on.
 */
import { Effect, Layer, Ref } from "effect"
import { type LinkRow, partnersWithUnsettled, unsettledLinksOf } from "../../../sql/FederationRepo.ts"
import type { PartnerUnavailable } from "../../../schema/Federation.ts"
import { AppConfigService } from "../../platform/Config.ts"
import { periodicJob } from "../../platform/PeriodicJob.ts"
import { makeDb } from "../../platform/db/Sql.ts"
import { FederationOrders } from "./FederationOrders.ts"
import { type Partner, Partners } from "./Partners.ts"
import { PartnerTransfers } from "./PartnerTransfers.ts"

const page = 200

const reconcile = Effect.gen(function* () {
  const db = yield* makeDb
  const partners = yield* Partners
  const orders = yield* FederationOrders
  const transfers = yield* PartnerTransfers
  const byKind: ReadonlyArray<
    readonly [1 | 3, (partner: Partner, link: LinkRow) => Effect.Effect<void, PartnerUnavailable>]
  > = [
    [
      1,
      (partner, link) =>
        orders.readBack(partner, link).pipe(
          Effect.asVoid,
          Effect.catchTag(["PartnerRefused", "PartnerEventMismatch"], () => Effect.void)
        )
    ],
    [3, transfers.reconcileOne]
  ]
  for (const [kind, settle] of byKind) {
    for (const partnerId of yield* db(partnersWithUnsettled(kind))) {
      const partner = yield* partners.find(partnerId)
      if (partner === undefined || !partner.enabled) continue
      const silent = yield* Ref.make(false)
      let after = 0n
      for (;;) {
        const links = yield* db(unsettledLinksOf(kind, partnerId, after, page))
        yield* Effect.forEach(
          links,
          (link) =>
            Effect.gen(function* () {
              if (yield* Ref.get(silent)) return
              yield* settle(partner, link).pipe(
                Effect.catchTag("PartnerUnavailable", () => Ref.set(silent, true)),
                // One link's defect must not end the pass for the others.
                Effect.catchDefect(() => Effect.void)
              )
            }),
          { concurrency: 4, discard: true }
        )
        if (links.length < page || (yield* Ref.get(silent))) break
        after = links[links.length - 1]!.txId
      }
    }
  }
})

export const FederationReconcileCron = Layer.unwrap(
  Effect.gen(function* () {
    const config = yield* AppConfigService
    if (config.federationReconcileSeconds === 0) return Layer.empty
    // Once per beat across the cluster, the start-up pass included (src/platform/PeriodicJob.ts).
    return periodicJob("FederationReconcile", config.federationReconcileSeconds * 1000, reconcile)
  })
)
