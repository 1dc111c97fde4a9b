/**
 * Which strings are addresses of a crypto network (CONTRACT C15 "Valid addresses", else 10204):
 * Bitcoin segwit bech32/bech32m `bc1…` or base58check `1…`/`3…`; EVM `0x` + 40 hex, mixed case
 * only with a valid EIP-55 checksum; Tron base58check of 0x41 + 20 bytes; Solana base58 of 32
 * bytes; Ton raw `wc:64hex` or the 48-character user-friendly form with a valid CRC16.
 */
import { sha256 } from "@noble/hashes/sha2.js"
import { keccak_256 } from "@noble/hashes/sha3.js"
import { utf8ToBytes } from "@noble/hashes/utils.js"
import { base58, base58check, base64, base64url, bech32, bech32m } from "@scure/base"

/** The crypto networks (typeNetwork). */
export const Network = { Bitcoin: 1, Ethereum: 2, Tron: 3, BnbSmartChain: 4, Solana: 5, Ton: 6 } as const
export type NetworkId = (typeof Network)[keyof typeof Network]

const b58c = base58check(sha256)

/** Base58Check payload of a string, or undefined when it is not Base58Check. */
const base58checkPayload = (s: string): Uint8Array | undefined => {
  try {
    return b58c.decode(s)
  } catch {
    return undefined
  }
}

/** EIP-55: the checksummed form of `0x` + 40 hex digits (any case). Throws on anything else. */
export const toChecksumAddress = (address: string): string => {
  if (!/^0x[0-9a-fA-F]{40}$/.test(address)) throw new Error(`not an EVM address: ${address}`)
  const lower = address.slice(2).toLowerCase()
  const hash = keccak_256(utf8ToBytes(lower))
  let out = "0x"
  for (let i = 0; i < 40; i++) {
    const nibble = (hash[i >> 1] >> (i % 2 === 0 ? 4 : 0)) & 0x0f
    out += nibble >= 8 ? lower[i].toUpperCase() : lower[i]
  }
  return out
}

const isEvmAddress = (address: string): boolean => {
  if (!/^0x[0-9a-fA-F]{40}$/.test(address)) return false
  const body = address.slice(2)
  return body === body.toLowerCase() || body === body.toUpperCase() || toChecksumAddress(address) === address
}

/** BIP-173/BIP-350 segwit address with hrp `bc`: v0 in bech32 (20 or 32 bytes), v1..16 in bech32m. */
const isSegwitAddress = (address: string): boolean => {
  const v0 = bech32.decodeUnsafe(address, 90)
  const decoded = v0 ?? bech32m.decodeUnsafe(address, 90)
  if (decoded === undefined || decoded.prefix !== "bc" || decoded.words.length < 1) return false
  const version = decoded.words[0]
  if (version > 16 || (version === 0) !== (v0 !== undefined)) return false
  const program = bech32.fromWordsUnsafe(decoded.words.slice(1))
  if (program === undefined || program.length < 2 || program.length > 40) return false
  return version !== 0 || program.length === 20 || program.length === 32
}

const isBitcoinAddress = (address: string): boolean => {
  if (/^bc1/i.test(address)) return isSegwitAddress(address)
  const payload = base58checkPayload(address)
  return payload !== undefined && payload.length === 21 && (payload[0] === 0x00 || payload[0] === 0x05)
}

const isTronAddress = (address: string): boolean => {
  const payload = base58checkPayload(address)
  return payload !== undefined && payload.length === 21 && payload[0] === 0x41
}

const isSolanaAddress = (address: string): boolean => {
  try {
    return base58.decode(address).length === 32
  } catch {
    return false
  }
}

/** CRC16-XMODEM (poly 0x1021, init 0, no reflection): the checksum of Ton user-friendly addresses. */
export const tonCrc16 = (data: Uint8Array): number => {
  let crc = 0
  for (const byte of data) {
    crc ^= byte << 8
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff
  }
  return crc
}

const isTonAddress = (address: string): boolean => {
  const raw = /^(-?[0-9]{1,10}):[0-9a-fA-F]{64}$/.exec(address)
  if (raw !== null) {
    const workchain = Number(raw[1])
    return workchain >= -(2 ** 31) && workchain < 2 ** 31
  }
  const coder = /^[A-Za-z0-9+/]{48}$/.test(address)
    ? base64
    : /^[A-Za-z0-9_-]{48}$/.test(address)
      ? base64url
      : undefined
  if (coder === undefined) return false
  let bytes: Uint8Array
  try {
    bytes = coder.decode(address)
  } catch {
    return false
  }
  return bytes.length === 36 && tonCrc16(bytes.subarray(0, 34)) === ((bytes[34] << 8) | bytes[35])
}

/** Whether a string is an address of a crypto network (false for any other network). */
export const isValidAddress = (network: number, address: string): boolean => {
  switch (network) {
    case Network.Bitcoin:
      return isBitcoinAddress(address)
    case Network.Ethereum:
    case Network.BnbSmartChain:
      return isEvmAddress(address)
    case Network.Tron:
      return isTronAddress(address)
    case Network.Solana:
      return isSolanaAddress(address)
    case Network.Ton:
      return isTonAddress(address)
    default:
      return false
  }
}
