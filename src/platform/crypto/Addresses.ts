/**
 * Crypto deposit addresses (CONTRACT C15 "Addresses"): the networks, the account-level extended
 * public keys read from `XPUB_*`, the address of index i (the non-hardened child `0/i`), the
 * comparison key of an address and the wallets' memos. Pure functions; the curve, hash and
 * encoding work is done by @scure/bip32, @noble/curves, @noble/hashes and @scure/base.
 * Which strings are addresses of a network (10204) is in ./Validation.ts.
 */
import { randomInt } from "node:crypto"
import { secp256k1 } from "@noble/curves/secp256k1.js"
import { ripemd160 } from "@noble/hashes/legacy.js"
import { sha256 } from "@noble/hashes/sha2.js"
import { keccak_256 } from "@noble/hashes/sha3.js"
import { bytesToHex } from "@noble/hashes/utils.js"
import { base58check, bech32 } from "@scure/base"
import { HARDENED_OFFSET, HDKey } from "@scure/bip32"
import { Network, type NetworkId, toChecksumAddress } from "./Validation.ts"

export { isValidAddress, Network, type NetworkId, toChecksumAddress, tonCrc16 } from "./Validation.ts"

/** The networks whose addresses are derived from an extended public key. */
export type DerivedNetwork =
  typeof Network.Bitcoin | typeof Network.Ethereum | typeof Network.Tron | typeof Network.BnbSmartChain
/** The networks whose deposits are told apart by a memo on a shared hot address. */
export type MemoNetwork = typeof Network.Solana | typeof Network.Ton

export const isCryptoNetwork = (n: number): n is NetworkId => Number.isInteger(n) && n >= 1 && n <= 6
export const isDerivedNetwork = (n: number): n is DerivedNetwork => Number.isInteger(n) && n >= 1 && n <= 4
export const isMemoNetwork = (n: number): n is MemoNetwork => n === Network.Solana || n === Network.Ton
export const isEvmNetwork = (n: number): n is typeof Network.Ethereum | typeof Network.BnbSmartChain =>
  n === Network.Ethereum || n === Network.BnbSmartChain

export type XpubEnvName = "XPUB_BITCOIN" | "XPUB_ETHEREUM" | "XPUB_TRON" | "XPUB_BNB_SMART_CHAIN"

const envNames: Record<DerivedNetwork, XpubEnvName> = {
  1: "XPUB_BITCOIN",
  2: "XPUB_ETHEREUM",
  3: "XPUB_TRON",
  4: "XPUB_BNB_SMART_CHAIN"
}

/** The environment variable holding the extended public key of a derived network. */
export const xpubEnvName = (network: DerivedNetwork): XpubEnvName => envNames[network]

const XPUB = { public: 0x0488b21e, private: 0x0488ade4 }
const ZPUB = { public: 0x04b24746, private: 0x04b2430c }

const b58c = base58check(sha256)

/**
 * The account key of an `XPUB_*` value: Base58Check, version xpub (`XPUB_BITCOIN` also zpub), a
 * public key. Throws an Error naming the variable when the value is anything else.
 */
export const parseXpub = (envName: string, value: string): HDKey => {
  const fail = (why: string): never => {
    throw new Error(`${envName}: not a valid extended public key (${why})`)
  }
  let bytes: Uint8Array
  try {
    bytes = b58c.decode(value.trim())
  } catch (e) {
    return fail(`not Base58Check: ${e instanceof Error ? e.message : String(e)}`)
  }
  if (bytes.length !== 78) return fail(`${bytes.length} bytes, expected 78`)
  const version = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(0, false)
  if (version === XPUB.private || version === ZPUB.private || bytes[45] === 0) {
    return fail("a private key was given, an xpub is expected")
  }
  const versions =
    version === XPUB.public ? XPUB : version === ZPUB.public && envName === "XPUB_BITCOIN" ? ZPUB : undefined
  if (versions === undefined) {
    return fail(
      `version 0x${version.toString(16).padStart(8, "0")}, expected xpub${envName === "XPUB_BITCOIN" ? " or zpub" : ""}`
    )
  }
  try {
    return HDKey.fromExtendedKey(value.trim(), versions)
  } catch (e) {
    return fail(e instanceof Error ? e.message : String(e))
  }
}

/**
 * The account keys of the four `XPUB_*` variables that are set (unset or empty: no key, so
 * create_address on that network is 10202). Throws, naming the variable, on a malformed one.
 */
export const loadXpubs = (env: Readonly<Record<string, string | undefined>>): ReadonlyMap<DerivedNetwork, HDKey> => {
  const keys = new Map<DerivedNetwork, HDKey>()
  for (const network of [1, 2, 3, 4] as const) {
    const name = xpubEnvName(network)
    const value = env[name]
    if (value === undefined || value.trim() === "") continue
    keys.set(network, parseXpub(name, value))
  }
  return keys
}

/** The external chain (`0`) of each account key, derived once. */
const externalChains = new WeakMap<HDKey, HDKey>()

/** The compressed public key i of an account key: its non-hardened child `0/i`. */
export const publicKeyAt = (key: HDKey, index: number): Uint8Array => {
  if (!Number.isSafeInteger(index) || index < 0 || index >= HARDENED_OFFSET) {
    throw new Error(`address index ${index}: expected an integer in 0..2^31-1`)
  }
  let chain = externalChains.get(key)
  if (chain === undefined) {
    chain = key.deriveChild(0)
    externalChains.set(key, chain)
  }
  const publicKey = chain.deriveChild(index).publicKey
  if (publicKey === null) throw new Error("derived key has no public key")
  return publicKey
}

/** HASH160: RIPEMD-160 of SHA-256. */
const hash160 = (data: Uint8Array): Uint8Array => ripemd160(sha256(data))

/** The last 20 bytes of keccak256 of the uncompressed public key without its 0x04 prefix. */
const evmAccount = (compressed: Uint8Array): Uint8Array =>
  keccak_256(secp256k1.Point.fromBytes(compressed).toBytes(false).subarray(1)).subarray(12)

/** The address of a compressed secp256k1 public key on a derived network. */
export const addressOfPublicKey = (network: DerivedNetwork, publicKey: Uint8Array): string => {
  switch (network) {
    case Network.Bitcoin:
      return bech32.encode("bc", [0, ...bech32.toWords(hash160(publicKey))])
    case Network.Ethereum:
    case Network.BnbSmartChain:
      return toChecksumAddress(`0x${bytesToHex(evmAccount(publicKey))}`)
    case Network.Tron: {
      const payload = new Uint8Array(21)
      payload[0] = 0x41
      payload.set(evmAccount(publicKey), 1)
      return b58c.encode(payload)
    }
  }
}

/** The address of index i of a derived network: P2WPKH `bc1q…`, EIP-55 `0x…` or Tron `T…`. */
export const deriveAddress = (network: DerivedNetwork, key: HDKey, index: number): string =>
  addressOfPublicKey(network, publicKeyAt(key, index))

/** The key two addresses of a network are compared by: EVM addresses compare case-insensitively. */
export const addressKey = (network: number, address: string): string =>
  isEvmNetwork(network) ? address.toLowerCase() : address

/** A wallet's memo: 6..10 decimal digits. */
export const memoIsValid = (memo: string): boolean => /^[0-9]{6,10}$/.test(memo)

/** A random memo of 6..10 digits, the first not zero (uniqueness is the caller's). */
export const randomMemo = (): string => {
  const length = randomInt(6, 11)
  let memo = String(randomInt(1, 10))
  while (memo.length < length) memo += String(randomInt(0, 10))
  return memo
}
