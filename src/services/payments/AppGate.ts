/**
 * C19 §5 at the payment gate: order_start and every pay_* of an order whose merchant app is disabled
 * (set_app_enabled false) answer 400 10411 before the order's own rules; reads still work.
 */
import { Effect } from "effect"
import { AppDisabledOrder } from "../../../schema/EdgeErrors.ts"

/**
 * The order row carries its app's `enabled` (sql/PaymentOrderRepo.ts joins `apps` already), so the gate
 * costs no read of its own on the payment path.
 */
export const refuseDisabledApp = (order: { readonly appEnabled: boolean }) =>
  order.appEnabled
    ? Effect.void
    : Effect.fail(new AppDisabledOrder({ message: "code: the order's merchant app is disabled" }))
