/** Wallets: lifecycle, credentials, the second factor, transfers and their recipients, funding, debt charges. */
import { Layer } from "effect"
import { Credentials } from "./Credentials.ts"
import { DebtCharges } from "./DebtCharges.ts"
import { Recipients } from "./Recipients.ts"
import { SecondFactorGate } from "./SecondFactorGate.ts"
import { Transfers } from "./Transfers.ts"
import { Treasury } from "./Treasury.ts"
import { Wallets } from "./Wallets.ts"

export const WalletsFeature = Layer.mergeAll(
  Wallets.layer,
  Credentials.layer,
  SecondFactorGate.layer,
  Transfers.layer,
  Treasury.layer,
  DebtCharges.layer
).pipe(Layer.provideMerge(Recipients.layer))
