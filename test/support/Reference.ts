/**
 * What the reference-data test files (reference-terminals, reference-networks, reference-pricing)
 * share: a new wallet with a session, optionally in a wallet group, and a private GET.
 */
import type { TestClient } from "./Client.ts"

export const referenceHelpers = (client: TestClient) => ({
  /** A new wallet (optionally in a wallet group) with a session. */
  sessionWallet: (walletGroup = 0) => client.party({ extra: { walletGroup } }),
  getPrivate: (path: string) => client.priv("GET", path)
})
