/**
 * The card reconciliation's pass on the test clock (issue #24 item 4; src/services/payments/acquiring/AcquiringReconcile.ts,
 * every ACQUIRING_RECONCILE_SECONDS = 30 here, asking about sessions Pending for ACQUIRING_RECONCILE_AFTER_SECONDS = 60):
 * the job is built on effect's TestClock over the real database, the payment order actor (TestRunner) and the
 * sandbox acquirer, so the sessions' age is measured on the clock the test moves. A card session opened after
 * the start-up pass and approved at the sandbox with its webhook lost (test card 4000000000000077) is not asked
 * about by the beat at which it is younger than 60 s, nor between beats, but by the first beat after it is 60 s
 * old, whose pass settles the order from the acquirer's answer. The over-HTTP proof is
 * test/integration/payments-card-reconcile.test.ts.
 */
import { assert, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { TestRunner } from "effect/cluster"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"
import { PaymentOrderEntityLayer } from "../../actors/payment/Behaviour.ts"
import { PaymentOrderEntity } from "../../actors/payment/Protocol.ts"
import { WalletEntityLayer } from "../../actors/wallet/Behaviour.ts"
import { SystemWallet } from "../../sql/Ledger.ts"
import { ChangeNotices } from "../../src/platform/ChangeNotices.ts"
import { Tariffs } from "../../src/platform/Tariffs.ts"
import { AccountKeys } from "../../src/platform/crypto/AccountKeys.ts"
import { Secrets } from "../../src/platform/Secrets.ts"
import { Rates } from "../../src/services/exchange/Rates.ts"
import { TimeTicks } from "../../src/platform/TimeTicks.ts"
import { Terminals } from "../../src/services/crypto/Terminals.ts"
import { Acquirer } from "../../src/services/payments/acquiring/Acquirer.ts"
import { AcquirerSecret } from "../../src/services/payments/acquiring/AcquirerSecret.ts"
import { AcquiringReconcileCron } from "../../src/services/payments/acquiring/AcquiringReconcile.ts"
import { PaymentCards } from "../../src/services/payments/acquiring/PaymentCards.ts"
import {
  SandboxAcquirerLayer,
  SandboxCheckout,
  TestCards
} from "../../src/services/payments/acquiring/SandboxAcquirer.ts"
import { PaymentOrders } from "../../src/services/payments/PaymentOrders.ts"
import { ActorPlatform, auditLedger, ledgerOf, newTxId, newWallet } from "../support/Actors.ts"
import { lastBeatOf, until } from "../support/JobPasses.ts"

const period = 30_000
const after = 60_000
const USDT = "USDT"
const micro = (n: number) => BigInt(Math.round(n * 1e6))

class Orders extends Context.Service<Orders, Effect.Success<typeof PaymentOrderEntity.client>>()("test/CardOrders") {}

const TestLayer = Layer.effect(Orders, PaymentOrderEntity.client).pipe(
  Layer.provideMerge(PaymentCards.layer),
  Layer.provideMerge(SandboxAcquirerLayer),
  Layer.provideMerge(PaymentOrders.layer),
  Layer.provideMerge(AcquirerSecret.layer),
  Layer.provideMerge(
    Layer.mergeAll(Rates.layer, Secrets.layer, Layer.succeed(AccountKeys)(AccountKeys.fromKeys(new Map())))
  ),
  Layer.provideMerge(Layer.mergeAll(WalletEntityLayer, PaymentOrderEntityLayer)),
  Layer.provideMerge(TestRunner.layer),
  Layer.provideMerge(
    Layer.mergeAll(Terminals.layer, TimeTicks.layer, Tariffs.layer.pipe(Layer.provide(ChangeNotices.layer)))
  ),
  Layer.provideMerge(ActorPlatform)
)

/** The card offer the order actor commits (as payment-card-commit.test.ts): 10 USDT + 0.6 fee. */
const offer = {
  terminalId: 100_100n,
  method: "CardAcquiring" as const,
  rate: "1",
  spreadPct: "0",
  payCurrency: USDT,
  payAmount: micro(10),
  fee: micro(0.6),
  profitWallet: SystemWallet.Fees,
  available: true
}

const session = (acquiringId: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const [row] = yield* sql<{ status: string; checked: boolean; created_ms: string }>`
      SELECT status, checked_at IS NOT NULL AS checked,
        (extract(epoch FROM created_at) * 1000)::bigint::text AS created_ms
      FROM acquiring_sessions WHERE acquiring_id = ${acquiringId}`.pipe(Effect.orDie)
    return { status: row!.status, checked: row!.checked, createdMs: Number(row!.created_ms) }
  })

const lastBeat = lastBeatOf("AcquiringReconcile")
const beatAt = (ms: number) => Math.floor(ms / period)

/** Moves the clock to `at`, a beat: to just before it, real time for any pass in flight, then onto it. */
const toBeat = (at: number) =>
  Effect.gen(function* () {
    yield* TestClock.setTime(at - 1)
    yield* TestClock.withLive(Effect.sleep("1 second"))
    yield* TestClock.adjust(1)
    yield* until(
      `the pass of beat ${beatAt(at)}`,
      Effect.map(lastBeat, (beat) => beat === beatAt(at))
    )
    // Real time for the pass itself (its claim is what `lastBeat` sees).
    yield* TestClock.withLive(Effect.sleep("500 millis"))
  })

layer(TestLayer, { excludeTestServices: true, timeout: 90_000 })(
  "the card reconciliation's pass on the test clock",
  (it) => {
    it.effect("the first beat's pass after the session is 60 s old, and only it, settles its lost approval", () =>
      Effect.gen(function* () {
        const orders = yield* Orders
        const acquirer = yield* Acquirer
        const checkout = yield* SandboxCheckout
        const beat0 = Math.floor(Date.now() / period) * period
        yield* TestClock.setTime(beat0 + 1)
        yield* Layer.build(AcquiringReconcileCron)
        yield* until(
          "the start-up pass",
          Effect.map(lastBeat, (beat) => beat === beatAt(beat0))
        )

        // An order paid by card: the order's Pending session, opened at the sandbox, approved there with the
        // webhook lost (only reconciliation can find it).
        const merchant = yield* newWallet()
        const txId = newTxId()
        const order = orders(String(txId))
        yield* order.Create({
          appId: 88n,
          externalId: `recon-${txId}`,
          requestHash: "h",
          merchantWallet: merchant,
          codeHash: new TextEncoder().encode(`recon-${txId}`),
          code: `Precon${txId}`,
          currency: USDT,
          orderAmount: micro(10),
          expiresAt: new Date(Date.now() + 86_400_000),
          description: null,
          returnUrlSuccess: null,
          returnUrlFail: null,
          webhookUrl: null
        })
        const acquiringId = `acq_recon_${txId}`
        yield* order.PayCard({ offer, acquiringId })
        const { createdMs } = yield* session(acquiringId)
        yield* acquirer.openSession({
          acquiringId,
          amount: "10.6",
          currency: USDT,
          description: null,
          successUrl: "http://shop.example/ok",
          failUrl: "http://shop.example/fail",
          expiresAt: new Date(createdMs + 900_000)
        })
        const answer = yield* checkout.submit(acquiringId, {
          cardNumber: TestCards.approveWebhookLost,
          expiry: "12/40",
          cvc: "123"
        })
        assert.strictEqual(answer.outcome, "Approved")
        assert.deepInclude(yield* session(acquiringId), { status: "Pending", checked: false })

        // The first beat at which the session is 60 s old on the clock, and the one before it.
        const due = Math.ceil((createdMs + after) / period) * period
        yield* toBeat(due - period)
        assert.deepInclude(yield* session(acquiringId), { status: "Pending", checked: false }, "younger than 60 s")
        yield* TestClock.adjust(period - 1)
        yield* TestClock.withLive(Effect.sleep("500 millis"))
        assert.strictEqual(yield* lastBeat, beatAt(due - period), "no pass between beats")
        assert.deepInclude(yield* session(acquiringId), { status: "Pending", checked: false })
        yield* TestClock.adjust(1)
        yield* until(
          "the session Approved by the beat's pass",
          Effect.map(session(acquiringId), (s) => s.status === "Approved" && s.checked)
        )
        assert.strictEqual(yield* lastBeat, beatAt(due))
        assert.strictEqual((yield* ledgerOf(merchant, USDT)).free, micro(10), "the merchant paid once")
        yield* auditLedger("after the card reconciliation")
      }).pipe(Effect.scoped, Effect.provide(TestClock.layer()))
    )
  }
)
