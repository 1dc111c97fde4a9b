/**
 * The withdrawal tag: 16 bytes the reference signer appends to the calldata of what it sends — 8
 * bytes of marker, then the service's txId as a big-endian uint64 — so the reference scanner can name
 * the txId in the out item (C15: an out item binds the withdrawal whose txId, `to` and amount it
 * carries) reading nothing but the chain. An ERC-20 `transfer` ignores calldata past its arguments; a
 * native transfer carries the tag alone (the signer leaves it off when the recipient is a contract).
 */
const marker = "c15f7478c15f7478" // "c15ftx" twice-ish: 8 bytes unlikely to end any other calldata

/** The tag of a txId (hex, no 0x). */
export const tagOf = (txId: string): string => {
  const n = BigInt(txId)
  if (n < 0n || n >= 2n ** 64n) throw new Error(`txId ${txId} does not fit the tag`)
  return marker + n.toString(16).padStart(16, "0")
}

/** The txId a calldata ends with, or null. */
export const txIdOfInput = (input: string): string | null => {
  const hex = input.startsWith("0x") ? input.slice(2) : input
  if (hex.length < 32) return null
  const tail = hex.slice(-32).toLowerCase()
  if (!tail.startsWith(marker)) return null
  const id = BigInt("0x" + tail.slice(16))
  return id === 0n ? null : id.toString()
}
