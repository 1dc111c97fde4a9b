/**
 * The expiry timer's handler: at expiresAt it sends the order's actor `Expire`, which commits Expired
 * only if the engine says the order is due (Created/Started past expiresAt, nothing in flight) and
 * only from the state it read (payment_order_update is conditional). So an early, late or second
 * delivery (a redelivery after a restart, two WORKERS processes) changes nothing twice. Any failure is
 * swallowed: the message is then processed, and the sweeper (src/services/PaymentExpiry.ts) expires
 * the order on its next pass.
 */
import { Effect } from "effect"
import { PaymentOrderEntity } from "../payment/Protocol.ts"
import { PaymentExpiryEntity } from "./Protocol.ts"

/** The engine expires strictly after expiresAt; storage may deliver at expiresAt itself. */
const graceMs = 5

export const PaymentExpiryEntityLayer = PaymentExpiryEntity.toLayer(
  Effect.gen(function* () {
    const orders = yield* PaymentOrderEntity.client
    return PaymentExpiryEntity.of({
      ExpireAt: ({ payload }) =>
        Effect.gen(function* () {
          const wait = payload.expiresAt.epochMilliseconds + graceMs - Date.now()
          if (wait > 0) yield* Effect.sleep(Math.min(wait, 60_000))
          yield* orders(payload.orderId).Expire({})
        }).pipe(Effect.ignoreCause)
    })
  })
)
