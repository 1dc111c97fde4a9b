/**
 * The chain actor's replan when a payment order changed between the push's reads and its commit
 * (C16 crypto incomes in the tx_list_push commit): the order's row update is conditional on its state
 * and version, so the push commit fails (LC409, StateConflict), is planned again from fresh reads and
 * commits what the order now says — Processing with the income when the order was only touched, a
 * plain Income of the merchant when cancel_crypto had sent it back to Created. A ledger writer that
 * runs the interference just before the first push commit carrying an order update makes the race
 * deterministic. Real database, the actors on the cluster runtime, the ledger audit after each.
 */
import { assert, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { TestRunner } from "effect/cluster"
import { SqlClient } from "effect/sql"
import { ChainEntityLayer } from "../../actors/chain/Behaviour.ts"
import { ChainEntity } from "../../actors/chain/Protocol.ts"
import { cancelCrypto, payCrypto } from "../../actors/payment/Engine.ts"
import { orderUpdateRow, stateOfRow } from "../../actors/payment/OrderRow.ts"
import { WalletEntityLayer } from "../../actors/wallet/Behaviour.ts"
import { type LedgerOperation, rowsOf } from "../../sql/Ledger.ts"
import { paymentOrderByTx } from "../../sql/PaymentOrderRepo.ts"
import { PaymentOrderAddressDetaches } from "../../sql/rows/PaymentCryptoRows.ts"
import { PaymentOrderInserts } from "../../sql/rows/PaymentRows.ts"
import { ChangeNotices } from "../../src/platform/ChangeNotices.ts"
import { LedgerWriter } from "../../src/platform/LedgerWriter.ts"
import { Tariffs } from "../../src/platform/Tariffs.ts"
import { TimeTicks } from "../../src/platform/TimeTicks.ts"
import { ActorPlatform, auditLedger, LedgerFaults, newWallet } from "../support/Actors.ts"

/** Runs once, just before the next commit whose `extra` carries a payment_order_update. */
let interference: Effect.Effect<void> | undefined

const carriesOrderUpdate = (op: LedgerOperation) =>
  (op.extra ?? []).some((e) => (e.rows ?? []).some((r) => r.kind.name === "payment_order_update"))

const InterferingLedger = Layer.effect(
  LedgerWriter,
  Effect.gen(function* () {
    const real = yield* LedgerWriter
    return LedgerWriter.of({
      ...real,
      commit: (op) =>
        Effect.suspend(() => {
          const before = interference
          if (before === undefined || !carriesOrderUpdate(op)) return real.commit(op)
          interference = undefined
          return Effect.andThen(before, real.commit(op))
        })
    })
  })
)

class Chains extends Context.Service<Chains, Effect.Success<typeof ChainEntity.client>>()("test/OrderChains") {}

const TestLayer = Layer.effect(Chains, ChainEntity.client).pipe(
  Layer.provideMerge(Layer.mergeAll(ChainEntityLayer, WalletEntityLayer)),
  Layer.provideMerge(TestRunner.layer),
  Layer.provideMerge(Layer.mergeAll(TimeTicks.layer, Tariffs.layer.pipe(Layer.provide(ChangeNotices.layer)))),
  Layer.provideMerge(InterferingLedger.pipe(Layer.provideMerge(ActorPlatform)))
)

const ONE = 10n ** 18n
let next = 1

/** A crypto terminal, a merchant, an order Started on the terminal and its attached purpose-1 address. */
const fixture = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const ledger = yield* LedgerWriter
  const n = next++
  const [t] = yield* sql<{ id: string }>`INSERT INTO terminals (type_network, type_contract, currency, decimals, flags,
      confirmations, address_contract)
    VALUES (2, 1, 'ETH', 18, 3, 2, ${"0x" + String(n).padStart(40, "0")}) RETURNING id::text AS id`.pipe(Effect.orDie)
  const terminalId = BigInt(t.id)
  const merchant = yield* newWallet()
  const orderTxId = 8_000_000_000_000_000n + BigInt(n)
  yield* ledger
    .commit({
      tx: {
        id: orderTxId,
        typeTx: 20,
        txState: 1,
        walletFrom: merchant,
        walletTo: merchant,
        currency: "ETH",
        amount: ONE,
        fee: 0n,
        tag: null,
        appId: 1n,
        externalId: null,
        requestHash: null
      },
      postings: [],
      rows: [
        rowsOf(PaymentOrderInserts, [
          {
            txId: orderTxId,
            appId: 1n,
            externalId: `o${n}`,
            requestHash: "h",
            kind: "PaymentOrder" as const,
            codeHash: new Uint8Array([n, 1, 2]),
            code: null,
            merchantWallet: merchant,
            stateCode: 1,
            currency: "ETH",
            orderAmount: ONE,
            fee: 0n,
            profitWallet: -2n,
            expiresAt: new Date(Date.now() + 3_600_000),
            description: null,
            returnUrlSuccess: null,
            returnUrlFail: null,
            webhookUrl: null
          }
        ])
      ]
    })
    .pipe(Effect.orDie)
  const created = (yield* paymentOrderByTx(orderTxId).pipe(Effect.orDie))!
  const started = payCrypto(
    stateOfRow(created),
    {
      terminal: { terminalId, method: "CryptoTransfer", rate: "1", spreadPct: "0" },
      payCurrency: "ETH",
      payAmount: ONE,
      fee: 0n,
      profitWallet: -2n,
      available: true
    },
    Date.now()
  )
  if (started._tag === "Reject") return yield* Effect.die(started.rule)
  yield* ledger
    .commit({
      transition: { id: orderTxId, from: 1, to: 1 },
      postings: [],
      rows: [orderUpdateRow(created, stateOfRow(created), started.state)]
    })
    .pipe(Effect.orDie)
  const address = "0x" + String(n).padStart(4, "0").repeat(10)
  const [a] = yield* sql<{
    id: string
  }>`INSERT INTO crypto_addresses (type_network, wallet_id, derivation_index, address,
      address_key, purpose, tick) VALUES (2, ${String(merchant)}, ${900_000 + n}, ${address}, ${address}, 1, 0)
    RETURNING id::text AS id`.pipe(Effect.orDie)
  yield* sql`INSERT INTO payment_order_addresses (address_id, order_tx_id, terminal_id)
    VALUES (${a.id}, ${String(orderTxId)}, ${t.id})`.pipe(Effect.orDie)
  return { terminal: t.id, merchant, orderTxId, address }
})

const lockIn = (walletId: bigint) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ lock_in: string }>`SELECT lock_in::text AS lock_in FROM balances
      WHERE wallet_id = ${String(walletId)} AND currency = 'ETH'`.pipe(Effect.orDie)
    return BigInt(rows[0]?.lock_in ?? "0")
  })

const takenIncomes = (orderTxId: bigint) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM payment_order_incomes
      WHERE order_tx_id = ${String(orderTxId)}`.pipe(Effect.orDie)
    return rows[0].n
  })

const incomeTo = (address: string) => ({
  txHash: `tx${next++}`,
  index: 0n,
  direction: "in" as const,
  from: null,
  fromKey: null,
  to: address,
  toKey: address,
  memo: null,
  amount: ONE,
  txId: null
})

layer(TestLayer, { excludeTestServices: true, timeout: 120_000 })("chain actor: an order changed meanwhile", (it) => {
  it.effect("the order's row moved on (its version): the push is planned again and the order takes the income", () =>
    Effect.gen(function* () {
      const f = yield* fixture
      const faults = yield* LedgerFaults
      const sql = yield* SqlClient.SqlClient
      yield* faults.reset
      interference = sql`UPDATE payment_orders SET version = version + 1 WHERE tx_id = ${String(f.orderTxId)}`.pipe(
        Effect.asVoid,
        Effect.orDie
      )
      const pushed = yield* (yield* Chains)(f.terminal).PushBlock({
        height: 1n,
        hash: "a1",
        parentHash: "a0",
        items: [incomeTo(f.address)]
      })
      assert.strictEqual(faults.attempts(), 2, "refused once (LC409), committed on the second plan")
      assert.strictEqual(pushed.items[0].walletId, f.merchant)
      const order = (yield* paymentOrderByTx(f.orderTxId).pipe(Effect.orDie))!
      assert.deepInclude(order, { stateCode: 3, incomeSeen: ONE, version: 3n })
      assert.strictEqual(yield* lockIn(f.merchant), ONE)
      assert.strictEqual(yield* takenIncomes(f.orderTxId), 1)
      yield* auditLedger("order touched meanwhile")
    })
  )

  it.effect("cancel_crypto won meanwhile: planned again, the income is a plain Income of the merchant", () =>
    Effect.gen(function* () {
      const f = yield* fixture
      const faults = yield* LedgerFaults
      const ledger = yield* LedgerWriter
      const sql = yield* SqlClient.SqlClient
      yield* faults.reset
      interference = Effect.gen(function* () {
        const row = (yield* paymentOrderByTx(f.orderTxId).pipe(Effect.orDie))!
        const d = cancelCrypto(stateOfRow(row), Date.now())
        if (d._tag === "Reject") return yield* Effect.die(d.rule)
        yield* ledger
          .commit({
            transition: { id: f.orderTxId, from: 1, to: 1 },
            postings: [],
            rows: [
              orderUpdateRow(row, stateOfRow(row), d.state),
              rowsOf(PaymentOrderAddressDetaches, [{ orderTxId: f.orderTxId }])
            ]
          })
          .pipe(Effect.orDie)
      }).pipe(Effect.provideService(SqlClient.SqlClient, sql))
      const pushed = yield* (yield* Chains)(f.terminal).PushBlock({
        height: 1n,
        hash: "b1",
        parentHash: "b0",
        items: [incomeTo(f.address)]
      })
      // The interference's own commit, the refused push, the push planned again.
      assert.strictEqual(faults.attempts(), 3)
      assert.strictEqual(pushed.items[0].walletId, f.merchant)
      const order = (yield* paymentOrderByTx(f.orderTxId).pipe(Effect.orDie))!
      assert.deepInclude(order, { stateCode: 1, incomeSeen: 0n, terminalId: null })
      assert.strictEqual(yield* lockIn(f.merchant), ONE, "the plain Income's lock_in")
      assert.strictEqual(yield* takenIncomes(f.orderTxId), 0)
      yield* auditLedger("cancel won meanwhile")
    })
  )
})
