/**
 * A payment order's expiry timer (CONTRACT C16 "now > expiresAt", docs/DURABLE-TIMERS.md): one
 * persisted message per order, held in effect/cluster's SQL message storage until expiresAt
 * (DeliverAt) and kept once per order (PrimaryKey), so it survives a restart and a second send is
 * dropped. Its own small entity (keyed by the order's tx id) so the order's actor keeps volatile
 * messages only; the handler asks the order's actor to Expire, whose transition is conditional.
 */
import { DateTime, PrimaryKey, Schema } from "effect"
import { ClusterSchema, DeliverAt, Entity } from "effect/cluster"
import { Rpc } from "effect/rpc"

export class ExpiryDue extends Schema.Class<ExpiryDue>("core/ExpiryDue")({
  orderId: Schema.String,
  expiresAt: Schema.DateTimeUtc
}) {
  /** One timer per order: a second send (a retried put, a replay) is kept once. */
  [PrimaryKey.symbol]() {
    return this.orderId
  }
  /** Held in storage until the order's expiresAt. */
  [DeliverAt.symbol]() {
    return this.expiresAt
  }
  static of(orderId: bigint | string, expiresAt: Date) {
    return new ExpiryDue({ orderId: String(orderId), expiresAt: DateTime.makeUnsafe(expiresAt) })
  }
}

/** Due: expire the order if it still may (the order's actor decides). Send with `{ discard: true }`. */
export const ExpireAt = Rpc.make("ExpireAt", { payload: ExpiryDue }).annotate(ClusterSchema.Persisted, true)

export const PaymentExpiryEntity = Entity.make("PaymentOrderExpiry", [ExpireAt])
