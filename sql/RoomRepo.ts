/** Private rooms and their members. */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export interface RoomRow {
  readonly room_key: bigint
  readonly currency1: string
  readonly currency2: string
  readonly flags: number
  readonly to_balance_limit: string | null
  readonly owner: bigint
  readonly share_code: string
  readonly closed_at: Date | null
  readonly created_at: Date
}

const columns = "room_key, currency1, currency2, flags, to_balance_limit::text AS to_balance_limit, owner, share_code, closed_at, created_at"

export const findRoom = (roomKey: string) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(sql<RoomRow>`SELECT ${sql.literal(columns)} FROM rooms WHERE room_key = ${roomKey}`, (rows) => rows[0]))

export const findRoomByCode = (code: string) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(sql<RoomRow>`SELECT ${sql.literal(columns)} FROM rooms WHERE share_code = ${code}`, (rows) => rows[0]))

/**
 * Creates a room and its owner's membership unless the owner already has `max` open rooms: the
 * owner's wallet row is locked first, so concurrent creations count one after the other.
 */
export const createRoom = (room: {
  readonly roomKey: string; readonly currency1: string; readonly currency2: string; readonly flags: number
  readonly toBalanceLimit: string | null; readonly owner: string; readonly shareCode: string; readonly max: number
}) =>
  SqlClient.SqlClient.use((sql) =>
    sql.withTransaction(Effect.gen(function*() {
      yield* sql`SELECT id FROM wallets WHERE id = ${room.owner} FOR UPDATE`
      const [open] = yield* sql<{ n: bigint }>`SELECT count(*) AS n FROM rooms WHERE owner = ${room.owner} AND closed_at IS NULL`
      if (Number(open.n) >= room.max) return false
      yield* sql`INSERT INTO rooms (room_key, currency1, currency2, flags, to_balance_limit, owner, share_code)
        VALUES (${room.roomKey}, ${room.currency1}, ${room.currency2}, ${room.flags}, ${room.toBalanceLimit}, ${room.owner}, ${room.shareCode})`
      yield* sql`INSERT INTO room_members (room_key, wallet_id) VALUES (${room.roomKey}, ${room.owner})`
      return true
    })))

export const closeRoom = (roomKey: string) =>
  SqlClient.SqlClient.use((sql) => sql`UPDATE rooms SET closed_at = now() WHERE room_key = ${roomKey} AND closed_at IS NULL`)

export const addMember = (roomKey: string, walletId: string) =>
  SqlClient.SqlClient.use((sql) =>
    sql`INSERT INTO room_members (room_key, wallet_id) VALUES (${roomKey}, ${walletId}) ON CONFLICT DO NOTHING`)

export const isMember = (roomKey: string, walletId: string) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(sql<{ one: number }>`SELECT 1 AS one FROM room_members m JOIN rooms r USING (room_key)
      WHERE m.room_key = ${roomKey} AND m.wallet_id = ${walletId} AND r.closed_at IS NULL`, (rows) => rows.length > 0))

/** Open rooms the wallet owns or joined, newest first. */
export const roomsOfWallet = (walletId: string) =>
  SqlClient.SqlClient.use((sql) =>
    sql<RoomRow>`SELECT ${sql.literal(columns.split(", ").map((c) => "r." + c).join(", "))} FROM rooms r
      JOIN room_members m ON m.room_key = r.room_key
      WHERE m.wallet_id = ${walletId} AND r.closed_at IS NULL ORDER BY r.room_key DESC`)
