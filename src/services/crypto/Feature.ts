/** The crypto rails (C15): terminals, scanner pushes, addresses, reads, withdrawals and the signer's queue. */
import { Layer } from "effect"
import { Addresses } from "./Addresses.ts"
import { Chains } from "./Chains.ts"
import { CryptoInfo } from "./CryptoInfo.ts"
import { SignerQueue } from "./SignerQueue.ts"
import { Terminals } from "./Terminals.ts"
import { Withdrawals } from "./Withdrawals.ts"

export const CryptoFeature = Layer.mergeAll(
  Terminals.layer,
  Chains.layer,
  Addresses.layer,
  CryptoInfo.layer,
  Withdrawals.layer,
  SignerQueue.layer
)
