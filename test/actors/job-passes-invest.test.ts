/**
 * The investment sweep's pass on the test clock (issue #24 item 4; src/services/invest/InvestmentSweep.ts, every
 * second): the sweep and the investment actor (actors/invest/Behaviour.ts) are built on effect's TestClock over
 * the real database (TestRunner), so both the sweep's "due now" and the actor's maturity decision read the
 * clock the test moves. An investment made after the start-up pass, maturing two hours later in the middle
 * of a beat, is not closed by the beat before its maturity, nor when the clock passes its maturity between
 * beats, but by the next beat's pass. Its own timers stay out of the way: the in-process one is armed only
 * for due times within the hour, and the durable one (DeliverAt) is due two real hours from now. The
 * over-HTTP proofs are test/integration/invest-time.test.ts and invest-states.test.ts.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { MessageStorage, RunnerHealth, Runners, RunnerStorage, Sharding, ShardingConfig } from "effect/cluster"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"
import { InvestmentEntityLayer } from "../../actors/invest/Behaviour.ts"
import { InvestmentEntity } from "../../actors/invest/Protocol.ts"
import { WalletEntityLayer } from "../../actors/wallet/Behaviour.ts"
import { WalletEntity } from "../../actors/wallet/Protocol.ts"
import { asTxId } from "../../schema/Ids.ts"
import { ChangeNotices } from "../../src/platform/ChangeNotices.ts"
import { Tariffs } from "../../src/platform/Tariffs.ts"
import { TimeTicks } from "../../src/platform/TimeTicks.ts"
import { InvestmentSweep } from "../../src/services/invest/InvestmentSweep.ts"
import { ActorPlatform, auditLedger, ledgerOf, newTxId, newWallet } from "../support/Actors.ts"
import { lastBeatOf, until } from "../support/JobPasses.ts"

const period = 1_000
const USDT = "USDT"
const hundred = 100_000_000n

/**
 * TestRunner's parts, the runner built in the test on its TestClock (an actor reads its runner's clock). The
 * message storage is built here, on the wall clock: the investment's durable timer (DeliverAt, two real hours
 * away) stays out of the way, so only the sweep can bring `Due`.
 */
const Runner = Sharding.layer.pipe(
  Layer.provideMerge(Runners.layerNoop),
  Layer.provide([RunnerStorage.layerMemory, RunnerHealth.layerNoop]),
  Layer.provide(ShardingConfig.layer())
)

const TestLayer = Layer.mergeAll(
  MessageStorage.layerMemory,
  TimeTicks.layer,
  Tariffs.layer.pipe(Layer.provide(ChangeNotices.layer))
).pipe(Layer.provideMerge(ActorPlatform), Layer.provide(ShardingConfig.layer()))

const stateOf = (timetick: bigint) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const [row] = yield* sql<{ state: number }>`SELECT state FROM investments WHERE timetick = ${String(
      timetick
    )}`.pipe(Effect.orDie)
    return row?.state
  })

const lastBeat = lastBeatOf("InvestmentSweep")
const beatAt = (ms: number) => Math.floor(ms / period)

layer(TestLayer, { excludeTestServices: true, timeout: 60_000 })(
  "the investment sweep's pass on the test clock",
  (it) => {
    it.effect("the next beat's pass, and only it, closes an investment that matured after the start-up pass", () =>
      Effect.gen(function* () {
        const ticks = yield* TimeTicks
        // 1 ms into a beat.
        const beat0 = Math.floor(Date.now() / period) * period
        yield* TestClock.setTime(beat0 + 1)
        const built = yield* Layer.build(
          Layer.mergeAll(WalletEntityLayer, InvestmentEntityLayer, InvestmentSweep).pipe(Layer.provideMerge(Runner))
        )
        const [wallets, investments] = yield* Effect.all([WalletEntity.client, InvestmentEntity.client]).pipe(
          Effect.provideContext(built)
        )
        yield* until(
          "the start-up pass",
          Effect.map(lastBeat, (beat) => beat === beatAt(beat0))
        )

        const wallet = yield* newWallet()
        const funding = newTxId()
        yield* wallets(String(wallet)).PostTreasury({
          txId: asTxId(funding),
          externalId: `fund-${funding}`,
          requestHash: "h",
          currency: USDT,
          amount: hundred,
          tag: null,
          direction: "credit"
        })
        const timetick = ticks.next()
        // Matures in the middle of the beat two hours on (the clock's time, not the wall's).
        const matures = beat0 + 7_200_000 + 500
        yield* investments(String(timetick)).CreateInvestment({
          walletId: wallet,
          currency: USDT,
          investmentType: 1,
          state: 2,
          flags: 0,
          amount: hundred,
          profit: 0n,
          ratePct: "0",
          dateEnd: new Date(matures),
          tag: null,
          ownerId: null,
          externalId: null,
          requestHash: null
        })
        assert.strictEqual(yield* stateOf(timetick), 2, "Activated")
        assert.strictEqual((yield* ledgerOf(wallet, USDT)).lockOrders, hundred)

        // Two hours on, to just before the beat before maturity (passes of the beats in between may run, or
        // be skipped as overrun, while the clock moves; real time lets the last one finish), then that beat:
        // its pass leaves the investment alone.
        const before = beat0 + 7_200_000
        yield* TestClock.adjust(before - 1 - (beat0 + 1))
        yield* TestClock.withLive(Effect.sleep("1 second"))
        yield* TestClock.adjust(1)
        yield* until(
          "the pass of the beat before maturity",
          Effect.map(lastBeat, (beat) => beat === beatAt(before))
        )
        yield* TestClock.withLive(Effect.sleep("500 millis"))
        assert.strictEqual(yield* stateOf(timetick), 2, "not due at the beat before maturity")
        // Past maturity, between beats: nothing runs.
        yield* TestClock.adjust(period - 1)
        yield* TestClock.withLive(Effect.sleep("500 millis"))
        assert.strictEqual(yield* stateOf(timetick), 2, "no pass before the beat")
        assert.strictEqual(yield* lastBeat, beatAt(before))
        // The next beat's pass sends Due; the actor, on the same clock, finds it matured and closes it.
        yield* TestClock.adjust(1)
        yield* until(
          "the investment Closed by the beat's pass",
          Effect.map(stateOf(timetick), (state) => state === 128)
        )
        assert.strictEqual(yield* lastBeat, beatAt(before) + 1)
        const after = yield* ledgerOf(wallet, USDT)
        assert.strictEqual(after.lockOrders, 0n)
        assert.strictEqual(after.free, hundred, "the amount back, no profit")
        yield* auditLedger("after the investment sweep")
      }).pipe(Effect.scoped, Effect.provide(TestClock.layer()))
    )
  }
)
