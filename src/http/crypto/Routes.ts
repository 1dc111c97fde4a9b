/** The crypto rails (C15): addresses, reads, withdrawals, the scanner's and the signer's areas. */
import { Layer } from "effect"
import { AddressHandlers, PrivateAddressHandlers } from "./AddressHandlers.ts"
import { CryptoInfoHandlers, CryptoWalletReadsHandlers } from "./CryptoInfoHandlers.ts"
import { PartnerInfoHandlers, ScannerHandlers } from "./ScannerHandlers.ts"
import { SignerHandlers } from "./SignerHandlers.ts"
import { WithdrawHandlers } from "./WithdrawHandlers.ts"

export const CryptoRoutes = Layer.mergeAll(
  AddressHandlers,
  PrivateAddressHandlers,
  CryptoInfoHandlers,
  CryptoWalletReadsHandlers,
  ScannerHandlers,
  PartnerInfoHandlers,
  SignerHandlers,
  WithdrawHandlers
)
