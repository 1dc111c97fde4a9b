/**
 * The federation reconciliation's pass on the test clock (issue #24 item 4; src/services/federation/FederationReconcile.ts,
 * every FEDERATION_RECONCILE_SECONDS = 60 here): our side is built in this process on effect's TestClock over
 * the real database (partners, partner orders and transfers, the wallet actor on TestRunner); the partner is a
 * real second service process (C18 over HTTP), as in test/integration/federation-reconcile.test.ts. A partner
 * order made after the start-up pass and paid on the partner, its webhook lost (our partner record holds a
 * secret the partner never signs with, and nothing of ours listens at its address), is not read back between
 * beats but by the next beat's pass, which credits it once. The over-HTTP proofs are
 * test/integration/federation-reconcile.test.ts and federation-reconcile-partners.test.ts.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { TestRunner } from "effect/cluster"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"
import { WalletEntityLayer } from "../../actors/wallet/Behaviour.ts"
import { asWalletId, clientId } from "../../schema/Ids.ts"
import { ChangeNotices } from "../../src/platform/ChangeNotices.ts"
import { Secrets } from "../../src/platform/Secrets.ts"
import { Tariffs } from "../../src/platform/Tariffs.ts"
import { TimeTicks } from "../../src/platform/TimeTicks.ts"
import { FederationOrders } from "../../src/services/federation/FederationOrders.ts"
import { FederationReconcileCron } from "../../src/services/federation/FederationReconcile.ts"
import { Partners } from "../../src/services/federation/Partners.ts"
import { PartnerTransfers } from "../../src/services/federation/PartnerTransfers.ts"
import { Journal } from "../../src/services/ledger/Journal.ts"
import { ActorPlatform, auditLedger, ledgerOf, newWallet } from "../support/Actors.ts"
import { federationEnv } from "../support/Federation.ts"
import { serviceForFile } from "../support/Fixtures.ts"
import { merchantOf } from "../support/Merchant.ts"
import { lastBeatOf, until } from "../support/JobPasses.ts"

const period = 60_000
const USDT = "USDT"

/** The partner: a real service of its own. */
const B = serviceForFile({ env: federationEnv() })

const TestLayer = PartnerTransfers.layer.pipe(
  Layer.provideMerge(FederationOrders.layer),
  Layer.provideMerge(Partners.layer),
  Layer.provideMerge(WalletEntityLayer),
  Layer.provideMerge(TestRunner.layer),
  Layer.provideMerge(
    Layer.mergeAll(
      TimeTicks.layer,
      Secrets.layer,
      Journal.layer,
      Tariffs.layer.pipe(Layer.provide(ChangeNotices.layer))
    )
  ),
  Layer.provideMerge(ActorPlatform)
)

const txStateOf = (txId: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const [row] = yield* sql<{ tx_state: number }>`SELECT tx_state FROM transactions WHERE id = ${txId}`.pipe(
      Effect.orDie
    )
    return row?.tx_state
  })

const lastBeat = lastBeatOf("FederationReconcile")
/** The partner's answers take longer: 15 s. */
const untilWithin = <E, R>(what: string, done: Effect.Effect<boolean, E, R>) => until(what, done, 15_000)
const beatAt = (ms: number) => Math.floor(ms / period)

layer(TestLayer, { excludeTestServices: true, timeout: 90_000 })(
  "the federation reconciliation's pass on the test clock",
  (it) => {
    it.effect("the next beat's pass, and only it, reads back and credits a partner order whose webhook was lost", () =>
      Effect.gen(function* () {
        const partners = yield* Partners
        const orders = yield* FederationOrders
        const away = merchantOf(B.client)
        const float = yield* Effect.promise(() => B.client.party({ fund: "1000" }))
        const app = yield* Effect.promise(() => away.createApp(float.id, "Float of the home under test"))
        yield* partners.add({
          partnerId: "B",
          name: "Partner B",
          baseUrl: B.service().base,
          outboundAppId: app.appId,
          outboundPkey: app.pkey,
          webhookSecret: "a-secret-B-never-signs-with",
          capabilities: ["Federation", "FederationWallet"]
        })

        const beat0 = Math.floor(Date.now() / period) * period
        yield* TestClock.setTime(beat0 + 1)
        yield* Layer.build(FederationReconcileCron)
        yield* untilWithin(
          "the start-up pass",
          Effect.map(lastBeat, (beat) => beat === beatAt(beat0))
        )

        const user = yield* newWallet()
        const session = {
          walletId: asWalletId(user),
          clientId: clientId(user),
          project: 0,
          flags: 0,
          walletGroup: 0
        }
        const order = yield* orders.create(session, { partnerId: "B", currency: USDT, amount: "7.25" })
        const payer = yield* Effect.promise(() => B.client.party({ fund: "10" }))
        const paid = yield* Effect.promise(() => away.gate("POST", "pay_internal", order.code!, {}, payer.sid))
        assert.strictEqual(paid.status, 200, JSON.stringify(paid.body))

        // Paid on the partner; here nothing moves until a pass reads it back.
        yield* TestClock.adjust(period - 2)
        yield* TestClock.withLive(Effect.sleep("1 second"))
        assert.strictEqual(yield* lastBeat, beatAt(beat0), "no pass between beats")
        assert.strictEqual((yield* ledgerOf(user, USDT)).free, 0n, "not credited before the beat")
        assert.notStrictEqual(yield* txStateOf(order.txId), 8, "not Finished before the beat")
        yield* TestClock.adjust(1)
        yield* untilWithin(
          "the order credited by the beat's pass",
          Effect.map(ledgerOf(user, USDT), (l) => l.free === 7_250_000n)
        )
        assert.strictEqual(yield* lastBeat, beatAt(beat0) + 1)
        assert.strictEqual(yield* txStateOf(order.txId), 8, "Finished")
        // A later beat reads nothing back (the link is settled) and credits nothing again.
        yield* TestClock.adjust(period)
        yield* untilWithin(
          "the following beat's pass",
          Effect.map(lastBeat, (beat) => beat === beatAt(beat0) + 2)
        )
        yield* TestClock.withLive(Effect.sleep("1 second"))
        assert.strictEqual((yield* ledgerOf(user, USDT)).free, 7_250_000n, "credited once")
        yield* auditLedger("after the federation reconciliation")
      }).pipe(Effect.scoped, Effect.provide(TestClock.layer()))
    )
  }
)
