/** How every actor kind declares its entity (actors/<kind>/Protocol.ts), so one rule holds for all of them. */
import { ClusterSchema, Entity } from "effect/cluster"
import type { Rpc } from "effect/rpc"

/**
 * `Entity.make`, with every message uninterruptible on the server: a caller that gives up (its deadline,
 * a dropped connection, a runner's socket) must not cut a handler between its commit and its in-memory update.
 */
export const actorEntity = <const Type extends string, Rpcs extends ReadonlyArray<Rpc.Any>>(
  type: Type,
  protocol: Rpcs
): Entity.Entity<Type, Rpcs[number]> =>
  Entity.make(type, protocol).annotateRpcs(ClusterSchema.Uninterruptible, "server")
