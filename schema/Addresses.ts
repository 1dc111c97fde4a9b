/**
 * Deposit addresses (CONTRACT C15 "Addresses"; SPEC "Address record"): the record a wallet is
 * answered, its technicalState of SPEC's 13 fields, the scanner's watch-list item, the queries, and
 * the enum names technicalState speaks in.
 */
import { Schema } from "effect"
import { Cursor, Int64String, TerminalId, TerminalIdOut, WalletIdOut } from "./Ids.ts"
import { BooleanQuery, ContractType, NetworkType } from "./Reference.ts"

const invert = (table: Readonly<Record<string, number>>): ReadonlyMap<number, string> =>
  new Map(Object.entries(table).map(([name, value]) => [value, name]))

const networkNames = invert(NetworkType)
const contractNames = invert(ContractType)

/** The enum name of a typeNetwork ("Ethereum"); an unnamed value as its number. */
export const networkName = (typeNetwork: number): string => networkNames.get(typeNetwork) ?? String(typeNetwork)
/** The enum name of a typeContract ("ERC20", "Base"); an unnamed value as its number. */
export const contractName = (typeContract: number): string => contractNames.get(typeContract) ?? String(typeContract)

/** C15: P2WPKH on Bitcoin, EOA on Ethereum, Tron and BnbSmartChain, Memo on Solana and Ton. */
export const TypeAddress = Schema.Literals(["P2WPKH", "EOA", "Memo"])
export type TypeAddress = typeof TypeAddress.Type

export const typeAddressOf = (typeNetwork: number): TypeAddress =>
  typeNetwork === NetworkType.Bitcoin
    ? "P2WPKH"
    : typeNetwork === NetworkType.Solana || typeNetwork === NetworkType.Ton
      ? "Memo"
      : "EOA"

/** C15: a withdrawal may be pinned to a client address only on Ethereum and BnbSmartChain with these contracts. */
export const sourceTransferSupported = (typeNetwork: number, typeContract: number): boolean =>
  (typeNetwork === NetworkType.Ethereum || typeNetwork === NetworkType.BnbSmartChain) &&
  (typeContract === ContractType.Base ||
    typeContract === ContractType.ERC20 ||
    typeContract === ContractType.BEP20 ||
    typeContract === ContractType.EVM)

/** SPEC's 13 fields, no more. Amounts in currency units; native fields null without a Base terminal. */
export const TechnicalState = Schema.Struct({
  tokenNetwork: TerminalIdOut,
  typeNetwork: Schema.String,
  typeContract: Schema.String,
  currency: Schema.String,
  technicalAmount: Schema.Number,
  nativeTokenNetwork: Schema.NullOr(TerminalIdOut),
  nativeTypeContract: Schema.NullOr(Schema.String),
  nativeCurrency: Schema.NullOr(Schema.String),
  nativeTechnicalAmount: Schema.NullOr(Schema.Number),
  hotApproved: Schema.Boolean,
  sourceTransferSupported: Schema.Boolean,
  timetickUpdate: Int64String,
  nativeTimetickUpdate: Schema.NullOr(Int64String)
}).annotate({ identifier: "TechnicalState" })
export type TechnicalState = typeof TechnicalState.Type

export const AddressOut = Schema.Struct({
  id: Int64String,
  address: Schema.String,
  typeAddress: TypeAddress,
  memo: Schema.NullOr(Schema.String),
  typeNetwork: Schema.Int,
  technicalState: Schema.NullOr(TechnicalState)
}).annotate({ identifier: "AddressOut" })
export type AddressOut = typeof AddressOut.Type

/** An item of the scanner's watch list (address_block_list). */
export const WatchedAddress = Schema.Struct({
  id: Int64String,
  address: Schema.String,
  memo: Schema.NullOr(Schema.String),
  walletId: WalletIdOut,
  typeNetwork: Schema.Int,
  derivationIndex: Schema.NullOr(Schema.Int),
  tick: Int64String
}).annotate({ identifier: "WatchedAddress" })
export type WatchedAddress = typeof WatchedAddress.Type

/** address_block_list's page size: 1..1000, default 1000. */
export const watchListLimitMax = 1000

export const CreateAddressQuery = {
  token_network: TerminalId,
  new: Schema.optional(BooleanQuery).annotate({ description: "true: allocate another derived address" })
}

export const ListAddressesQuery = {
  token_network: Schema.optional(TerminalId),
  includeTechnicalState: Schema.optional(BooleanQuery)
}

export const WatchListQuery = {
  tokenNetwork: TerminalId,
  cursor: Schema.optional(Cursor).annotate({ description: "Exclusive: items with a greater id (default 0)" }),
  limit: Schema.optional(
    Schema.NumberFromString.check(Schema.isInt(), Schema.isBetween({ minimum: 1, maximum: watchListLimitMax }))
  )
}
