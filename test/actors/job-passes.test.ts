/**
 * A durable job's pass driven on the test clock (issue #24 item 4): the payment-expiry sweep's periodic job
 * (src/services/payments/PaymentExpiry.ts, every PAYMENT_SWEEP_SECONDS = 5 here) is built with effect's TestClock over the
 * real database and the payment order actor (TestRunner). Its start-up pass runs at once; an order that falls due
 * afterwards is expired by the next beat's pass, which runs when the test moves the clock by one period — not
 * after five real seconds — and not before. The webhook dispatcher (src/services/payments/MerchantWebhooks.ts, every 500 ms)
 * the same way: an order created after its start-up pass has its Created event POSTed, signed, by the next beat's
 * pass. The over-HTTP proofs of the same jobs are test/integration/payments-expiry.test.ts and
 * payments-webhooks*.test.ts; the schedule itself is test/actors/periodic-job.test.ts. The other durable jobs'
 * passes, on TestClock the same way: job-passes-invest.test.ts (investment sweep and actor, both reading the
 * clock), job-passes-reconcile.test.ts (card reconciliation, session ages on the clock) and
 * job-passes-federation.test.ts (federation reconciliation against a real partner service).
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
import { PaymentExpirySweep } from "../../src/services/payments/PaymentExpiry.ts"
import { MerchantWebhooks, WebhookDispatcher } from "../../src/services/payments/MerchantWebhooks.ts"
import { AppConfigService, limits } from "../../src/platform/Config.ts"
import { Secrets } from "../../src/platform/Secrets.ts"
import { insertApp } from "../../sql/CredentialRepo.ts"
import { setAppWebhook } from "../../sql/WebhookRepo.ts"
import { webhookSignature } from "../../src/platform/Signing.ts"
import { ActorPlatform, auditLedger, newTxId, newWallet } from "../support/Actors.ts"
import { startReceiver } from "../support/WebhookReceiver.ts"
import { passesOf, until } from "../support/JobPasses.ts"

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

/** A Created order of 1 USDT of `appId`, due `dueInMs` from now (Create takes any expiresAt; put_payment_order checks it). */
const newOrder = (appId: bigint, dueInMs: number) =>
  Effect.gen(function* () {
    const orders = yield* Orders
    const merchant = yield* newWallet()
    const txId = newTxId()
    yield* orders(String(txId)).Create({
      appId,
      externalId: `due-${txId}`,
      requestHash: "h",
      merchantWallet: merchant,
      codeHash: new TextEncoder().encode(`due-${txId}`),
      code: `Pdue${txId}`,
      currency: "USDT",
      orderAmount: 1_000_000n,
      expiresAt: new Date(Date.now() + dueInMs),
      description: null,
      returnUrlSuccess: null,
      returnUrlFail: null,
      webhookUrl: null
    })
    return txId
  })
const dueOrder = newOrder(77n, -1_000)

/** The dispatcher's layers, with private receiver addresses allowed (the receiver is this process). */
const HookLayer = MerchantWebhooks.layer.pipe(
  Layer.provideMerge(Secrets.layer),
  Layer.provide(
    Layer.effect(
      AppConfigService,
      Effect.map(AppConfigService, (config) => ({ ...config, webhookAllowPrivateAddresses: true }))
    )
  ),
  Layer.provideMerge(TestLayer)
)

layer(HookLayer, { excludeTestServices: true, timeout: 60_000 })("durable jobs' passes on the test clock", (it) => {
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

  it.effect("the next beat's pass, and only it, POSTs the Created event of an order made after the start-up pass", () =>
    Effect.gen(function* () {
      const rx = yield* Effect.acquireRelease(
        Effect.promise(() => startReceiver()),
        (r) => Effect.promise(() => r.close())
      )
      const secrets = yield* Secrets
      const sql = yield* SqlClient.SqlClient
      const appId = 990_000n + newTxId()
      const secret = "whsec_job-passes"
      const owner = yield* newWallet()
      yield* insertApp(
        String(appId),
        String(owner),
        "job passes",
        new Uint8Array(32),
        secrets.seal("apps.webhook_secret", secret)
      ).pipe(Effect.orDie)
      yield* setAppWebhook(String(appId), rx.url("/jobs"), null).pipe(Effect.orDie)
      const period = limits.webhookDispatchMs
      yield* TestClock.setTime(Math.floor(Date.now() / period) * period + 1)
      yield* Layer.build(WebhookDispatcher)
      yield* until(
        "the start-up pass",
        Effect.map(passesOf("MerchantWebhookDispatcher"), (n) => n === 1)
      )
      const txId = yield* newOrder(appId, 3_600_000)
      const [event] = yield* sql<{
        state: string
      }>`SELECT state FROM webhook_events WHERE order_tx_id = ${String(txId)}`.pipe(Effect.orDie)
      assert.strictEqual(event?.state, "Pending", "the order's Created event waits for a pass")
      yield* TestClock.withLive(Effect.sleep("500 millis"))
      assert.strictEqual(rx.on("/jobs").length, 0, "no pass before the beat")
      yield* TestClock.adjust(period)
      yield* until(
        "the Created event POSTed",
        Effect.sync(() => rx.on("/jobs").length === 1)
      )
      const got = rx.on("/jobs")[0]!
      assert.strictEqual(got.event.type, "PaymentOrder.Created")
      const timestamp = Number(got.headers["x-webhook-timestamp"])
      assert.strictEqual(
        got.headers["x-webhook-signature"],
        webhookSignature(secret, timestamp, got.raw.toString("utf8"))
      )
      yield* until(
        "the event Delivered",
        Effect.map(
          sql<{ state: string }>`SELECT state FROM webhook_events WHERE order_tx_id = ${String(txId)}`.pipe(
            Effect.orDie
          ),
          (rows) => rows[0]?.state === "Delivered"
        )
      )
    }).pipe(Effect.scoped, Effect.provide(TestClock.layer()))
  )
})
