/** Wallet shapes: WalletInfo (SPEC), flags (CONTRACT C11), balances (GetBalanceOut). */
import { Schema } from "effect"
import { ClientId, ClientIdOut, Int64String, WalletId, WalletIdOut } from "./Ids.ts"

export const WalletFlag = {
  WalletBlock: 1,
  InnerTransferBlock: 2,
  Deleted: 4,
  Require2FA: 8,
  IsDefault: 16
} as const
export const walletFlagsMask = 31
/** Flags under which a wallet may not send money. */
export const sendBlockingFlags = WalletFlag.WalletBlock | WalletFlag.InnerTransferBlock | WalletFlag.Deleted

export const walletGroupMax = 63
export const nameLengthMax = 100

const Flags = Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: walletFlagsMask })).annotate({
  description: "Bitfield: WalletBlock 1, InnerTransferBlock 2, Deleted 4, Require2FA 8, IsDefault 16"
})
const WalletGroup = Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: walletGroupMax }))
const SmallInt = Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 2_000_000_000 }))
const Name = Schema.String.check(Schema.isMaxLength(nameLengthMax))

export const WalletInfo = Schema.Struct({
  id: WalletIdOut,
  client_id: ClientIdOut,
  timetick_update: Schema.NullOr(Int64String),
  flags: Schema.Int,
  wallet_group: Schema.Int,
  project: Schema.Int,
  max_addr_count: Schema.Int,
  name: Schema.String,
  sort_order: Schema.Int,
  address: Schema.String.annotate({ description: "Internal wallet address (starts with W)" })
}).annotate({ identifier: "WalletInfo" })
export type WalletInfo = typeof WalletInfo.Type

/** update_wallet body: id plus the fields to change; null (or absent) keeps the current value. */
export const WalletInfoIn = Schema.Struct({
  id: WalletId,
  client_id: Schema.optional(Schema.Unknown).annotate({ description: "Ignored on write" }),
  timetick_update: Schema.optional(Schema.Unknown).annotate({ description: "Ignored on write" }),
  flags: Schema.optional(Schema.NullOr(Flags)),
  wallet_group: Schema.optional(Schema.NullOr(WalletGroup)),
  project: Schema.optional(Schema.NullOr(SmallInt)),
  max_addr_count: Schema.optional(Schema.NullOr(SmallInt)),
  name: Schema.optional(Schema.NullOr(Name)),
  sort_order: Schema.optional(Schema.NullOr(SmallInt))
}).annotate({ identifier: "WalletInfoIn" })
export type WalletInfoIn = typeof WalletInfoIn.Type

export const CreateWalletIn = Schema.Struct({
  clientId: ClientId,
  name: Schema.optional(Name),
  project: Schema.optional(SmallInt),
  walletGroup: Schema.optional(WalletGroup),
  crmId: Schema.optional(Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(64))),
  phone: Schema.optional(Schema.String.check(Schema.isPattern(/^\+[0-9]{6,15}$/))),
  messengerId: Schema.optional(Schema.String.check(Schema.isPattern(/^@[A-Za-z0-9_.]{1,64}$/)))
}).annotate({ identifier: "CreateWalletIn" })
export type CreateWalletIn = typeof CreateWalletIn.Type

export const UpdateSettingsIn = Schema.Struct({
  name: Schema.optional(Schema.NullOr(Name)),
  sortOrder: Schema.optional(Schema.NullOr(SmallInt)),
  isDefault: Schema.optional(Schema.NullOr(Schema.Boolean))
}).annotate({ identifier: "UpdateSettingsIn" })
export type UpdateSettingsIn = typeof UpdateSettingsIn.Type

export const SetSecurityIn = Schema.Struct({ require2FA: Schema.Boolean })

export const WalletInfoOut = Schema.Struct({
  wallet: WalletInfo,
  siblings: Schema.Array(WalletInfo).annotate({ description: "The owner's other wallets" })
}).annotate({ identifier: "WalletInfoOut" })

export const GetBalanceOut = Schema.Struct({
  currency: Schema.String,
  freeBalance: Schema.Number,
  lockOutBalance: Schema.Number,
  lockInBalance: Schema.Number,
  lockOrders: Schema.Number,
  userBalance: Schema.Number,
  userBalanceBaseEqu: Schema.NullOr(Schema.Number).annotate({
    description: "userBalance in the base currency (EUR); null when no rate can be derived"
  })
}).annotate({ identifier: "GetBalanceOut" })

export const GetWalletsQuery = {
  client_id: Schema.optional(ClientId),
  limit: Schema.optional(
    Schema.NumberFromString.check(Schema.isInt(), Schema.isBetween({ minimum: 1, maximum: 1000 }))
  ),
  from_id: Schema.optional(WalletId)
}
