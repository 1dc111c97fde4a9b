/** Reference data shapes: currencies, terminals (SPEC TerminalIn / WalletTerminalOut), rates, tariffs, fees. */
import { Schema, SchemaGetter } from "effect"
import { decimalInput, PositiveAmountParam } from "./Money.ts"
import { Int64, Int64String, TerminalId, TerminalIdOut, WalletId, WalletIdOut } from "./Ids.ts"

export const CurrencyCode = Schema.String.check(Schema.isPattern(/^[A-Z0-9]{2,12}$/)).annotate({
  description: "Currency code (2-12 upper-case letters or digits)"
})

/** A boolean query parameter: true/false/1/0. */
export const BooleanQuery = Schema.Literals(["true", "false", "1", "0"]).pipe(
  Schema.decodeTo(Schema.Boolean, {
    decode: SchemaGetter.transform((text: "true" | "false" | "1" | "0") => text === "true" || text === "1"),
    encode: SchemaGetter.transform((value: boolean) => (value ? "true" : "false") as "true" | "false")
  })
)

export const CurrencyOut = Schema.Struct({
  currency: Schema.String,
  name: Schema.String,
  decimals: Schema.Int,
  exchangeEnabled: Schema.Boolean,
  isBase: Schema.Boolean
}).annotate({ identifier: "CurrencyOut" })
export type CurrencyOut = typeof CurrencyOut.Type

// Terminals ---------------------------------------------------------------------------------

/** Network types (type_network). SPEC fixes Internal = 240; the rest are ours. */
export const NetworkType = {
  Bitcoin: 1,
  Ethereum: 2,
  Tron: 3,
  BnbSmartChain: 4,
  Solana: 5,
  Ton: 6,
  Card: 100,
  BankWire: 101,
  Internal: 240
} as const
/** Contract types (type_contract). SPEC fixes SelfWalletTransfer = 234; the rest are ours. */
export const ContractType = {
  Base: 0,
  ERC20: 1,
  TRC20: 2,
  BEP20: 3,
  EVM: 4,
  SPL: 5,
  Jetton: 6,
  SelfWalletTransfer: 234
} as const
/** Terminal flags: what the terminal may be used for. */
export const TerminalFlag = { Deposit: 1, Withdraw: 2, Hidden: 4, RequirePartnerInfo: 8 } as const

const SmallText = (max: number) => Schema.String.check(Schema.isMaxLength(max))
const WalletGroups = Schema.Array(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 63 }))).check(
  Schema.isMaxLength(64)
)
const NetworkFee = decimalInput({
  allowZero: true,
  fractionDigitsMax: 18,
  description: "Network fee in the currency, decimal"
})
const Flags = Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 15 })).annotate({
  description: "Deposit 1, Withdraw 2, Hidden 4, RequirePartnerInfo 8 (C15)"
})
/** C15: blocks a deposit needs to be final, 1..1000 (add_network default 6). */
export const confirmationsDefault = 6
const Confirmations = Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 1000 })).annotate({
  description: "Confirmations a deposit needs (1..1000, default 6)"
})

/** add_network: every field authoritative. */
export const TerminalCreateIn = Schema.Struct({
  typeNetwork: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 239 })),
  typeContract: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 233 })),
  currencyId: CurrencyCode,
  decimals: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 18 })),
  addressContract: Schema.optional(Schema.NullOr(SmallText(128))),
  name: Schema.optional(Schema.NullOr(SmallText(100))),
  tag: Schema.optional(Schema.NullOr(SmallText(100))),
  priority: Schema.optional(Schema.NullOr(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 1_000_000 })))),
  networkFee: Schema.optional(Schema.NullOr(NetworkFee)),
  displayName: Schema.optional(Schema.NullOr(SmallText(100))),
  iconCode: Schema.optional(Schema.NullOr(SmallText(64))),
  flags: Flags,
  defaultHotAddress: Schema.NullOr(SmallText(128)),
  defaultSystemWalletId: Schema.NullOr(WalletId),
  walletGroups: WalletGroups,
  confirmations: Schema.optional(Schema.NullOr(Confirmations))
}).annotate({ identifier: "TerminalCreateIn" })
export type TerminalCreateIn = typeof TerminalCreateIn.Type

/**
 * update_network (TerminalIn): identity fields (typeNetwork, typeContract, currencyId, decimals,
 * addressContract) and scanner fields are preserved whatever is sent; nullable attributes keep
 * their value on null and clear on "" or 0; flags, defaultHotAddress, defaultSystemWalletId and
 * walletGroups are always written.
 */
export const TerminalUpdateIn = Schema.Struct({
  id: TerminalId,
  typeNetwork: Schema.optional(Schema.Unknown),
  typeContract: Schema.optional(Schema.Unknown),
  currencyId: Schema.optional(Schema.Unknown),
  decimals: Schema.optional(Schema.Unknown),
  addressContract: Schema.optional(Schema.Unknown),
  lastBlock: Schema.optional(Schema.Unknown),
  name: Schema.optional(Schema.NullOr(SmallText(100))),
  tag: Schema.optional(Schema.NullOr(SmallText(100))),
  priority: Schema.optional(Schema.NullOr(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 1_000_000 })))),
  networkFee: Schema.optional(Schema.NullOr(Schema.Union([Schema.Literal(""), NetworkFee]))),
  displayName: Schema.optional(Schema.NullOr(SmallText(100))),
  iconCode: Schema.optional(Schema.NullOr(SmallText(64))),
  flags: Flags,
  defaultHotAddress: Schema.NullOr(SmallText(128)),
  defaultSystemWalletId: Schema.NullOr(WalletId),
  walletGroups: WalletGroups,
  /** null keeps, 0 restores the default 6. */
  confirmations: Schema.optional(
    Schema.NullOr(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 1000 })))
  ).annotate({ description: "null keeps; 0 restores the default 6; else 1..1000" })
}).annotate({ identifier: "TerminalIn" })
export type TerminalUpdateIn = typeof TerminalUpdateIn.Type

/** The operator's full view of a terminal (private add_network / update_network answer). */
export const TerminalAdminOut = Schema.Struct({
  id: TerminalIdOut,
  typeNetwork: Schema.Int,
  typeContract: Schema.Int,
  currencyId: Schema.String,
  decimals: Schema.Int,
  addressContract: Schema.NullOr(Schema.String),
  name: Schema.NullOr(Schema.String),
  tag: Schema.NullOr(Schema.String),
  priority: Schema.NullOr(Schema.Int),
  networkFee: Schema.NullOr(Schema.String),
  displayName: Schema.NullOr(Schema.String),
  iconCode: Schema.NullOr(Schema.String),
  flags: Schema.Int,
  defaultHotAddress: Schema.NullOr(Schema.String),
  defaultSystemWalletId: Schema.NullOr(WalletIdOut),
  walletGroups: Schema.Array(Schema.Int),
  lastBlock: Schema.NullOr(Int64String),
  confirmations: Schema.Int,
  requirePartnerInfo: Schema.Boolean
}).annotate({ identifier: "TerminalOutAdmin" })
export type TerminalAdminOut = typeof TerminalAdminOut.Type

/** The curated wallet-facing terminal: no raw name, symbol or tag. */
export const WalletTerminalOut = Schema.Struct({
  id: TerminalIdOut,
  typeNetwork: Schema.Int,
  typeContract: Schema.Int,
  currency: Schema.String,
  decimals: Schema.Int,
  displayName: Schema.String,
  iconCode: Schema.NullOr(Schema.String),
  networkFee: Schema.NullOr(Schema.String),
  priority: Schema.Int,
  canDeposit: Schema.Boolean,
  canWithdraw: Schema.Boolean,
  confirmations: Schema.Int,
  requirePartnerInfo: Schema.Boolean
}).annotate({ identifier: "WalletTerminalOut" })
export type WalletTerminalOut = typeof WalletTerminalOut.Type

// Rates --------------------------------------------------------------------------------------

const RateText = decimalInput({
  allowZero: false,
  fractionDigitsMax: 20,
  description: "Units of `to` per unit of `from`, decimal"
})

export const RateIn = Schema.Struct({ from: CurrencyCode, to: CurrencyCode, rate: RateText })
export const SetRatesIn = Schema.Array(RateIn).check(Schema.isMinLength(1), Schema.isMaxLength(1000))

export const RateOut = Schema.Struct({
  from: Schema.String,
  to: Schema.String,
  rate: Schema.String.annotate({ description: "Units of `to` per unit of `from`, decimal string" }),
  via: Schema.Literals(["direct", "USDT", "BTC"]).annotate({ description: "How the rate was derived (SPEC rule 7)" })
}).annotate({ identifier: "RateOut" })
export type RateOut = typeof RateOut.Type

// Tariffs and fees ---------------------------------------------------------------------------

export const txClasses = [
  "InnerTransfer",
  "SelfTransfer",
  "Code",
  "Withdraw",
  "Deposit",
  "Exchange",
  "Swap",
  "Payment",
  "Payout",
  "Refund",
  "FederationTransfer"
] as const
export const TxClass = Schema.Literals(txClasses)
export type TxClass = typeof TxClass.Type

const FeeNumber = decimalInput({ allowZero: true, fractionDigitsMax: 18, description: "Non-negative decimal" })

export const TariffRule = Schema.Struct({
  txClass: TxClass,
  currency: CurrencyCode,
  walletGroup: Schema.optional(Schema.NullOr(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 63 })))),
  typeTx: Schema.optional(Schema.NullOr(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 255 })))),
  feeFixed: FeeNumber,
  feePercent: FeeNumber,
  minAmount: Schema.optional(Schema.NullOr(FeeNumber)),
  maxAmount: Schema.optional(Schema.NullOr(FeeNumber)),
  profitWalletId: Schema.optional(Schema.NullOr(WalletId))
}).annotate({ identifier: "TariffRule" })
export type TariffRule = typeof TariffRule.Type
export const SetTariffsIn = Schema.Array(TariffRule).check(Schema.isMaxLength(1000))

export const EstimateFeeQuery = {
  tx_type: Schema.String.check(Schema.isMaxLength(32)).annotate({
    description: "A tariff class name (InnerTransfer, Withdraw, ...) or a numeric typeTx"
  }),
  currency: CurrencyCode,
  amount: PositiveAmountParam,
  recipient: Schema.optional(Schema.String.check(Schema.isMaxLength(100)))
}

export const EstimateFeeOut = Schema.Struct({
  txClass: TxClass,
  currency: Schema.String,
  amount: Schema.Number,
  fee: Schema.Number,
  feeText: Schema.String.annotate({ description: "The fee as an exact decimal string" })
}).annotate({ identifier: "EstimateFeeOut" })

export const PublicInfo = Schema.Struct({
  status: Schema.Literal("ok"),
  version: Schema.String,
  serverTimeUTC: Schema.String,
  uptimeSeconds: Schema.Int
}).annotate({ identifier: "PublicInfo" })

export { Int64 }
