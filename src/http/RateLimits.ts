/**
 * The edge's token buckets (CONTRACT C19 §8). RATE_LIMIT_CREDENTIAL_RPS per session, app or non-admin
 * service key (taken by the credential middleware once the credential is known, src/http/Auth.ts);
 * RATE_LIMIT_IP_RPS per client address for every request with no valid credential (taken in front of
 * the router for routes that need none, src/http/EdgeRules.ts, and the get_info fast path; and by the
 * credential middleware when the credential is missing or wrong). Bursts are twice the rate; 0 turns a
 * limit off; admin keys are never limited. Buckets live in this process (under WORKERS each worker has
 * its own). An IPv6 client counts by its /64, the block one subscriber gets.
 */
import { Context, Layer } from "effect"
import ipaddr from "ipaddr.js"
import { AppConfigService, limits } from "../platform/Config.ts"
import { TokenBuckets } from "../platform/TokenBuckets.ts"

/** The bucket key of a client address: IPv4 as it is (also when IPv4-mapped), IPv6 by its /64. */
export const addressKey = (address: string | undefined): string => {
  if (address === undefined) return "unknown"
  if (!address.includes(":")) return address
  if (address.startsWith("::ffff:") && address.includes(".")) return address.slice(7)
  try {
    return (
      ipaddr.IPv6.parse(address)
        .parts.slice(0, 4)
        .map((part) => part.toString(16))
        .join(":") + "::/64"
    )
  } catch {
    return address
  }
}

export class RateLimits extends Context.Service<
  RateLimits,
  {
    /** A request with no valid credential from this client address: 0, or the Retry-After seconds. */
    readonly byAddress: (address: string | undefined) => number
    /** A request of this credential (CallerKey): 0, or the Retry-After seconds. */
    readonly byCredential: (key: string) => number
  }
>()("core/RateLimits") {
  static readonly layer = Layer.effect(
    RateLimits,
    AppConfigService.useSync((config) => {
      const addresses = new TokenBuckets(config.rateLimitIpRps, 2 * config.rateLimitIpRps, limits.rateLimitBucketsMax)
      const credentials = new TokenBuckets(
        config.rateLimitCredentialRps,
        2 * config.rateLimitCredentialRps,
        limits.rateLimitBucketsMax
      )
      return RateLimits.of({
        byAddress: (address) => (addresses.off ? 0 : addresses.take(addressKey(address))),
        byCredential: (key) => credentials.take(key)
      })
    })
  )
}
