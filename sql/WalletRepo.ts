/** Wallets and clients. */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { Bool, decodeAll, decodeFirst, decodeOne, Int, Int8, record, Text } from "./Decoding.ts"

/** A wallet as repositories hand it out. */
export const Wallet = record({
  id: Int8,
  clientId: Int8,
  project: Int,
  walletGroup: Int,
  flags: Int,
  name: Text,
  sortOrder: Int,
  maxAddrCount: Int,
  address: Text,
  timetickUpdate: Int8
})
export type Wallet = typeof Wallet.Type

const wallets = decodeAll(Wallet)
const firstWallet = decodeFirst(Wallet)
const oneWallet = decodeOne(Wallet)

export interface WalletPatch {
  /** The whole bitfield (update_wallet), or null to keep it. */
  readonly flags: number | null
  /** Bits to set and to clear atomically in SQL (settings, security): no read-modify-write race. */
  readonly flagsSet?: number
  readonly flagsClear?: number
  readonly walletGroup: number | null
  readonly project: number | null
  readonly maxAddrCount: number | null
  readonly name: string | null
  readonly sortOrder: number | null
}

const columns =
  "id, client_id, project, wallet_group, flags, name, sort_order, max_addr_count, address, timetick_update"

export const walletById = (id: string | bigint) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(sql`SELECT ${sql.literal(columns)} FROM wallets WHERE id = ${id}`, firstWallet)
  )

export const listWallets = (options: {
  readonly clientId?: string | undefined
  readonly fromId?: string | undefined
  readonly limit: number
}) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(
      sql`SELECT ${sql.literal(columns)} FROM wallets
      WHERE id > 0
        ${options.clientId !== undefined ? sql`AND client_id = ${options.clientId}` : sql``}
        ${options.fromId !== undefined ? sql`AND id > ${options.fromId}` : sql``}
      ORDER BY id LIMIT ${options.limit}`,
      wallets
    )
  )

export const walletsOfClient = (clientId: string | bigint) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(
      sql`SELECT ${sql.literal(columns)} FROM wallets WHERE client_id = ${clientId} AND id > 0 ORDER BY sort_order, id`,
      wallets
    )
  )

const NextId = record({ id: Int8 })
const nextId = decodeOne(NextId)

export const nextWalletId = SqlClient.SqlClient.use((sql) =>
  Effect.map(sql`SELECT nextval('wallet_ids') AS id`, (rows) => nextId(rows).id)
)

export const upsertClient = (client: {
  readonly id: string
  readonly crmId: string | null
  readonly phone: string | null
  readonly messengerId: string | null
}) =>
  SqlClient.SqlClient.use(
    (sql) =>
      sql`INSERT INTO clients (id, crm_id, phone, messenger_id)
      VALUES (${client.id}, ${client.crmId}, ${client.phone}, ${client.messengerId})
      ON CONFLICT (id) DO UPDATE SET
        crm_id = COALESCE(EXCLUDED.crm_id, clients.crm_id),
        phone = COALESCE(EXCLUDED.phone, clients.phone),
        messenger_id = COALESCE(EXCLUDED.messenger_id, clients.messenger_id)`
  )

const presence = decodeOne(record({ present: Bool }))

export const clientHasDefault = (clientId: string) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(
      sql`SELECT EXISTS (SELECT 1 FROM wallets WHERE client_id = ${clientId} AND (flags & 16) <> 0) AS present`,
      (rows) => presence(rows).present
    )
  )

export const insertWallet = (wallet: Omit<Wallet, "maxAddrCount">) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(
      sql`INSERT INTO wallets (id, client_id, project, wallet_group, flags, name, sort_order, address, timetick_update)
      VALUES (${wallet.id}, ${wallet.clientId}, ${wallet.project}, ${wallet.walletGroup}, ${wallet.flags}, ${wallet.name},
        ${wallet.sortOrder}, ${wallet.address}, ${wallet.timetickUpdate})
      RETURNING ${sql.literal(columns)}`,
      oneWallet
    )
  )

/** Applies a null-keeps patch; a new IsDefault clears the flag on the owner's other wallets first. */
export const patchWallet = (id: string, patch: WalletPatch, tick: bigint) =>
  SqlClient.SqlClient.use((sql) =>
    sql.withTransaction(
      Effect.gen(function* () {
        // A new default locks all the owner's wallets, in id order and before anything else, so two
        // concurrent default changes serialize (no deadlock) and reconcile to exactly one default.
        // client_id is immutable, so reading it unlocked first is safe.
        const [target] = yield* sql<{ client_id: bigint }>`SELECT client_id FROM wallets WHERE id = ${id}`
        if (target === undefined) return undefined
        if ((patch.flags !== null && (patch.flags & 16) !== 0) || ((patch.flagsSet ?? 0) & 16) !== 0) {
          yield* sql`SELECT id FROM wallets WHERE client_id = ${target.client_id} ORDER BY id FOR UPDATE`
          yield* sql`UPDATE wallets SET flags = flags & ~16, timetick_update = ${tick}
          WHERE client_id = ${target.client_id} AND id <> ${id} AND (flags & 16) <> 0`
        }
        const rows = yield* sql`UPDATE wallets SET
          flags = (COALESCE(${patch.flags}::integer, flags) | ${patch.flagsSet ?? 0}::integer) & ~${patch.flagsClear ?? 0}::integer,
          wallet_group = COALESCE(${patch.walletGroup}::smallint, wallet_group),
          project = COALESCE(${patch.project}::integer, project),
          max_addr_count = COALESCE(${patch.maxAddrCount}::integer, max_addr_count),
          name = COALESCE(${patch.name}::text, name),
          sort_order = COALESCE(${patch.sortOrder}::integer, sort_order),
          timetick_update = ${tick}
        WHERE id = ${id}
        RETURNING ${sql.literal(columns)}`
        return firstWallet(rows)
      })
    )
  )

export const findWalletByAddress = (address: string) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(sql`SELECT ${sql.literal(columns)} FROM wallets WHERE address = ${address}`, firstWallet)
  )

/** For RecipientRepo's joins: the wallet's columns and their decoder. */
export const walletColumns = columns
export const firstWalletOf = firstWallet
