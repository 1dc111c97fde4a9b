/**
 * Payment orders' deposit addresses (C16 pay_crypto, C15 purpose 1) and the Incomes orders took:
 * allocation of an order's address with its link in one SQL transaction (a derived address takes the
 * network's next index as sql/AddressRepo.ts does; a memo record takes a fresh memo of purpose 1), the
 * chain actor's reads, and the gate's view of an address (what arrived, its confirmations).
 */
import { Data, Effect } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import { numberArray, textArray } from "./ArrayLiterals.ts"
import { decodeAll, decodeFirst, decodeOne, Int, Int8, MinorUnits, Nullable, record, Text } from "./Decoding.ts"

/** An order's attached address on a terminal. */
export const OrderAddress = record({
  addressId: Int8,
  orderTxId: Int8,
  terminalId: Int8,
  typeNetwork: Int,
  address: Text,
  addressKey: Text,
  memo: Nullable(Text),
  claimedTxHash: Nullable(Text)
})
export type OrderAddress = typeof OrderAddress.Type

const columns = `l.address_id, l.order_tx_id, l.terminal_id, a.type_network, a.address, a.address_key, a.memo, l.claimed_tx_hash`
const from = `payment_order_addresses l JOIN crypto_addresses a ON a.id = l.address_id`
const firstAddress = decodeFirst(OrderAddress)

/** The order's attached address on the terminal, if any. */
export const attachedAddressOf = (orderTxId: bigint, terminalId: bigint) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(
      sql`SELECT ${sql.literal(columns)} FROM ${sql.literal(from)}
      WHERE l.order_tx_id = ${orderTxId} AND l.terminal_id = ${terminalId} AND NOT l.detached`,
      firstAddress
    )
  )

class Abandon extends Data.TaggedError("OrderAddressAbandoned")<{ readonly existing: boolean | "limit" }> {}

/**
 * C19 §9 inside the allocation's transaction: the order's detached address on this terminal is attached
 * again (true: nothing new is made), else a new one may be made only while the order has fewer than
 * `max` addresses over its life, detached ones counted (false: go on; "limit": refuse).
 */
const reuseOrCount = (sql: SqlClient.SqlClient, orderTxId: bigint, terminalId: bigint, max: number) =>
  Effect.gen(function* () {
    const again = yield* sql`UPDATE payment_order_addresses SET detached = false
      WHERE address_id = (SELECT address_id FROM payment_order_addresses
        WHERE order_tx_id = ${orderTxId} AND terminal_id = ${terminalId} AND detached
        ORDER BY created_at DESC, address_id DESC LIMIT 1)
      AND detached
      AND NOT EXISTS (SELECT 1 FROM payment_order_addresses
        WHERE order_tx_id = ${orderTxId} AND terminal_id = ${terminalId} AND NOT detached)
      RETURNING address_id`
    if (again.length > 0) return true as const
    const [counted] = yield* sql<{
      n: string
    }>`SELECT count(*)::text AS n FROM payment_order_addresses WHERE order_tx_id = ${orderTxId}`
    return Number(counted?.n ?? 0) >= max ? ("limit" as const) : (false as const)
  })

/** How many addresses the order was given (detached ones counted) and whether one is on this terminal. */
export const orderAddressCount = (orderTxId: bigint, terminalId: bigint) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(
      sql<{ n: string; here: boolean }>`SELECT count(*)::text AS n,
        coalesce(bool_or(terminal_id = ${terminalId}), false) AS here
        FROM payment_order_addresses WHERE order_tx_id = ${orderTxId}`,
      (rows) => ({ count: Number(rows[0]?.n ?? 0), onTerminal: rows[0]?.here === true })
    )
  )

const nextIndex = decodeOne(record({ idx: Int }))
const inserted = decodeOne(record({ id: Int8 }))

/**
 * Reserves a purpose-1 address for the order on the terminal, in one transaction with its link: the
 * order's attached address when one exists (the transaction then rolls back, counter step included),
 * else a new one. Derived networks: the network's next index (its counter row lock orders concurrent
 * allocations, so a second call reads the first one's link). Memo networks: `memo` as a new purpose-1
 * memo of the wallet and a memo record at the terminal's hot address; undefined when the memo is
 * taken (the caller retries with another).
 */
export const reserveOrderAddress = (input: {
  readonly orderTxId: bigint
  readonly terminalId: bigint
  readonly walletId: bigint
  readonly typeNetwork: number
  readonly tick: bigint
  /** C19 §9 PAYMENT_MAX_ADDRESSES_PER_ORDER. */
  readonly maxAddresses: number
  readonly derived?: (index: number) => { readonly address: string; readonly addressKey: string }
  readonly memo?: { readonly memo: string; readonly address: string; readonly addressKey: string }
}) =>
  SqlClient.SqlClient.use((sql) =>
    sql
      .withTransaction(
        Effect.gen(function* () {
          let addressId: bigint
          if (firstAddress(yield* attachedQuery(sql, input.orderTxId, input.terminalId)) !== undefined)
            return yield* new Abandon({ existing: true })
          const reused = yield* reuseOrCount(sql, input.orderTxId, input.terminalId, input.maxAddresses)
          if (reused === true) return true
          if (reused === "limit") return yield* new Abandon({ existing: "limit" })
          if (input.derived !== undefined) {
            const { idx } = nextIndex(
              yield* sql`INSERT INTO address_counters (type_network, next_index) VALUES (${input.typeNetwork}, 1)
              ON CONFLICT (type_network) DO UPDATE SET next_index = address_counters.next_index + 1
              RETURNING next_index - 1 AS idx`
            )
            if (firstAddress(yield* attachedQuery(sql, input.orderTxId, input.terminalId)) !== undefined)
              return yield* new Abandon({ existing: true })
            const { address, addressKey } = input.derived(idx)
            addressId = inserted(
              yield* sql`INSERT INTO crypto_addresses (type_network, wallet_id, derivation_index, address, address_key, purpose, tick)
              VALUES (${input.typeNetwork}, ${input.walletId}, ${idx}, ${address}, ${addressKey}, 1, ${input.tick})
              RETURNING id`
            ).id
          } else {
            const m = input.memo!
            if (firstAddress(yield* attachedQuery(sql, input.orderTxId, input.terminalId)) !== undefined)
              return yield* new Abandon({ existing: true })
            const memo =
              yield* sql`INSERT INTO memos (memo, wallet_id, purpose) VALUES (${m.memo}, ${input.walletId}, 1)
              ON CONFLICT DO NOTHING RETURNING memo`
            if (memo.length === 0) return yield* new Abandon({ existing: false })
            addressId = inserted(
              yield* sql`INSERT INTO crypto_addresses (type_network, wallet_id, terminal_id, address, address_key, memo, purpose, tick)
              VALUES (${input.typeNetwork}, ${input.walletId}, ${input.terminalId}, ${m.address}, ${m.addressKey}, ${m.memo}, 1, ${input.tick})
              RETURNING id`
            ).id
          }
          const linked = yield* sql`INSERT INTO payment_order_addresses (address_id, order_tx_id, terminal_id)
            VALUES (${addressId}, ${input.orderTxId}, ${input.terminalId})
            ON CONFLICT (order_tx_id, terminal_id) WHERE NOT detached DO NOTHING RETURNING address_id`
          if (linked.length === 0) return yield* new Abandon({ existing: true })
          return true
        })
      )
      .pipe(
        Effect.catchTag("OrderAddressAbandoned", (a) => Effect.succeed(a.existing)),
        Effect.flatMap(
          (done): Effect.Effect<OrderAddress | "limit" | undefined, SqlError.SqlError, SqlClient.SqlClient> =>
            done === "limit"
              ? Effect.succeed("limit" as const)
              : done
                ? attachedAddressOf(input.orderTxId, input.terminalId)
                : Effect.succeed(undefined)
        )
      )
  )

const attachedQuery = (sql: SqlClient.SqlClient, orderTxId: bigint, terminalId: bigint) =>
  sql`SELECT ${sql.literal(columns)} FROM ${sql.literal(from)}
    WHERE l.order_tx_id = ${orderTxId} AND l.terminal_id = ${terminalId} AND NOT l.detached`

/**
 * For the chain actor: the attached order addresses of a terminal that a block's in items may pay —
 * derived ones by address key (the network's key index), memo records by memo (the terminal's memo
 * index; they all share the hot address's key).
 */
export const orderAddressesAmong = (
  terminal: { readonly id: bigint; readonly typeNetwork: number; readonly memoNetwork: boolean },
  keys: ReadonlyArray<string>,
  memos: ReadonlyArray<string>
) =>
  SqlClient.SqlClient.use((sql) =>
    (terminal.memoNetwork ? memos : keys).length === 0
      ? Effect.succeed([] as ReadonlyArray<OrderAddress>)
      : Effect.map(
          sql`SELECT ${sql.literal(columns)} FROM ${sql.literal(from)}
          WHERE ${
            terminal.memoNetwork
              ? sql`a.terminal_id = ${terminal.id} AND a.memo = ANY (${textArray(memos)}::text[])`
              : sql`a.type_network = ${terminal.typeNetwork} AND a.derivation_index IS NOT NULL
                  AND a.address_key = ANY (${textArray(keys)}::text[])`
          } AND l.terminal_id = ${terminal.id} AND NOT l.detached`,
          decodeAll(OrderAddress)
        )
  )

export const OrderIncomeLink = record({ incomeTxId: Int8, orderTxId: Int8 })
export type OrderIncomeLink = typeof OrderIncomeLink.Type

/** For the chain actor: which of these Incomes an order took as its payment. */
export const ordersOfIncomes = (incomeTxIds: ReadonlyArray<bigint>) =>
  SqlClient.SqlClient.use((sql) =>
    incomeTxIds.length === 0
      ? Effect.succeed([] as ReadonlyArray<OrderIncomeLink>)
      : Effect.map(
          sql`SELECT income_tx_id, order_tx_id FROM payment_order_incomes
          WHERE income_tx_id = ANY (${numberArray(incomeTxIds)}::bigint[])`,
          decodeAll(OrderIncomeLink)
        )
  )

export const OrderFinalIncome = record({
  incomeTxId: Int8,
  orderTxId: Int8,
  amount: MinorUnits,
  txState: Int,
  stage: Text
})
export type OrderFinalIncome = typeof OrderFinalIncome.Type

/**
 * The Finished Incomes these orders took (their Σ is the order's incomeFinal): an underpaid order that
 * expires turns each into a plain C15 Income of the merchant wallet (docs/PAYMENTS.md "Underpaid crypto").
 */
export const finalIncomesOfOrders = (orderTxIds: ReadonlyArray<bigint>) =>
  SqlClient.SqlClient.use((sql) =>
    orderTxIds.length === 0
      ? Effect.succeed([] as ReadonlyArray<OrderFinalIncome>)
      : Effect.map(
          sql`SELECT i.income_tx_id, i.order_tx_id, t.amount::text AS amount, t.tx_state, c.stage
          FROM payment_order_incomes i
          JOIN transactions t ON t.id = i.income_tx_id
          JOIN crypto_txs c ON c.tx_id = i.income_tx_id
          WHERE i.order_tx_id = ANY (${numberArray(orderTxIds)}::bigint[]) AND t.tx_state = 8
          ORDER BY i.income_tx_id`,
          decodeAll(OrderFinalIncome)
        )
  )

export const Received = record({ amount: MinorUnits, lastHeight: Nullable(Int8), tipHeight: Nullable(Int8) })
export type Received = typeof Received.Type

/**
 * What the chain shows at an address on a terminal: Σ of its in items in the current chain (memo
 * networks: with the address's memo), the height of the newest one and the terminal's tip.
 */
export const receivedAt = (terminalId: bigint, addressKey: string, memo: string | null) =>
  SqlClient.SqlClient.use((sql) =>
    Effect.map(
      sql`SELECT coalesce(sum(i.amount), 0)::text AS amount, max(i.block_height) AS last_height,
        (SELECT tip_height FROM chain_heads WHERE terminal_id = ${terminalId}) AS tip_height
      FROM chain_items i
      WHERE i.terminal_id = ${terminalId} AND i.direction = 0 AND NOT i.orphaned AND i.to_key = ${addressKey}
        AND (${memo}::text IS NULL OR i.memo = ${memo})`,
      decodeOne(Received)
    )
  )
