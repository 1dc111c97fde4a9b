/**
 * Identifiers cross the API as 64-bit integers written as decimal strings (CONTRACT C5).
 * Requests may send a JSON integer or a string; responses always carry the canonical string.
 */
import { Schema, SchemaGetter } from "effect"

const INT64_MIN = -(2n ** 63n)
const INT64_MAX = 2n ** 63n - 1n
const int64Pattern = /^-?(0|[1-9][0-9]{0,18})$/

export const isInt64String = (text: string): boolean => {
  if (!int64Pattern.test(text)) return false
  const value = BigInt(text)
  return value >= INT64_MIN && value <= INT64_MAX
}

const int64Check = Schema.makeFilter<string>(
  (text) => isInt64String(text) || "must be a 64-bit integer written as a decimal string",
  { expected: "a 64-bit integer as a decimal string" }
)

/** The canonical form: a decimal string inside the int64 range. */
export const Int64String = Schema.String.check(int64Check).annotate({
  description: "64-bit integer as a decimal string",
  examples: ["1732260000000000"]
})

/**
 * What a request may send: a decimal string or a JSON safe integer. The number member only takes
 * safe integers: a query parameter arrives as text that the number member may claim first, and
 * "1838415606846308416" read as a number is no longer the same id; refused there, it falls to the
 * string member intact.
 */
export const Int64 = Schema.Union([Schema.String, Schema.Number.check(Schema.isInt())]).pipe(
  Schema.decodeTo(Int64String, {
    decode: SchemaGetter.transform((input: string | number) =>
      typeof input === "number" ? (Number.isSafeInteger(input) ? String(input) : "not-an-int64") : input
    ),
    encode: SchemaGetter.transform((text: string) => text)
  })
)

/**
 * A cursor, tick or page bound a client sends back to a feed: an int64 that is not negative (every
 * tick and id the service hands out is positive, and 0 means "from the start").
 */
export const Cursor = Int64.check(
  Schema.makeFilter<string>((text) => !text.startsWith("-") || "must not be negative", {
    expected: "a 64-bit integer from 0 up, as a decimal string"
  })
).annotate({ description: "Non-negative 64-bit integer as a decimal string" })

/** An id used as a filter (an app, a terminal): ids the service mints start at 1. */
export const PositiveId = Int64.check(
  Schema.makeFilter<string>((text) => (!text.startsWith("-") && text !== "0") || "must be at least 1", {
    expected: "a 64-bit integer from 1 up, as a decimal string"
  })
).annotate({ description: "Positive 64-bit integer as a decimal string" })

export const WalletId = Int64.pipe(Schema.brand("WalletId"))
export type WalletId = typeof WalletId.Type
export const WalletIdOut = Int64String.pipe(Schema.brand("WalletId"))

export const ClientId = Int64.pipe(Schema.brand("ClientId"))
export type ClientId = typeof ClientId.Type
export const ClientIdOut = Int64String.pipe(Schema.brand("ClientId"))

export const TxId = Int64.pipe(Schema.brand("TxId"))
export type TxId = typeof TxId.Type
export const TxIdOut = Int64String.pipe(Schema.brand("TxId"))

export const AppId = Int64.pipe(Schema.brand("AppId"))
export type AppId = typeof AppId.Type
export const AppIdOut = Int64String.pipe(Schema.brand("AppId"))

export const TerminalId = Int64.pipe(Schema.brand("TerminalId"))
export type TerminalId = typeof TerminalId.Type
export const TerminalIdOut = Int64String.pipe(Schema.brand("TerminalId"))

/** Ids and ticks built inside the service are minted through these, never by casting at call sites. */
export const walletId = (value: bigint | string): WalletId => String(value) as WalletId
export const clientId = (value: bigint | string): ClientId => String(value) as ClientId
export const txId = (value: bigint | string): TxId => String(value) as TxId
export const appId = (value: bigint | string): AppId => String(value) as AppId
export const terminalId = (value: bigint | string): TerminalId => String(value) as TerminalId

/** An id the service made itself (a timetick, a row's id) as the branded string messages carry. */
export const asTxId = (id: bigint | string): typeof TxIdOut.Type => String(id) as typeof TxIdOut.Type
export const asWalletId = (id: bigint | string): typeof WalletIdOut.Type => String(id) as typeof WalletIdOut.Type
