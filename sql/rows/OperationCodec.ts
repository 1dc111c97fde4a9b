/**
 * A ledger operation crosses an actor mailbox as JSON text: bigints, bytes, dates and row kinds are
 * tagged so they come back exactly (a code actor hands a payer's debit to that payer's wallet actor).
 */
import type { LedgerOperation } from "../Ledger.ts"
import { rowKindNamed } from "./RowKinds.ts"

export const encodeOperation = (operation: LedgerOperation): string =>
  JSON.stringify(operation, function(this: any, key: string, value: unknown) {
    const raw = this[key]
    if (typeof raw === "bigint") return { $n: raw.toString() }
    if (raw instanceof Uint8Array) return { $b: Buffer.from(raw).toString("hex") }
    if (raw instanceof Date) return { $d: raw.toISOString() }
    if (key === "kind" && raw !== null && typeof raw === "object" && typeof raw.columns === "function") return { $k: raw.name }
    return value
  })

export const decodeOperation = (text: string): LedgerOperation =>
  JSON.parse(text, (_key, value) => {
    if (value !== null && typeof value === "object") {
      if (typeof value.$n === "string") return BigInt(value.$n)
      if (typeof value.$b === "string") return new Uint8Array(Buffer.from(value.$b, "hex"))
      if (typeof value.$d === "string") return new Date(value.$d)
      if (typeof value.$k === "string") return rowKindNamed(value.$k)
    }
    return value
  })
