/**
 * Second-factor proofs for step two (SPEC internal transfer rule 7, CONTRACT C12), pure functions:
 * one-time codes are compared by hash in constant time; a Fido2Key signature is an Ed25519
 * signature of the txId's decimal string by one of the wallet's registered keys.
 */
import { createHash, createPublicKey, randomInt, timingSafeEqual, verify } from "node:crypto"

export const codeDigits = 6
export const confirmationAttemptsMax = 5

export const newConfirmationCode = (): string => String(randomInt(0, 10 ** codeDigits)).padStart(codeDigits, "0")

export const hashCode = (code: string): Buffer => createHash("sha256").update(code, "utf8").digest()

/**
 * Step one's confirmation (C10, C12): without Require2FA the code is answered inline; with it a
 * Fido2Key login signs (NeedSign) and any other gets a code through the notification channel.
 */
export const newConfirmation = (require2FA: boolean, keyType: string, expiresAt: Date) => {
  const channel = !require2FA ? ("Inline" as const) : keyType === "Fido2Key" ? ("Sign" as const) : ("Code" as const)
  const code = channel === "Sign" ? null : newConfirmationCode()
  return {
    /** ReserveTransfer's confirmation fields. */
    reserve: {
      channel,
      codeHash: code === null ? null : new Uint8Array(hashCode(code)),
      expiresAt,
      attempts: confirmationAttemptsMax,
      codeForEvent: channel === "Code" ? code : null
    },
    /** CreateTransactOut's confirmation fields. */
    answer: {
      confirmationStatusCode: channel === "Sign" ? ("NeedSign" as const) : ("NeedCodeConfirm" as const),
      ...(channel === "Inline" && code !== null ? { confirmationCode: code } : {})
    }
  }
}

export const codeMatches = (codeHash: Uint8Array, code: string): boolean => {
  const candidate = hashCode(code)
  return codeHash.length === candidate.length && timingSafeEqual(codeHash, candidate)
}

const ed25519SpkiPrefix = Buffer.from("302a300506032b6570032100", "hex")

export const ed25519PublicKey = (raw: Uint8Array) =>
  createPublicKey({ key: Buffer.concat([ed25519SpkiPrefix, Buffer.from(raw)]), format: "der", type: "spki" })

export const signatureMatches = (keys: ReadonlyArray<Uint8Array>, txId: string, signatureBase64: string): boolean => {
  const signature = Buffer.from(signatureBase64, "base64")
  if (signature.length !== 64) return false
  return keys.some((raw) => {
    try {
      return verify(null, Buffer.from(txId, "utf8"), ed25519PublicKey(raw), signature)
    } catch {
      return false
    }
  })
}
