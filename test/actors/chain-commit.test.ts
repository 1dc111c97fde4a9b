/**
 * The chain actor's commit paths (actors/chain/Behaviour.ts), one table row each: the message, a
 * failure the ledger writer returns on cue for the next N commits, the reply or rejection, how many
 * commits were asked for, and the ledger after. A push that meets a state conflict (a cancel won, a
 * process moved the tip) is planned again from fresh reads, at most 5 times; beyond that, or on any
 * other commit failure, it is a defect: the cluster restarts the actor, which takes the message again. Link, seal and refund are decided once: a conflict answers the
 * rule's refusal and leaves the Income as it was. The chain and wallet actors run on effect's
 * TestRunner (one runner, every message serialised), against a real database; the ledger audit after every row.
 */
import { assert, layer } from "@effect/vitest"
import { Context, Effect, Exit, Layer } from "effect"
import { TestRunner } from "effect/cluster"
import { SqlClient } from "effect/sql"
import { ChainEntityLayer } from "../../actors/chain/Behaviour.ts"
import { ChainEntity, type PushItem } from "../../actors/chain/Protocol.ts"
import { WalletEntityLayer } from "../../actors/wallet/Behaviour.ts"
import { StateConflict } from "../../sql/Ledger.ts"
import { ChangeNotices } from "../../src/platform/ChangeNotices.ts"
import { type CommitFailure, Duplicate } from "../../src/platform/LedgerWriter.ts"
import { Tariffs } from "../../src/platform/Tariffs.ts"
import { TimeTicks } from "../../src/platform/TimeTicks.ts"
import { ActorPlatform, auditLedger, LedgerFaults, newWallet } from "../support/Actors.ts"

const conflict = () => new StateConflict({ txIds: [] })
const duplicate = () => new Duplicate({ constraint: "chain_blocks_pkey" })

class Chains extends Context.Service<Chains, Effect.Success<typeof ChainEntity.client>>()("test/ChainClients") {}

const TestLayer = Layer.effect(Chains, ChainEntity.client).pipe(
  Layer.provideMerge(Layer.mergeAll(ChainEntityLayer, WalletEntityLayer)),
  Layer.provideMerge(TestRunner.layer),
  Layer.provideMerge(Layer.mergeAll(TimeTicks.layer, Tariffs.layer.pipe(Layer.provide(ChangeNotices.layer)))),
  Layer.provideMerge(ActorPlatform)
)

/** 1 ETH (18 decimals) in minor units. */
const ONE = 10n ** 18n
let nextKey = 1
const deposit = (): PushItem => ({
  txHash: `tx${nextKey++}`,
  index: 0n,
  direction: "in",
  from: "0x9858effd232b4033e47d90003d41ec34ecaeda94",
  fromKey: "0x9858effd232b4033e47d90003d41ec34ecaeda94",
  to: "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed",
  toKey: "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed",
  memo: null,
  amount: ONE,
  txId: null
})

/** A fresh RequirePartnerInfo ERC20 terminal (confirmations 2, networkFee 0.01) and a wallet. */
const fixture = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const [row] = yield* sql<{
    id: string
  }>`INSERT INTO terminals (type_network, type_contract, currency, decimals, flags,
      network_fee, confirmations, address_contract)
    VALUES (2, 1, 'ETH', 18, 11, 0.01, 2, ${"0x" + String(nextKey++).padStart(40, "0")}) RETURNING id::text AS id`.pipe(
    Effect.orDie
  )
  return { terminal: row.id, wallet: yield* newWallet() }
})

type Fixture = Effect.Success<typeof fixture>
type Chain = ReturnType<Chains["Service"]>

/** An unattributed deposit at height 1 (not final: 2 confirmations). */
const unattributed = (chain: Chain) =>
  Effect.map(
    chain.PushBlock({ height: 1n, hash: "a1", parentHash: "a0", items: [deposit()] }),
    (pushed) => pushed.items[0].txId!
  )

/** That deposit linked to the fixture's wallet before it was final, then held for partner info at height 2. */
const heldDeposit = (chain: Chain, f: Fixture) =>
  Effect.gen(function* () {
    const txId = yield* unattributed(chain)
    yield* chain.Link({ txId, walletId: f.wallet })
    yield* chain.PushBlock({ height: 2n, hash: "a2", parentHash: "a1", items: [] })
    return txId
  })

const lockIn = (walletId: bigint) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ lock_in: string; lock_out: string }>`SELECT lock_in::text AS lock_in,
        lock_out::text AS lock_out FROM balances WHERE wallet_id = ${String(walletId)} AND currency = 'ETH'`.pipe(
      Effect.orDie
    )
    return [BigInt(rows[0]?.lock_in ?? "0"), BigInt(rows[0]?.lock_out ?? "0")] as const
  })
const tipOf = (terminal: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ tip: string }>`SELECT tip_height::text AS tip FROM chain_heads
      WHERE terminal_id = ${terminal}`.pipe(Effect.orDie)
    return rows.length === 0 ? null : Number(rows[0].tip)
  })

interface Row {
  readonly name: string
  readonly before?: (chain: Chain, f: Fixture) => Effect.Effect<unknown, unknown>
  readonly send: (chain: Chain, f: Fixture, held: bigint | undefined) => Effect.Effect<unknown, unknown>
  readonly inject?: readonly [failure: () => CommitFailure, times: number]
  /** "ok", or the rejection's tag. */
  readonly reply: "ok" | string
  readonly attempts: number
  /** The tip after, and the wallet's ETH lock_in and lock_out in whole ETH. */
  readonly after: { readonly tip: number | null; readonly wallet: readonly [number, number] }
}

const push3 = (chain: Chain) => chain.PushBlock({ height: 3n, hash: "a3", parentHash: "a2", items: [deposit()] })
const seal = (chain: Chain, f: Fixture, held: bigint | undefined) =>
  chain.SealPartnerInfo({ walletId: f.wallet, txId: held!, partnerInfo: "p", description: null })
const refund = (chain: Chain, f: Fixture, held: bigint | undefined) =>
  chain.InitRefund({ walletId: f.wallet, txId: held! })

// prettier-ignore
const rows: ReadonlyArray<Row> = [
  { name: "push: appended in one commit", before: heldDeposit, send: push3, reply: "ok", attempts: 1, after: { tip: 3, wallet: [1, 0] } },
  { name: "push: a state conflict → planned again from fresh reads, committed", before: heldDeposit, send: push3, inject: [conflict, 1], reply: "ok", attempts: 2, after: { tip: 3, wallet: [1, 0] } },
  { name: "push: four conflicts, then committed on the fifth plan", before: heldDeposit, send: push3, inject: [conflict, 4], reply: "ok", attempts: 5, after: { tip: 3, wallet: [1, 0] } },
  // A defect restarts the actor, which takes the message again from fresh reads (the cluster's own restart).
  { name: "push: conflicts that never settle → a defect after 5 plans; the restarted actor commits it", before: heldDeposit, send: push3, inject: [conflict, 5], reply: "ok", attempts: 6, after: { tip: 3, wallet: [1, 0] } },
  { name: "push: any other commit failure → a defect; the restarted actor commits it", before: heldDeposit, send: push3, inject: [duplicate, 1], reply: "ok", attempts: 2, after: { tip: 3, wallet: [1, 0] } },
  { name: "link before final: the deposit moves to the wallet's lock_in", before: unattributed, send: (c, f, tx) => c.Link({ txId: tx!, walletId: f.wallet }), reply: "ok", attempts: 1, after: { tip: 1, wallet: [1, 0] } },
  { name: "link: a conflict → NotUnattributed, the deposit stays with −4", before: unattributed, send: (c, f, tx) => c.Link({ txId: tx!, walletId: f.wallet }), inject: [conflict, 1], reply: "NotUnattributed", attempts: 1, after: { tip: 1, wallet: [0, 0] } },
  { name: "seal: credits the held deposit", before: heldDeposit, send: seal, reply: "ok", attempts: 1, after: { tip: 2, wallet: [0, 0] } },
  { name: "seal: a conflict → PartnerInfoSealed, still held", before: heldDeposit, send: seal, inject: [conflict, 1], reply: "PartnerInfoSealed", attempts: 1, after: { tip: 2, wallet: [1, 0] } },
  { name: "init_refund: lock_in → lock_out in one commit", before: heldDeposit, send: refund, reply: "ok", attempts: 1, after: { tip: 2, wallet: [0, 1] } },
  { name: "init_refund: a conflict → IncomeNotRefundable, still held", before: heldDeposit, send: refund, inject: [conflict, 1], reply: "IncomeNotRefundable", attempts: 1, after: { tip: 2, wallet: [1, 0] } }
]

layer(TestLayer, { excludeTestServices: true, timeout: 120_000 })("chain actor: commit paths", (it) => {
  it.effect.each(rows)("$name", (row) =>
    Effect.gen(function* () {
      const faults = yield* LedgerFaults
      const f = yield* fixture
      const chain = (yield* Chains)(f.terminal)
      const held = row.before === undefined ? undefined : ((yield* row.before(chain, f)) as bigint)
      yield* faults.reset
      if (row.inject !== undefined) yield* faults.failNext(row.inject[0](), row.inject[1])
      const exit = yield* Effect.exit(row.send(chain, f, held))
      const attempts = faults.attempts()
      yield* faults.reset
      if (row.reply === "ok") assert.isTrue(Exit.isSuccess(exit), `expected success, got ${String(exit)}`)
      else {
        const error = Exit.isFailure(exit) ? exit.cause.reasons.find((r) => r._tag === "Fail") : undefined
        assert.strictEqual((error as any)?.error?._tag, row.reply, String(exit))
      }
      assert.strictEqual(attempts, row.attempts, "commits asked for")
      const [inBucket, outBucket] = yield* lockIn(f.wallet)
      assert.deepStrictEqual(
        { tip: yield* tipOf(f.terminal), wallet: [inBucket / ONE, outBucket / ONE] },
        { tip: row.after.tip, wallet: row.after.wallet.map(BigInt) }
      )
      yield* auditLedger(row.name)
    })
  )
})
