/**
 * The payment order actor's card messages (actors/payment/CardHandler.ts) on effect's TestRunner (every
 * message serialised): PayCard commits the implicit start and one Pending session (a repeat returns it);
 * CardOutcome settles once — Treasury −totalToPay, merchant free +orderAmount, the fee to its wallet — a
 * replay is a duplicate, a contradiction or another amount is WebhookMismatch; the session's decide row
 * applies only while Pending (a commit carrying it for a decided session fails LC409 and moves nothing);
 * a stale order row is decided again. The ledger audit must be sound after each.
 */
import { assert, layer } from "@effect/vitest"
import { Context, Effect, Exit, Layer } from "effect"
import { TestRunner } from "effect/cluster"
import { SqlClient } from "effect/sql"
import { PaymentOrderEntityLayer } from "../../actors/payment/Behaviour.ts"
import { PaymentOrderEntity } from "../../actors/payment/Protocol.ts"
import { WalletEntityLayer } from "../../actors/wallet/Behaviour.ts"
import { WalletEntity } from "../../actors/wallet/Protocol.ts"
import { Bucket, rowsOf, StateConflict, SystemWallet } from "../../sql/Ledger.ts"
import { AcquiringSessionDecides } from "../../sql/rows/AcquiringRows.ts"
import { LedgerWriter } from "../../src/platform/LedgerWriter.ts"
import { ActorPlatform, auditLedger, LedgerFaults, ledgerOf, newTxId, newWallet } from "../support/Actors.ts"
import { Tariffs } from "../../src/platform/Tariffs.ts"
import { ChangeNotices } from "../../src/platform/ChangeNotices.ts"

const USDT = "USDT"
const micro = (n: number) => BigInt(Math.round(n * 1e6))

class Clients extends Context.Service<Clients, { readonly order: Effect.Success<typeof PaymentOrderEntity.client> }>()(
  "test/PaymentCardClients"
) {}

const TestLayer = Layer.effect(Clients, Effect.all({ order: PaymentOrderEntity.client })).pipe(
  Layer.provideMerge(Layer.mergeAll(WalletEntityLayer, PaymentOrderEntityLayer)),
  Layer.provideMerge(TestRunner.layer),
  // The order actor prices an expired underpaid crypto order's incomes with the Deposit tariff.
  Layer.provideMerge(Tariffs.layer.pipe(Layer.provide(ChangeNotices.layer))),
  Layer.provideMerge(ActorPlatform)
)
void WalletEntity

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

/** A new merchant wallet and a Created PaymentOrder of 10 USDT. */
const newOrder = Effect.gen(function* () {
  const clients = yield* Clients
  const merchant = yield* newWallet()
  const txId = newTxId()
  yield* clients.order(String(txId)).Create({
    appId: 88n,
    externalId: `card-${txId}`,
    requestHash: "h",
    merchantWallet: merchant,
    codeHash: new TextEncoder().encode(`code-${txId}`),
    code: `Pcard${txId}`,
    currency: USDT,
    orderAmount: micro(10),
    expiresAt: new Date(Date.now() + 86_400_000),
    description: null,
    returnUrlSuccess: null,
    returnUrlFail: null,
    webhookUrl: null
  })
  return { merchant, txId, actor: clients.order(String(txId)) }
})

const sessions = (txId: bigint) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return yield* sql<{ acquiring_id: string; status: string; amount: string; event_id: string | null }>`
      SELECT acquiring_id, status, amount::text AS amount, event_id FROM acquiring_sessions
      WHERE order_tx_id = ${String(txId)} ORDER BY created_at`.pipe(Effect.orDie)
  })

const orderState = (txId: bigint) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ state_code: number; card_session_pending: boolean }>`
      SELECT state_code, card_session_pending FROM payment_orders WHERE tx_id = ${String(txId)}`.pipe(Effect.orDie)
    return rows[0]
  })

const failureOf = (exit: Exit.Exit<unknown, unknown>) => {
  const reason = Exit.isFailure(exit) ? exit.cause.reasons.find((r) => r._tag === "Fail") : undefined
  assert.isDefined(reason, `expected a rejection, got ${String(exit)}`)
  return (reason as any).error as { _tag: string; message: string }
}

const outcome = (acquiringId: string, status: "Approved" | "Declined" | "Expired", amount: bigint | null = null) => ({
  acquiringId,
  status,
  eventId: status === "Expired" ? null : `evt-${acquiringId}-${status}`,
  amount,
  currency: amount === null ? null : USDT
})

const money = (merchant: bigint) =>
  Effect.gen(function* () {
    return {
      merchant: (yield* ledgerOf(merchant, USDT)).free,
      treasury: (yield* ledgerOf(SystemWallet.Treasury, USDT)).free,
      fees: (yield* ledgerOf(SystemWallet.Fees, USDT)).free
    }
  })

layer(TestLayer, { excludeTestServices: true, timeout: 120_000 })("payment order actor: card", (it) => {
  it.effect("PayCard: the start and one Pending session in one commit; a repeat returns it", () =>
    Effect.gen(function* () {
      const { txId, actor } = yield* newOrder
      const first = yield* actor.PayCard({ offer, acquiringId: `acq_a${txId}` })
      assert.deepStrictEqual(first, { stateCode: 2, acquiringId: `acq_a${txId}`, opened: true })
      const again = yield* actor.PayCard({ offer, acquiringId: `acq_b${txId}` })
      assert.deepStrictEqual(again, { stateCode: 2, acquiringId: `acq_a${txId}`, opened: false })
      assert.deepStrictEqual(
        (yield* sessions(txId)).map((s) => [s.acquiring_id, s.status, s.amount]),
        [[`acq_a${txId}`, "Pending", String(micro(10.6))]]
      )
      assert.deepInclude(yield* orderState(txId), { state_code: 2, card_session_pending: true })
      const other = yield* Effect.exit(actor.PayCard({ offer: { ...offer, terminalId: 100_101n }, acquiringId: "x" }))
      assert.strictEqual(failureOf(other)._tag, "TerminalLocked")
      yield* auditLedger("pay card")
    })
  )

  it.effect(
    "CardOutcome: Approved settles once; replay duplicate; contradiction or other amount: WebhookMismatch",
    () =>
      Effect.gen(function* () {
        const { merchant, txId, actor } = yield* newOrder
        const id = `acq_${txId}`
        yield* actor.PayCard({ offer, acquiringId: id })
        const before = yield* money(merchant)
        const wrong = yield* Effect.exit(actor.CardOutcome(outcome(id, "Approved", micro(10.5))))
        assert.strictEqual(failureOf(wrong)._tag, "WebhookMismatch")
        const unknown = yield* Effect.exit(actor.CardOutcome(outcome("acq_nope", "Approved")))
        assert.strictEqual(failureOf(unknown)._tag, "WebhookMismatch")
        assert.deepStrictEqual(yield* actor.CardOutcome(outcome(id, "Approved", micro(10.6))), {
          duplicate: false,
          stateCode: 8
        })
        const after = yield* money(merchant)
        assert.strictEqual(after.merchant - before.merchant, micro(10))
        assert.strictEqual(after.treasury - before.treasury, -micro(10.6))
        assert.strictEqual(after.fees - before.fees, micro(0.6))
        assert.deepStrictEqual(yield* actor.CardOutcome(outcome(id, "Approved")), { duplicate: true, stateCode: 8 })
        const contra = yield* Effect.exit(actor.CardOutcome(outcome(id, "Declined")))
        assert.strictEqual(failureOf(contra)._tag, "WebhookMismatch")
        assert.deepStrictEqual(yield* money(merchant), after, "replays move nothing")
        assert.deepStrictEqual(
          (yield* sessions(txId)).map((s) => [s.status, s.event_id]),
          [["Approved", `evt-${id}-Approved`]]
        )
        yield* auditLedger("card outcome")
      })
  )

  it.effect("Declined / Expired: Started again, a new session may open", () =>
    Effect.gen(function* () {
      const { merchant, txId, actor } = yield* newOrder
      yield* actor.PayCard({ offer, acquiringId: `acq_d${txId}` })
      const before = yield* money(merchant)
      assert.deepStrictEqual(yield* actor.CardOutcome(outcome(`acq_d${txId}`, "Declined")), {
        duplicate: false,
        stateCode: 2
      })
      assert.deepInclude(yield* orderState(txId), { state_code: 2, card_session_pending: false })
      assert.isTrue((yield* actor.PayCard({ offer, acquiringId: `acq_e${txId}` })).opened)
      yield* actor.CardOutcome(outcome(`acq_e${txId}`, "Expired"))
      assert.deepStrictEqual(
        (yield* sessions(txId)).map((s) => s.status),
        ["Declined", "Expired"]
      )
      assert.deepStrictEqual(yield* money(merchant), before, "nothing moves")
      yield* auditLedger("declined and expired")
    })
  )

  it.effect("the decide row applies only while Pending: a commit carrying it for a decided session fails whole", () =>
    Effect.gen(function* () {
      const ledger = yield* LedgerWriter
      const { merchant, txId, actor } = yield* newOrder
      const id = `acq_s${txId}`
      yield* actor.PayCard({ offer, acquiringId: id })
      yield* actor.CardOutcome(outcome(id, "Approved"))
      const before = yield* money(merchant)
      // What another process that read the session while Pending would commit: its decide row and postings.
      const exit = yield* Effect.exit(
        ledger.commit({
          transition: { id: txId, from: 8, to: 8 },
          postings: [
            { walletId: SystemWallet.Treasury, currency: USDT, bucket: Bucket.free, delta: -micro(10.6) },
            { walletId: merchant, currency: USDT, bucket: Bucket.free, delta: micro(10.6) }
          ],
          rows: [
            rowsOf(AcquiringSessionDecides, [{ acquiringId: id, orderTxId: txId, status: "Declined", eventId: "x" }])
          ]
        })
      )
      assert.strictEqual(failureOf(exit)._tag, "StateConflict")
      assert.deepStrictEqual(yield* money(merchant), before, "its postings rolled back")
      // Control: the same commit without the decide row goes through (it was the row that refused).
      yield* ledger.commit({
        transition: { id: txId, from: 8, to: 8 },
        postings: [
          { walletId: SystemWallet.Treasury, currency: USDT, bucket: Bucket.free, delta: -micro(1) },
          { walletId: merchant, currency: USDT, bucket: Bucket.free, delta: micro(1) }
        ]
      })
      assert.strictEqual((yield* money(merchant)).merchant - before.merchant, micro(1))
      assert.deepStrictEqual(
        (yield* sessions(txId)).map((s) => s.status),
        ["Approved"]
      )
      yield* auditLedger("conditional decide")
    })
  )

  it.effect("a stale order row (another process committed first) is decided again on the fresh rows", () =>
    Effect.gen(function* () {
      const faults = yield* LedgerFaults
      const { merchant, txId, actor } = yield* newOrder
      const id = `acq_r${txId}`
      yield* actor.PayCard({ offer, acquiringId: id })
      const before = yield* money(merchant)
      yield* faults.reset
      yield* faults.failNext(new StateConflict({ txIds: [txId] }), 1)
      assert.deepStrictEqual(yield* actor.CardOutcome(outcome(id, "Approved")), { duplicate: false, stateCode: 8 })
      assert.strictEqual(faults.attempts(), 2, "the stale commit, then one on the fresh rows")
      yield* faults.reset
      assert.strictEqual((yield* money(merchant)).merchant - before.merchant, micro(10))
      yield* auditLedger("stale card outcome")
    })
  )
})
