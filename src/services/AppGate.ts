/**
 * C19 §5 at the payment gate: order_start and every pay_* of an order whose merchant app is disabled
 * (set_app_enabled false) answer 400 10411 before the order's own rules; reads still work.
 */
import { Effect } from "effect"
import { AppDisabledOrder } from "../../schema/EdgeErrors.ts"
import { findAppById } from "../../sql/CredentialRepo.ts"
import type { Db } from "../platform/db/Sql.ts"

export const refuseDisabledApp = (db: Db, appId: bigint) =>
  Effect.flatMap(db(findAppById(appId)), (app) =>
    app !== undefined && !app.enabled
      ? Effect.fail(new AppDisabledOrder({ message: "code: the order's merchant app is disabled" }))
      : Effect.void
  )
