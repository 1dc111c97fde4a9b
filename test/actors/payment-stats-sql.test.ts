/**
 * The daily statistics' SQL (sql/PaymentStatsRepo.ts, CONTRACT C16 "Daily statistics") on a migrated
 * database of its own, over rows no HTTP test can make: orders created on past days, at the edges of
 * a UTC day, and refunds (typeTx 19 transactions with app_id, which the refunds work adds). Rows are
 * written straight into this test's own database; the service never sees them.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { paymentStats } from "../../sql/PaymentStatsRepo.ts"
import { ActorPlatform, newTxId } from "../support/Actors.ts"

const DAY_MS = 86_400_000
const d1 = Date.UTC(2026, 2, 1) / DAY_MS // 2026-03-01
const at = (day: number, ms = 12 * 3_600_000) => new Date(day * DAY_MS + ms)

let nextTick = 8_000_000_000_000_000n

const tx = (typeTx: number, txState: number, appId: bigint | null, currency: string, amount: bigint, createdAt: Date) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const id = newTxId()
    yield* sql`INSERT INTO transactions (id, id_update, type_tx, tx_state, wallet_from, wallet_to, currency, amount, app_id, created_at)
      VALUES (${String(id)}, ${String(nextTick++)}, ${typeTx}, ${txState}, -1, 1, ${currency}, ${String(amount)},
        ${appId === null ? null : String(appId)}, ${createdAt})`.pipe(Effect.orDie)
    return id
  })

const order = (appId: bigint, stateCode: number, currency: string, amount: bigint, createdAt: Date, typeTx = 20) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const txState = stateCode >= 8 && stateCode <= 10 ? 8 : stateCode >= 16 ? 16 : 1
    const id = yield* tx(typeTx, txState, appId, currency, amount, createdAt)
    yield* sql`INSERT INTO payment_orders (tx_id, app_id, external_id, request_hash, kind, code_hash, merchant_wallet,
        state_code, currency, order_amount, profit_wallet, expires_at, created_at)
      VALUES (${String(id)}, ${String(appId)}, ${"x" + id}, 'h', ${typeTx === 20 ? "PaymentOrder" : "TransferOrder"},
        ${Buffer.from(String(id))}, 1, ${stateCode}, ${currency}, ${String(amount)}, 1, ${at(d1 + 30)}, ${createdAt})`.pipe(
      Effect.orDie
    )
  })

const U = 1_000_000n // USDT minor units
const row = (
  appId: bigint,
  day: number,
  currency: string,
  txType: number,
  total: number,
  finished: number,
  amount: bigint
) => ({
  appId,
  dayNumber: BigInt(day),
  day: new Date(day * DAY_MS).toISOString().slice(0, 10),
  currency,
  txType,
  total: BigInt(total),
  finished: BigInt(finished),
  amountFinished: amount
})

layer(ActorPlatform, { excludeTestServices: true, timeout: 120_000 })("payment statistics SQL", (it) => {
  it.effect(
    "per UTC day, app, currency and typeTx: orders by their state now, refunds by Finished; range and app filters",
    () =>
      Effect.gen(function* () {
        // App 501, day 1, USDT orders: Paid 1.5, PartiallyRefunded 2, Refunded 3 finish; Canceled 4, Created 5 do not.
        yield* order(501n, 8, "USDT", 1_500_000n, at(d1, 0)) // the day's first instant
        yield* order(501n, 9, "USDT", 2n * U, at(d1))
        yield* order(501n, 10, "USDT", 3n * U, at(d1))
        yield* order(501n, 17, "USDT", 4n * U, at(d1))
        yield* order(501n, 1, "USDT", 5n * U, at(d1, DAY_MS - 1)) // the day's last millisecond
        // A TransferOrder in EUR, paid.
        yield* order(501n, 8, "EUR", 1000n, at(d1), 21)
        // Refunds of app 501: one Finished 0.5, one pending 1; a Refund with no app is not a merchant's.
        yield* tx(19, 8, 501n, "USDT", 500_000n, at(d1))
        yield* tx(19, 1, 501n, "USDT", U, at(d1))
        yield* tx(19, 8, null, "USDT", 9n * U, at(d1))
        // App 502, day 1: an Expired order.
        yield* order(502n, 16, "USDT", 7n * U, at(d1))
        // App 501, day 2: a Paid order; days 0 and 3 fall outside the range asked.
        yield* order(501n, 8, "USDT", 6n * U, at(d1 + 1, 0))
        yield* order(501n, 8, "USDT", 8n * U, at(d1 - 1, DAY_MS - 1))
        yield* order(501n, 8, "USDT", 8n * U, at(d1 + 2, 0))

        const rows = yield* paymentStats(null, at(d1, 0), at(d1 + 2, 0))
        assert.deepStrictEqual(rows, [
          row(501n, d1, "EUR", 21, 1, 1, 1000n),
          row(501n, d1, "USDT", 19, 2, 1, 500_000n),
          row(501n, d1, "USDT", 20, 5, 3, 6_500_000n),
          row(502n, d1, "USDT", 20, 1, 0, 0n),
          row(501n, d1 + 1, "USDT", 20, 1, 1, 6n * U)
        ])
        const of502 = yield* paymentStats("502", at(d1 - 1, 0), at(d1 + 3, 0))
        assert.deepStrictEqual(of502, [row(502n, d1, "USDT", 20, 1, 0, 0n)])
        const of501 = yield* paymentStats("501", at(d1 - 1, 0), at(d1, 0))
        assert.deepStrictEqual(of501, [row(501n, d1 - 1, "USDT", 20, 1, 1, 8n * U)])
        assert.deepStrictEqual(yield* paymentStats("503", at(d1 - 1, 0), at(d1 + 3, 0)), [])
      }).pipe(Effect.orDie)
  )
})
