/**
 * Private rooms (SPEC "Room create request", market rule 2, CONTRACT C14): at most five open per
 * creator, joined with apply_code on the share code, closed by the owner (the room's actor cancels
 * and unlocks every open order). Public room `0` of every pair always exists.
 */
import { Context, Effect, Layer } from "effect"
import { randomBytes } from "node:crypto"
import { canonicalPair, RoomEntity, roomEntityId } from "../../../actors/room/Protocol.ts"
import {
  addMember,
  closeRoom,
  createRoom,
  findRoom,
  findRoomByCode,
  type Room,
  roomsOfWallet
} from "../../../sql/RoomRepo.ts"
import type { RoomIn, RoomOut } from "../../../schema/Exchange.ts"
import {
  CurrencyNotEnabled,
  InvalidRequest,
  MaxRoomsExceeded,
  NotRoomOwner,
  RateLimited,
  RoomNotFound,
  UnknownCurrency
} from "../../../schema/Errors.ts"
import { limits } from "../../platform/Config.ts"
import { makeDb } from "../../platform/db/Sql.ts"
import { TimeTicks } from "../../platform/TimeTicks.ts"
import { Currencies } from "../../platform/Currencies.ts"
import { delivered } from "../../platform/Delivery.ts"

/** Room share codes start with R (transfer codes with C), so apply_code tells them apart. */
export const isRoomCode = (code: string): boolean => code.startsWith("R")

export class Rooms extends Context.Service<
  Rooms,
  {
    readonly create: (
      walletId: string,
      input: RoomIn
    ) => Effect.Effect<RoomOut, UnknownCurrency | CurrencyNotEnabled | InvalidRequest | MaxRoomsExceeded>
    readonly list: (walletId: string) => Effect.Effect<ReadonlyArray<RoomOut>>
    readonly close: (
      walletId: string,
      roomKey: string
    ) => Effect.Effect<{ roomKey: string; cancelledOrders: number }, RoomNotFound | NotRoomOwner | RateLimited>
    /** apply_code with a share code: the room key joined, or undefined for no such open room. */
    readonly join: (walletId: string, code: string) => Effect.Effect<string | undefined>
  }
>()("core/Rooms") {
  static readonly layer = Layer.effect(
    Rooms,
    Effect.gen(function* () {
      const db = yield* makeDb
      const ticks = yield* TimeTicks
      const currencies = yield* Currencies
      const roomActor = yield* RoomEntity.client

      const toOut = (room: Room, walletId: string): RoomOut => ({
        roomKey: String(room.roomKey),
        currency1: room.currency1,
        currency2: room.currency2,
        flags: room.flags,
        toBalanceLimit: room.toBalanceLimit,
        isOwner: String(room.owner) === walletId,
        shareCode: room.shareCode,
        createdAt: room.createdAt.toISOString()
      })

      const create = Effect.fn("Rooms.create")(function* (walletId: string, input: RoomIn) {
        yield* currencies.requireExchange(input.currency1, "currency1")
        yield* currencies.requireExchange(input.currency2, "currency2")
        if (input.currency1 === input.currency2)
          return yield* new InvalidRequest({ message: "currency2: must differ from currency1" })
        const roomKey = String(ticks.next())
        const created = yield* db(
          createRoom({
            roomKey,
            currency1: input.currency1,
            currency2: input.currency2,
            flags: input.flags ?? 0,
            toBalanceLimit: input.toBalanceLimit ?? null,
            owner: walletId,
            shareCode: "R" + randomBytes(16).toString("base64url"),
            max: limits.privateRoomsPerCreator
          })
        )
        if (!created) {
          return yield* new MaxRoomsExceeded({
            message: `currency1: this wallet already has ${limits.privateRoomsPerCreator} open private rooms`
          })
        }
        return toOut((yield* db(findRoom(roomKey)))!, walletId)
      })

      const close = Effect.fn("Rooms.close")(function* (walletId: string, roomKey: string) {
        const room = yield* db(findRoom(roomKey))
        if (room === undefined || room.closedAt !== null)
          return yield* new RoomNotFound({ message: `roomId: no open room ${roomKey}` })
        if (String(room.owner) !== walletId)
          return yield* new NotRoomOwner({ message: "roomId: only the room's owner may close it" })
        // Closed in SQL first: no new order is accepted; then the room's actor unlocks what is open.
        yield* db(closeRoom(roomKey))
        const { base, quote } = canonicalPair(room.currency1, room.currency2)
        const { cancelled } = yield* roomActor(roomEntityId(roomKey, base, quote))
          .Close()
          .pipe(delivered)
        return { roomKey, cancelledOrders: cancelled }
      })

      const join = (walletId: string, code: string) =>
        Effect.gen(function* () {
          const room = yield* db(findRoomByCode(code))
          if (room === undefined || room.closedAt !== null) return undefined
          yield* db(addMember(String(room.roomKey), walletId))
          return String(room.roomKey)
        })

      return Rooms.of({
        create: create as any,
        list: (walletId) => Effect.map(db(roomsOfWallet(walletId)), (rows) => rows.map((row) => toOut(row, walletId))),
        close: close as any,
        join
      })
    })
  )
}
