/**
 * src/platform/crypto/Addresses.ts and Validation.ts (CONTRACT C15 "Addresses", "Valid addresses"):
 * the address of index i of an account xpub, checked against published vectors of the BIP-39 test
 * mnemonic and against an independent computation from the full private path; zpub = xpub;
 * malformed `XPUB_*` values name their variable; the valid-address table per network; memos.
 * No service is started.
 */
import { assert, describe, it } from "@effect/vitest"
import { secp256k1 } from "@noble/curves/secp256k1.js"
import { sha256 } from "@noble/hashes/sha2.js"
import { keccak_256 } from "@noble/hashes/sha3.js"
import { bytesToHex } from "@noble/hashes/utils.js"
import { base58, base58check, base64, base64url } from "@scure/base"
import { HDKey } from "@scure/bip32"
import { mnemonicToSeedSync } from "@scure/bip39"
import { p2wpkh } from "@scure/btc-signer"
import {
  addressKey,
  deriveAddress,
  type DerivedNetwork,
  isCryptoNetwork,
  isDerivedNetwork,
  isEvmNetwork,
  isMemoNetwork,
  isValidAddress,
  loadXpubs,
  memoIsValid,
  Network,
  parseXpub,
  randomMemo,
  toChecksumAddress,
  tonCrc16,
  xpubEnvName
} from "../../src/platform/crypto/Addresses.ts"
import { seeded } from "./Random.ts"

const MNEMONIC = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"
const master = HDKey.fromMasterSeed(mnemonicToSeedSync(MNEMONIC))
const b58c = base58check(sha256)

/** Published vectors of the test mnemonic (BIP-84, and the usual BIP-44 wallets). */
const KNOWN_ZPUB =
  "zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs"
const KNOWN_BTC_0 = "bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu"
const KNOWN_ETH_0 = "0x9858EfFD232B4033E47d90003D41EC34EcaEda94"
const KNOWN_TRON_0 = "TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH"

const btcAccount = master.derive("m/84'/0'/0'")
const ethAccount = master.derive("m/44'/60'/0'")
const tronAccount = master.derive("m/44'/195'/0'")

/** The same extended key with other version bytes. */
const withVersion = (extended: string, version: number): string => {
  const bytes = b58c.decode(extended)
  new DataView(bytes.buffer, bytes.byteOffset).setUint32(0, version, false)
  return b58c.encode(bytes)
}
const ZPUB = 0x04b24746

/** The same extended key with another first byte of its key (0x02/0x03 for a compressed point). */
const withKeyPrefix = (extended: string, prefix: number): string => {
  const bytes = b58c.decode(extended)
  bytes[45] = prefix
  return b58c.encode(bytes)
}

/** Independent EVM/Tron account bytes: the public key multiplied out of the private key of the full path. */
const accountBytesOfPrivate = (key: HDKey): Uint8Array =>
  keccak_256(secp256k1.getPublicKey(key.privateKey!, false).subarray(1)).subarray(12)

describe("derived addresses of the BIP-39 test mnemonic", () => {
  it("Bitcoin: the published zpub and first address; each index equals p2wpkh of the private path's key", () => {
    assert.strictEqual(withVersion(btcAccount.publicExtendedKey, ZPUB), KNOWN_ZPUB)
    const key = parseXpub("XPUB_BITCOIN", KNOWN_ZPUB)
    assert.strictEqual(deriveAddress(Network.Bitcoin, key, 0), KNOWN_BTC_0)
    for (let i = 0; i < 5; i++) {
      const child = master.derive(`m/84'/0'/0'/0/${i}`)
      assert.strictEqual(deriveAddress(Network.Bitcoin, key, i), p2wpkh(child.publicKey!).address)
    }
  })

  it("Bitcoin: the zpub and xpub forms of the same key derive the same addresses", () => {
    const fromZpub = parseXpub("XPUB_BITCOIN", KNOWN_ZPUB)
    const fromXpub = parseXpub("XPUB_BITCOIN", btcAccount.publicExtendedKey)
    assert.isTrue(btcAccount.publicExtendedKey.startsWith("xpub"))
    for (const i of [0, 1, 2, 17, 1000]) {
      assert.strictEqual(deriveAddress(Network.Bitcoin, fromZpub, i), deriveAddress(Network.Bitcoin, fromXpub, i))
    }
  })

  it("Ethereum and BNB Smart Chain: the published first address; each index equals the private path's", () => {
    const key = parseXpub("XPUB_ETHEREUM", ethAccount.publicExtendedKey)
    assert.strictEqual(deriveAddress(Network.Ethereum, key, 0), KNOWN_ETH_0)
    const bnb = parseXpub("XPUB_BNB_SMART_CHAIN", ethAccount.publicExtendedKey)
    for (let i = 0; i < 5; i++) {
      const expected = toChecksumAddress(`0x${bytesToHex(accountBytesOfPrivate(master.derive(`m/44'/60'/0'/0/${i}`)))}`)
      assert.strictEqual(deriveAddress(Network.Ethereum, key, i), expected)
      assert.strictEqual(deriveAddress(Network.BnbSmartChain, bnb, i), expected)
    }
  })

  it("Tron: the published first address; each index equals base58check(0x41 ‖ account) of the private path", () => {
    const key = parseXpub("XPUB_TRON", tronAccount.publicExtendedKey)
    assert.strictEqual(deriveAddress(Network.Tron, key, 0), KNOWN_TRON_0)
    for (let i = 0; i < 5; i++) {
      const account = accountBytesOfPrivate(master.derive(`m/44'/195'/0'/0/${i}`))
      const expected = b58c.encode(Uint8Array.of(0x41, ...account))
      assert.strictEqual(deriveAddress(Network.Tron, key, i), expected)
      assert.isTrue(expected.startsWith("T"))
    }
  })

  it("50 random indices: every derived address is valid on its network and all are distinct", () => {
    const random = seeded(15)
    const keys: Record<DerivedNetwork, HDKey> = {
      1: parseXpub("XPUB_BITCOIN", KNOWN_ZPUB),
      2: parseXpub("XPUB_ETHEREUM", ethAccount.publicExtendedKey),
      3: parseXpub("XPUB_TRON", tronAccount.publicExtendedKey),
      4: parseXpub("XPUB_BNB_SMART_CHAIN", ethAccount.publicExtendedKey)
    }
    const indices = new Set<number>([0, 2 ** 31 - 1])
    while (indices.size < 50) indices.add(random.int(0, 2 ** 31 - 1))
    for (const network of [1, 2, 3, 4] as const) {
      const seen = new Set<string>()
      for (const i of indices) {
        const address = deriveAddress(network, keys[network], i)
        assert.isTrue(isValidAddress(network, address), `${network} ${i} ${address}`)
        seen.add(addressKey(network, address))
      }
      assert.strictEqual(seen.size, indices.size)
    }
  })

  it("an index outside 0..2^31-1 is refused", () => {
    const key = parseXpub("XPUB_ETHEREUM", ethAccount.publicExtendedKey)
    for (const i of [-1, 2 ** 31, 1.5, Number.NaN]) assert.throws(() => deriveAddress(Network.Ethereum, key, i))
  })
})

describe("XPUB_* values", () => {
  const xpub = ethAccount.publicExtendedKey
  const malformed: Array<[string, string]> = [
    ["garbage", "not-an-xpub"],
    ["truncated", xpub.slice(0, -6)],
    ["one character changed", xpub.slice(0, 20) + (xpub[20] === "A" ? "B" : "A") + xpub.slice(21)],
    ["an xprv", ethAccount.privateExtendedKey],
    ["a zprv", withVersion(btcAccount.privateExtendedKey, 0x04b2430c)],
    ["a tpub", withVersion(xpub, 0x043587cf)],
    ["a key that is not a curve point", withKeyPrefix(xpub, 0x04)]
  ]
  for (const [what, value] of malformed) {
    it(`${what} is refused, naming the variable`, () => {
      for (const name of ["XPUB_BITCOIN", "XPUB_ETHEREUM", "XPUB_TRON", "XPUB_BNB_SMART_CHAIN"]) {
        assert.throws(() => parseXpub(name, value), new RegExp(`^${name}: not a valid extended public key`))
        assert.throws(() => loadXpubs({ [name]: value }), new RegExp(`^${name}:`))
      }
    })
  }

  it("a zpub is taken by XPUB_BITCOIN only", () => {
    assert.doesNotThrow(() => parseXpub("XPUB_BITCOIN", KNOWN_ZPUB))
    assert.throws(() => parseXpub("XPUB_ETHEREUM", KNOWN_ZPUB), /^XPUB_ETHEREUM: .*version 0x04b24746/)
  })

  it("loadXpubs keeps the set variables; unset and empty ones are absent", () => {
    assert.strictEqual(loadXpubs({}).size, 0)
    const keys = loadXpubs({ XPUB_BITCOIN: KNOWN_ZPUB, XPUB_ETHEREUM: "", XPUB_TRON: tronAccount.publicExtendedKey })
    assert.deepStrictEqual([...keys.keys()].sort(), [Network.Bitcoin, Network.Tron])
    assert.strictEqual(deriveAddress(Network.Bitcoin, keys.get(Network.Bitcoin)!, 0), KNOWN_BTC_0)
    assert.strictEqual(deriveAddress(Network.Tron, keys.get(Network.Tron)!, 0), KNOWN_TRON_0)
  })

  it("xpubEnvName per derived network", () => {
    assert.deepStrictEqual(([1, 2, 3, 4] as const).map(xpubEnvName), [
      "XPUB_BITCOIN",
      "XPUB_ETHEREUM",
      "XPUB_TRON",
      "XPUB_BNB_SMART_CHAIN"
    ])
  })
})

describe("networks", () => {
  it("classify the typeNetwork ints", () => {
    assert.deepStrictEqual(Network, { Bitcoin: 1, Ethereum: 2, Tron: 3, BnbSmartChain: 4, Solana: 5, Ton: 6 })
    const all = [0, 1, 2, 3, 4, 5, 6, 7, 1.5]
    assert.deepStrictEqual(all.filter(isCryptoNetwork), [1, 2, 3, 4, 5, 6])
    assert.deepStrictEqual(all.filter(isDerivedNetwork), [1, 2, 3, 4])
    assert.deepStrictEqual(all.filter(isMemoNetwork), [5, 6])
    assert.deepStrictEqual(all.filter(isEvmNetwork), [2, 4])
  })

  it("addressKey: EVM addresses compare case-insensitively, others exactly", () => {
    assert.strictEqual(addressKey(Network.Ethereum, KNOWN_ETH_0), KNOWN_ETH_0.toLowerCase())
    assert.strictEqual(
      addressKey(Network.BnbSmartChain, KNOWN_ETH_0.toUpperCase().replace("0X", "0x")),
      KNOWN_ETH_0.toLowerCase()
    )
    assert.strictEqual(addressKey(Network.Tron, KNOWN_TRON_0), KNOWN_TRON_0)
    assert.strictEqual(addressKey(Network.Solana, "AbC"), "AbC")
  })
})

describe("valid addresses", () => {
  const random = seeded(55)
  const bytes = (n: number) => Uint8Array.from({ length: n }, () => random.int(0, 255))
  const flipLast = (s: string) => s.slice(0, -1) + (s.endsWith("a") ? "b" : "a")
  const tonFriendly = (tag: number, workchain: number) => {
    const body = Uint8Array.of(tag, workchain & 0xff, ...bytes(32))
    const crc = tonCrc16(body)
    return Uint8Array.of(...body, crc >> 8, crc & 0xff)
  }
  const ton = tonFriendly(0x11, 0)
  const tonBadCrc = Uint8Array.from(ton)
  tonBadCrc[35] ^= 1
  const eip55 = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"

  const table: Array<[number, string, boolean, string]> = [
    // Bitcoin: BIP-173 / BIP-350 vectors, the genesis P2PKH and a P2SH
    [1, KNOWN_BTC_0, true, "P2WPKH"],
    [1, "BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4", true, "P2WPKH upper case"],
    [1, "bc1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3qccfmv3", true, "P2WSH"],
    [1, "bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0", true, "P2TR (bech32m)"],
    [1, "1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa", true, "P2PKH"],
    [1, "3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy", true, "P2SH"],
    [1, flipLast(KNOWN_BTC_0), false, "bech32 bad checksum"],
    [1, "tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx", false, "testnet hrp"],
    [1, "bc1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4", false, "mixed case bech32"],
    [1, "bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqh2y7hd", false, "v1 in bech32, not bech32m"],
    [1, "1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNb", false, "base58check bad checksum"],
    [1, KNOWN_TRON_0, false, "a Tron address"],
    [1, "", false, "empty"],
    // EVM (EIP-55 vectors)
    [2, eip55, true, "EIP-55 checksummed"],
    [2, eip55.toLowerCase(), true, "all lower case"],
    [2, "0x" + eip55.slice(2).toUpperCase(), true, "all upper case"],
    [2, eip55.replace("aA", "Aa"), false, "mixed case, wrong checksum"],
    [2, "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359", true, "EIP-55 vector 2"],
    [4, "0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB", true, "EIP-55 vector 3 on BNB"],
    [4, "0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb", true, "EIP-55 vector 4 on BNB"],
    [2, eip55.slice(0, -1), false, "39 hex"],
    [2, eip55.slice(2), false, "no 0x"],
    [2, "0X" + eip55.slice(2), false, "0X"],
    [2, "0x" + "g".repeat(40), false, "not hex"],
    // Tron
    [3, KNOWN_TRON_0, true, "derived"],
    [3, "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t", true, "the USDT contract"],
    [3, flipLast(KNOWN_TRON_0), false, "bad checksum"],
    [3, b58c.encode(Uint8Array.of(0x00, ...bytes(20))), false, "version 0x00"],
    [3, b58c.encode(Uint8Array.of(0x41, ...bytes(19))), false, "19 bytes"],
    [3, "0x9858EfFD232B4033E47d90003D41EC34EcaEda94", false, "an EVM address"],
    // Solana
    [5, base58.encode(bytes(32)), true, "32 random bytes"],
    [5, "11111111111111111111111111111111", true, "the system program (32 zero bytes)"],
    [5, base58.encode(bytes(31)), false, "31 bytes"],
    [5, base58.encode(bytes(33)), false, "33 bytes"],
    [5, "0" + base58.encode(bytes(32)).slice(1), false, "not base58"],
    // Ton
    [6, "0:" + bytesToHex(bytes(32)), true, "raw, workchain 0"],
    [6, "-1:" + bytesToHex(bytes(32)).toUpperCase(), true, "raw, workchain -1"],
    [6, base64url.encode(ton), true, "user-friendly base64url"],
    [6, base64.encode(tonFriendly(0x51, -1)), true, "user-friendly base64"],
    [6, base64url.encode(tonBadCrc), false, "user-friendly, bad CRC"],
    [6, base64url.encode(ton).slice(0, 47), false, "47 characters"],
    [6, "0:" + bytesToHex(bytes(31)), false, "raw, 62 hex"],
    [6, "x:" + bytesToHex(bytes(32)), false, "raw, no workchain"],
    // not crypto networks
    [0, KNOWN_BTC_0, false, "network 0"],
    [7, eip55, false, "network 7"]
  ]
  for (const [network, address, valid, what] of table) {
    it(`network ${network}: ${what} is ${valid ? "valid" : "invalid"}`, () => {
      assert.strictEqual(isValidAddress(network, address), valid, address)
    })
  }

  it("EIP-55 checksums and the CRC16-XMODEM check value", () => {
    assert.strictEqual(toChecksumAddress(eip55.toLowerCase()), eip55)
    assert.strictEqual(toChecksumAddress(KNOWN_ETH_0.toUpperCase().replace("0X", "0x")), KNOWN_ETH_0)
    assert.throws(() => toChecksumAddress("0x1234"))
    assert.strictEqual(tonCrc16(new TextEncoder().encode("123456789")), 0x31c3)
  })
})

describe("memos", () => {
  it("6..10 decimal digits", () => {
    for (const memo of ["123456", "0123456789", "9999999999", "100000"]) assert.isTrue(memoIsValid(memo), memo)
    for (const memo of ["12345", "12345678901", "12345a", " 123456", "123456 ", "", "-123456", "1234.56"]) {
      assert.isFalse(memoIsValid(memo), memo)
    }
  })

  it("randomMemo: valid, first digit not zero, every length 6..10 occurs", () => {
    const lengths = new Set<number>()
    for (let i = 0; i < 500; i++) {
      const memo = randomMemo()
      assert.isTrue(memoIsValid(memo), memo)
      assert.notStrictEqual(memo[0], "0")
      lengths.add(memo.length)
    }
    assert.deepStrictEqual(
      [...lengths].sort((a, b) => a - b),
      [6, 7, 8, 9, 10]
    )
  })
})
