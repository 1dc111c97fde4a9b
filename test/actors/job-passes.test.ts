/**
 * A durable job's pass driven on the test clock (issue #24 item 4): the payment-expiry sweep's periodic job
 * (src/services/PaymentExpiry.ts, every PAYMENT_SWEEP_SECONDS = 5 here) is built with effect's TestClock over the
 * real database and the payment order actor (TestRunner). Its start-up pass runs at once; an order that falls due
 * afterwards is expired by the next beat's pass, which runs when the test moves the clock by one period — not
 * after five real seconds — and not before. The over-HTTP proof of the same sweep is
 * test/integration/payments-expiry.test.ts; the schedule itself is test/actors/periodic-job.test.ts.
 */
import { assert, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { TestRunner } from "effect/cluster"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"
import { PaymentOrderEntityLayer } from "../../actors/payment/Behaviour.ts"
import { PaymentOrderEntity } from "../../actors/payment/Protocol.ts"
import { WalletEntityLayer } from "../../actors/wallet/Behaviour.ts"
import { ChangeNotices } from "../../src/platform/ChangeNotices.ts"
import { Tariffs } from "../../src/platform/Tariffs.ts"
import { PaymentExpirySweep } from "../../src/services/PaymentExpiry.ts"
import { ActorPlatform, auditLedger, newTxId, newWallet } from "../support/Actors.ts"

class Orders extends Context.Service<Orders, Effect.Success<typeof PaymentOrderEntity.client>>()("test/JobOrders") {}

const TestLayer = Layer.effect(Orders, PaymentOrderEntity.client).pipe(
  Layer.provideMerge(Layer.mergeAll(WalletEntityLayer, PaymentOrderEntityLayer)),
  Layer.provideMerge(TestRunner.layer),
  Layer.provideMerge(Tariffs.layer.pipe(Layer.provide(ChangeNotices.layer))),
  Layer.provideMerge(ActorPlatform)
)

const stateOf = (txId: bigint) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const [row] = yield* sql<{ state_code: number }>`SELECT state_code FROM payment_orders WHERE tx_id = ${String(
      txId
    )}`.pipe(Effect.orDie)
    return row?.state_code
  })

const passesOf = (job: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const [row] = yield* sql<{ passes: string }>`SELECT passes::text AS passes FROM job_leases WHERE job = ${job}`.pipe(
      Effect.orDie
    )
    return Number(row?.passes ?? 0)
  })

/** Waits (real time: database round trips) until `done`, at most 10 s. */
const until = <E, R>(what: string, done: Effect.Effect<boolean, E, R>) =>
  TestClock.withLive(
    Effect.gen(function* () {
      for (let waited = 0; waited < 10_000; waited += 100) {
        if (yield* done) return
        yield* Effect.sleep("100 millis")
      }
      assert.fail(`not within 10 s: ${what}`)
    })
  )

/** A Created order of 1 USDT, due a second ago (Create takes any expiresAt; put_payment_order checks it). */
const dueOrder = Effect.gen(function* () {
  const orders = yield* Orders
  const merchant = yield* newWallet()
  const txId = newTxId()
  yield* orders(String(txId)).Create({
    appId: 77n,
    externalId: `due-${txId}`,
    requestHash: "h",
    merchantWallet: merchant,
    codeHash: new TextEncoder().encode(`due-${txId}`),
    code: `Pdue${txId}`,
    currency: "USDT",
    orderAmount: 1_000_000n,
    expiresAt: new Date(Date.now() - 1_000),
    description: null,
    returnUrlSuccess: null,
    returnUrlFail: null,
    webhookUrl: null
  })
  return txId
})

layer(TestLayer, { excludeTestServices: true, timeout: 60_000 })("a durable job's pass on the test clock", (it) => {
  it.effect("the expiry sweep's next beat, and only it, expires an order that fell due after the start-up pass", () =>
    Effect.gen(function* () {
      // At the start of a 5 s beat: the next beat is 5 s of the clock away.
      yield* TestClock.setTime(Math.floor(Date.now() / 5_000) * 5_000 + 1)
      yield* Layer.build(PaymentExpirySweep)
      yield* until(
        "the start-up pass",
        Effect.map(passesOf("PaymentExpirySweep"), (n) => n === 1)
      )
      const txId = yield* dueOrder
      assert.strictEqual(yield* stateOf(txId), 1, "Created")
      yield* TestClock.adjust("4 seconds")
      yield* TestClock.withLive(Effect.sleep("500 millis"))
      assert.strictEqual(yield* stateOf(txId), 1, "no pass before the beat")
      yield* TestClock.adjust("1 second")
      yield* until(
        "the order Expired by the beat's pass",
        Effect.map(stateOf(txId), (code) => code === 16)
      )
      assert.strictEqual(yield* passesOf("PaymentExpirySweep"), 2)
      yield* auditLedger("after the sweep")
    }).pipe(Effect.scoped, Effect.provide(TestClock.layer()))
  )
})
