/** Private rooms and their members. */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import {
  DecimalText,
  decodeAll,
  decodeFirst,
  decodeOne,
  Int,
  Int8,
  Nullable,
  record,
  Text,
  Timestamp
} from "./Decoding.ts"

/** A private room as repositories hand it out; `toBalanceLimit` is a NUMERIC in currency units (exact text). */
export const Room = record({
  roomKey: Int8,
  currency1: Text,
  currency2: Text,
  flags: Int,
  toBalanceLimit: Nullable(DecimalText),
  owner: Int8,
  shareCode: Text,
  closedAt: Nullable(Timestamp),
  createdAt: Timestamp
})
export type Room = typeof Room.Type

const rooms = decodeAll(Room)
const firstRoom = decodeFirst(Room)
const count = decodeOne(record({ n: Int8 }))

const columns =
  "room_key, currency1, currency2, flags, to_balance_limit::text AS to_balance_limit, owner, share_code, closed_at, created_at"

export const findRoom = (roomKey: string) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(sql`SELECT ${sql.literal(columns)} FROM rooms WHERE room_key = ${roomKey}`, firstRoom)
  )

export const findRoomByCode = (code: string) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(sql`SELECT ${sql.literal(columns)} FROM rooms WHERE share_code = ${code}`, firstRoom)
  )

/**
 * Creates a room and its owner's membership unless the owner already has `max` open rooms: the
 * owner's wallet row is locked first, so concurrent creations count one after the other.
 */
export const createRoom = (room: {
  readonly roomKey: string
  readonly currency1: string
  readonly currency2: string
  readonly flags: number
  readonly toBalanceLimit: string | null
  readonly owner: string
  readonly shareCode: string
  readonly max: number
}) =>
  SqlClient.SqlClient.use((sql) =>
    sql.withTransaction(
      Effect.gen(function* () {
        yield* sql`SELECT id FROM wallets WHERE id = ${room.owner} FOR UPDATE`
        const open = count(
          yield* sql`SELECT count(*) AS n FROM rooms WHERE owner = ${room.owner} AND closed_at IS NULL`
        )
        if (Number(open.n) >= room.max) return false
        yield* sql`INSERT INTO rooms (room_key, currency1, currency2, flags, to_balance_limit, owner, share_code)
        VALUES (${room.roomKey}, ${room.currency1}, ${room.currency2}, ${room.flags}, ${room.toBalanceLimit}, ${room.owner}, ${room.shareCode})`
        yield* sql`INSERT INTO room_members (room_key, wallet_id) VALUES (${room.roomKey}, ${room.owner})`
        return true
      })
    )
  )

export const closeRoom = (roomKey: string) =>
  SqlClient.SqlClient.use(
    (sql) => sql`UPDATE rooms SET closed_at = now() WHERE room_key = ${roomKey} AND closed_at IS NULL`
  )

export const addMember = (roomKey: string, walletId: string) =>
  SqlClient.SqlClient.use(
    (sql) => sql`INSERT INTO room_members (room_key, wallet_id) VALUES (${roomKey}, ${walletId}) ON CONFLICT DO NOTHING`
  )

export const isMember = (roomKey: string, walletId: string) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(
      sql`SELECT 1 AS one FROM room_members m JOIN rooms r USING (room_key)
      WHERE m.room_key = ${roomKey} AND m.wallet_id = ${walletId} AND r.closed_at IS NULL`,
      (rows) => rows.length > 0
    )
  )

/** Open rooms the wallet owns or joined, newest first. */
export const roomsOfWallet = (walletId: string) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(
      sql`SELECT ${sql.literal(
        columns
          .split(", ")
          .map((c) => "r." + c)
          .join(", ")
      )} FROM rooms r
      JOIN room_members m ON m.room_key = r.room_key
      WHERE m.wallet_id = ${walletId} AND r.closed_at IS NULL ORDER BY r.room_key DESC`,
      rooms
    )
  )
