/**
 * The payment order actor decides a change on the facts its own last commit left (actors/payment/Act.ts)
 * rather than reading the row again. Those facts must be the stored row's (creation, order_start,
 * pay_internal), and facts another commit has moved on from must never decide: the conditional commit
 * refuses them (LC409), and the change is decided again on the stored row — or, when the row is still
 * the one decided on, the failure is the answer, as a read first would have given.
 */
import { assert, layer } from "@effect/vitest"
import { Context, Effect, Exit, Layer } from "effect"
import { TestRunner } from "effect/cluster"
import { SqlClient } from "effect/sql"
import { offerOf, PaymentOrderEntityLayer } from "../../actors/payment/Behaviour.ts"
import * as E from "../../actors/payment/Engine.ts"
import { createdFacts, factsAfter, type OrderFacts, stateOfRow } from "../../actors/payment/OrderRow.ts"
import { type OfferData, PaymentOrderEntity } from "../../actors/payment/Protocol.ts"
import { WalletEntityLayer } from "../../actors/wallet/Behaviour.ts"
import { WalletEntity } from "../../actors/wallet/Protocol.ts"
import { asTxId } from "../../schema/Ids.ts"
import { StateConflict, SystemWallet } from "../../sql/Ledger.ts"
import { paymentOrderByTx } from "../../sql/PaymentOrderRepo.ts"
import { ChangeNotices } from "../../src/platform/ChangeNotices.ts"
import { Tariffs } from "../../src/platform/Tariffs.ts"
import { ActorPlatform, auditLedger, LedgerFaults, newTxId, newWallet } from "../support/Actors.ts"

const USDT = "USDT"
const micro = (n: number) => BigInt(Math.round(n * 1e6))
const appId = 78n

class Clients extends Context.Service<
  Clients,
  {
    readonly order: Effect.Success<typeof PaymentOrderEntity.client>
    readonly wallet: Effect.Success<typeof WalletEntity.client>
  }
>()("test/PaymentKeptClients") {}

const TestLayer = Layer.effect(
  Clients,
  Effect.all({ order: PaymentOrderEntity.client, wallet: WalletEntity.client })
).pipe(
  Layer.provideMerge(Layer.mergeAll(WalletEntityLayer, PaymentOrderEntityLayer)),
  Layer.provideMerge(TestRunner.layer),
  Layer.provideMerge(Tariffs.layer.pipe(Layer.provide(ChangeNotices.layer))),
  Layer.provideMerge(ActorPlatform)
)

/** The built-in internal terminal's offer of 10 USDT with a 0.05 fee. */
const internalOffer: OfferData = {
  terminalId: 1n,
  method: "InternalPayment",
  rate: "1",
  spreadPct: "0",
  payCurrency: USDT,
  payAmount: micro(10),
  fee: micro(0.05),
  profitWallet: SystemWallet.Fees,
  available: true
}

const funded = (amount: number) =>
  Effect.gen(function* () {
    const clients = yield* Clients
    const wallet = yield* newWallet()
    const fundTx = newTxId()
    yield* clients.wallet(String(wallet)).PostTreasury({
      txId: asTxId(fundTx),
      externalId: `fund-${fundTx}`,
      requestHash: "h",
      currency: USDT,
      amount: micro(amount),
      tag: null,
      direction: "credit"
    })
    return wallet
  })

/** A PaymentOrder of 10 USDT created by its actor, and the facts its creation keeps. */
const createdOrder = Effect.gen(function* () {
  const clients = yield* Clients
  const merchant = yield* newWallet()
  const txId = newTxId()
  const expiresAt = new Date(Date.now() + 86_400_000)
  yield* clients.order(String(txId)).Create({
    appId,
    externalId: `kept-${txId}`,
    requestHash: "h",
    merchantWallet: merchant,
    codeHash: new TextEncoder().encode(`kept-code-${txId}`),
    code: `Pkept${txId}`,
    currency: USDT,
    orderAmount: micro(10),
    expiresAt,
    description: null,
    returnUrlSuccess: null,
    returnUrlFail: null,
    webhookUrl: null
  })
  const kept = createdFacts({
    txId,
    kind: "PaymentOrder",
    currency: USDT,
    orderAmount: micro(10),
    fee: 0n,
    profitWallet: SystemWallet.Fees,
    merchantWallet: merchant,
    expiresAt
  })
  return { txId, merchant, kept, actor: clients.order(String(txId)) }
})

const stored = (txId: bigint) =>
  Effect.gen(function* () {
    const row = yield* paymentOrderByTx(txId).pipe(Effect.orDie)
    assert.isDefined(row)
    return row!
  })

/** The OrderFacts fields of a stored row. */
const factsOf = (row: OrderFacts, like: OrderFacts) =>
  Object.fromEntries(Object.keys(like).map((key) => [key, row[key as keyof OrderFacts]]))

const failureOf = (exit: Exit.Exit<unknown, unknown>) => {
  const reason = Exit.isFailure(exit) ? exit.cause.reasons.find((r) => r._tag === "Fail") : undefined
  assert.isDefined(reason, `expected a rejection, got ${String(exit)}`)
  return (reason as any).error as { _tag: string; message: string }
}

layer(TestLayer, { excludeTestServices: true, timeout: 120_000 })("payment order actor: kept facts", (it) => {
  it.effect("the facts kept after creation, order_start and pay_internal are the stored row's", () =>
    Effect.gen(function* () {
      const payer = yield* funded(100)
      const { txId, kept, actor } = yield* createdOrder
      const created = yield* stored(txId)
      assert.deepStrictEqual(factsOf(created, kept), { ...kept })

      const started = E.start(stateOfRow(created), offerOf(internalOffer), Date.now())
      assert.strictEqual(started._tag, "Ok")
      yield* actor.Start({ offer: internalOffer })
      const afterStart = yield* stored(txId)
      const keptStart = factsAfter(created, (started as E.Ok).state)
      assert.deepStrictEqual(factsOf(afterStart, keptStart), { ...keptStart })

      const paid = E.payInternal(stateOfRow(afterStart), {
        payer,
        payerFree: micro(100),
        offer: offerOf(internalOffer),
        now: Date.now()
      })
      assert.strictEqual(paid._tag, "Ok")
      const answer = yield* actor.PayInternal({ payer, offer: internalOffer })
      assert.deepStrictEqual(answer, { stateCode: 8, replayed: false })
      const afterPay = yield* stored(txId)
      const keptPay = factsAfter(afterStart, (paid as E.Ok).state)
      assert.deepStrictEqual(factsOf(afterPay, keptPay), { ...keptPay })
      // Repeated by the same payer: a replay (decided again on the stored row), nothing moves.
      assert.deepStrictEqual(yield* actor.PayInternal({ payer, offer: internalOffer }), {
        stateCode: 8,
        replayed: true
      })
      assert.strictEqual((yield* stored(txId)).version, afterPay.version)
      yield* auditLedger("kept facts: start and pay")
    })
  )

  it.effect("facts another commit moved on from are refused by the commit and decided again on the row", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const faults = yield* LedgerFaults
      const { txId, actor } = yield* createdOrder
      // Another process's commit (the same order, unchanged fields): the kept version is behind.
      yield* sql`UPDATE payment_orders SET version = version + 1 WHERE tx_id = ${String(txId)}`.pipe(Effect.orDie)
      yield* faults.reset
      assert.deepStrictEqual(yield* actor.Start({ offer: internalOffer }), { stateCode: 2, replayed: false })
      assert.strictEqual(faults.attempts(), 2, "the stale commit, then the one decided on the stored row")
      assert.strictEqual((yield* stored(txId)).version, 2n)

      // Canceled meanwhile elsewhere: the kept Started facts would cancel; the stored row answers 10302.
      yield* sql`UPDATE payment_orders SET state_code = 17, version = version + 1 WHERE tx_id = ${String(txId)}`.pipe(
        Effect.orDie
      )
      yield* sql`UPDATE transactions SET tx_state = 16 WHERE id = ${String(txId)}`.pipe(Effect.orDie)
      yield* faults.reset
      const refused = failureOf(yield* Effect.exit(actor.Cancel({})))
      assert.strictEqual(refused._tag, "PaymentOrderNotPayable")
      assert.strictEqual(refused.message, "code: the order does not take this action in its state")
      assert.strictEqual(faults.attempts(), 1, "only the stale commit was tried")
      assert.strictEqual((yield* stored(txId)).stateCode, 17)
    })
  )

  it.effect("a failed commit on facts the row still has is the answer, as a read first would give", () =>
    Effect.gen(function* () {
      const faults = yield* LedgerFaults
      const { txId, actor } = yield* createdOrder
      yield* faults.reset
      yield* faults.failNext(new StateConflict({ txIds: [txId] }), 1)
      const refused = failureOf(yield* Effect.exit(actor.Start({ offer: internalOffer })))
      assert.strictEqual(refused._tag, "PaymentOrderNotPayable")
      assert.strictEqual(refused.message, "code: the order changed state meanwhile; read it again")
      assert.strictEqual(faults.attempts(), 1)
      assert.strictEqual((yield* stored(txId)).stateCode, 1)
      // Nothing kept after a failure: the next change reads the row and goes through.
      yield* faults.reset
      assert.deepStrictEqual(yield* actor.Start({ offer: internalOffer }), { stateCode: 2, replayed: false })
      assert.strictEqual(faults.attempts(), 1)
      yield* auditLedger("kept facts: stale")
    })
  )
})
