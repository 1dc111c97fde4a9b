/**
 * The signer's keys (C19 §10): an HD mnemonic held only by the signer. The service is given the
 * account-level xpub of SIGNER_ACCOUNT_PATH (m/44'/60'/0' by default); deposit address i is child
 * `0/i` of it, and the hot address — the source of withdrawals without a client asset source — is
 * child `1/0` (the change branch), so that xpub covers it too.
 */
import { HDKey, mnemonicToAccount, type HDAccount } from "viem/accounts"
import { mnemonicToSeedSync } from "@scure/bip39"

export interface SignerKeys {
  readonly hot: HDAccount
  /** The account of deposit address `0/index`. */
  readonly deposit: (index: number) => HDAccount
  /** The account-level xpub the service's XPUB_ETHEREUM / XPUB_BNB_SMART_CHAIN must be. */
  readonly xpub: string
}

export const makeSignerKeys = (mnemonic: string, accountPath: string): SignerKeys => {
  const words = mnemonic.trim().split(/\s+/).join(" ")
  const at = (branch: number, index: number) =>
    mnemonicToAccount(words, { path: `${accountPath}/${branch}/${index}` as `m/44'/60'/${string}` })
  const cache = new Map<number, HDAccount>()
  return {
    hot: at(1, 0),
    deposit: (index) => {
      let account = cache.get(index)
      if (account === undefined) cache.set(index, (account = at(0, index)))
      return account
    },
    xpub: HDKey.fromMasterSeed(mnemonicToSeedSync(words)).derive(accountPath).publicExtendedKey
  }
}
