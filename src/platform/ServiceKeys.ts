/**
 * SERVICE_KEYS (CONTRACT C19 §2): comma-separated items `[name@]scope:secret`, or a bare `secret` (no `:`)
 * that is an unnamed admin key. A malformed item stops the start; the message names SERVICE_KEYS and the
 * item's position, never any part of the item (a bare secret mistyped with a `:` would otherwise leak).
 */
import { isServiceScope, serviceScopes, type ServiceScope } from "../../schema/Security.ts"

export interface ServiceKeySpec {
  /** The item as configured (the first one is PayoutCodes' key material). */
  readonly item: string
  readonly name: string | undefined
  readonly scope: ServiceScope
  readonly secret: string
}

/** A key's name becomes an investment's ownerId (C17: 1–64 printable ASCII). */
const namePattern = /^[\x20-\x7e]{1,64}$/

const scopeList = Object.keys(serviceScopes).join(", ")

/** One item, or what is wrong with it (a phrase completing "SERVICE_KEYS: item N …"). */
const parseItem = (item: string): ServiceKeySpec | string => {
  const colon = item.indexOf(":")
  if (colon < 0) return { item, name: undefined, scope: "admin", secret: item }
  const head = item.slice(0, colon)
  const secret = item.slice(colon + 1)
  const at = head.lastIndexOf("@")
  const name = at < 0 ? undefined : head.slice(0, at)
  const scope = at < 0 ? head : head.slice(at + 1)
  if (secret.length === 0) return "has an empty secret ([name@]scope:secret)"
  if (scope.length === 0) return "has an empty scope ([name@]scope:secret)"
  if (name !== undefined && name.length === 0) return "has an empty name ([name@]scope:secret)"
  if (!isServiceScope(scope)) return `has an unknown scope (one of ${scopeList})`
  if (name !== undefined && !namePattern.test(name)) return "has a name that is not 1-64 printable ASCII characters"
  return { item, name, scope, secret }
}

/** The items of SERVICE_KEYS, or the first problem as one line naming the variable and the item's position. */
export const parseServiceKeys = (value: string): ReadonlyArray<ServiceKeySpec> | string => {
  const specs: Array<ServiceKeySpec> = []
  const positions: Array<number> = []
  const items = value.split(",").map((item) => item.trim())
  for (let i = 0; i < items.length; i++) {
    // Blanks between commas are no items (an unset or blank SERVICE_KEYS generates a key at first start).
    if (items[i].length === 0) continue
    const parsed = parseItem(items[i])
    if (typeof parsed === "string") return `SERVICE_KEYS: item ${i + 1} ${parsed}`
    // One secret, one key: the same secret under two scopes would make its scope depend on the order.
    const same = specs.findIndex((spec) => spec.secret === parsed.secret)
    if (same >= 0) return `SERVICE_KEYS: item ${i + 1} has the secret of item ${positions[same]}`
    specs.push(parsed)
    positions.push(i + 1)
  }
  return specs
}
