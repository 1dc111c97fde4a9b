/**
 * The payment order actor's Refund message (actors/payment/RefundHandler.ts) at actor level: a card-paid
 * order (over HTTP: payments-card.test.ts) refunded cross-currency —
 * Treasury +payoutAmount in payCurrency, the Broker's two legs, the merchant −(amount + fee), the fee
 * to Fees — and a crypto-paid one (10323 without an address or its withdrawal; nothing moves). Crypto
 * refunds themselves are proven over HTTP (test/integration/payments-crypto-refunds.test.ts, and
 * cross-currency payments-crypto-refunds-fx.test.ts). Also the commit paths: a stale order row (another process's commit won) is
 * decided again on the fresh row, a lost (app, externalId) race answers NonceExists. The order is
 * created by the actor and its paid state planted in SQL; the ledger audit must be sound after each.
 */
import { assert, layer } from "@effect/vitest"
import { Context, Effect, Exit, Layer } from "effect"
import { TestRunner } from "effect/cluster"
import { SqlClient } from "effect/sql"
import { PaymentOrderEntityLayer } from "../../actors/payment/Behaviour.ts"
import { PaymentOrderEntity } from "../../actors/payment/Protocol.ts"
import { WalletEntityLayer } from "../../actors/wallet/Behaviour.ts"
import { WalletEntity } from "../../actors/wallet/Protocol.ts"
import { asTxId } from "../../schema/Ids.ts"
import { StateConflict, SystemWallet } from "../../sql/Ledger.ts"
import { Duplicate } from "../../src/platform/LedgerWriter.ts"
import { ActorPlatform, auditLedger, LedgerFaults, ledgerOf, newTxId, newWallet } from "../support/Actors.ts"
import { Tariffs } from "../../src/platform/Tariffs.ts"
import { ChangeNotices } from "../../src/platform/ChangeNotices.ts"

const USDT = "USDT",
  USDC = "USDC"
const micro = (n: number) => BigInt(Math.round(n * 1e6))
const appId = 77n

class Clients extends Context.Service<
  Clients,
  {
    readonly order: Effect.Success<typeof PaymentOrderEntity.client>
    readonly wallet: Effect.Success<typeof WalletEntity.client>
  }
>()("test/PaymentRefundClients") {}

const TestLayer = Layer.effect(
  Clients,
  Effect.all({ order: PaymentOrderEntity.client, wallet: WalletEntity.client })
).pipe(
  Layer.provideMerge(Layer.mergeAll(WalletEntityLayer, PaymentOrderEntityLayer)),
  Layer.provideMerge(TestRunner.layer),
  // The order actor prices an expired underpaid crypto order's incomes with the Deposit tariff.
  Layer.provideMerge(Tariffs.layer.pipe(Layer.provide(ChangeNotices.layer))),
  Layer.provideMerge(ActorPlatform)
)

/** A merchant wallet with 100 USDT free, and a PaymentOrder of 10 USDT paid by `method`. */
const paidOrder = (method: "CardAcquiring" | "CryptoTransfer") =>
  Effect.gen(function* () {
    const clients = yield* Clients
    const sql = yield* SqlClient.SqlClient
    const merchant = yield* newWallet()
    const fundTx = newTxId()
    yield* clients.wallet(String(merchant)).PostTreasury({
      txId: asTxId(fundTx),
      externalId: `fund-${fundTx}`,
      requestHash: "h",
      currency: USDT,
      amount: micro(100),
      tag: null,
      direction: "credit"
    })
    const txId = newTxId()
    yield* clients.order(String(txId)).Create({
      appId,
      externalId: `order-${txId}`,
      requestHash: "h",
      merchantWallet: merchant,
      codeHash: new TextEncoder().encode(`code-${txId}`),
      code: `Pcode${txId}`,
      currency: USDT,
      orderAmount: micro(10),
      expiresAt: new Date(Date.now() + 86_400_000),
      description: null,
      returnUrlSuccess: null,
      returnUrlFail: null,
      webhookUrl: null
    })
    // Paid on a card (crypto) terminal in USDC at 1.1000001: payAmount 11.000001 USDC. Only the order's
    // state is planted; the merchant's 100 USDT came from the Treasury, so the ledger stays balanced.
    yield* sql`UPDATE payment_orders SET state_code = 8, terminal_id = 424242, method = ${method}, pay_currency = ${USDC},
        pay_amount = 11000001, fee = 0, rate = '1.1000001', spread_pct = '0', paid_amount = order_amount, paid_at = now()
      WHERE tx_id = ${String(txId)}`.pipe(Effect.orDie)
    yield* sql`UPDATE transactions SET tx_state = 8 WHERE id = ${String(txId)}`.pipe(Effect.orDie)
    return { merchant, txId, actor: clients.order(String(txId)) }
  })

const refundOf = (amount: number, externalId: string, refundAddress: string | null = null) => ({
  refundTxId: newTxId(),
  appId,
  externalId,
  requestHash: "h",
  amount: micro(amount),
  fee: micro(0.2),
  profitWallet: SystemWallet.Fees,
  reason: null,
  refundAddress
})

const orderRow = (txId: bigint) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{
      state_code: number
      refunded_amount: string
      refund_count: number
      tx_state: number
      id_update: string
    }>`SELECT o.state_code, o.refunded_amount::text AS refunded_amount, o.refund_count, t.tx_state, t.id_update::text AS id_update
      FROM payment_orders o JOIN transactions t ON t.id = o.tx_id WHERE o.tx_id = ${String(txId)}`.pipe(Effect.orDie)
    return rows[0]
  })

const refundRows = (orderTxId: bigint) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return yield* sql<{
      destination: string
      payout_amount: string
      payout_currency: string
      state_code: number
      type_tx: number
      tx_state: number
      wallet_from: string
      wallet_to: string
      amount: string
      fee: string
      app_id: string
    }>`SELECT r.destination, r.payout_amount::text AS payout_amount, r.payout_currency, r.state_code, t.type_tx, t.tx_state,
        t.wallet_from::text AS wallet_from, t.wallet_to::text AS wallet_to, t.amount::text AS amount, t.fee::text AS fee,
        t.app_id::text AS app_id
      FROM payment_refunds r JOIN transactions t ON t.id = r.tx_id WHERE r.order_tx_id = ${String(orderTxId)} ORDER BY r.tx_id`.pipe(
      Effect.orDie
    )
  })

const failureOf = (exit: Exit.Exit<unknown, unknown>) => {
  const reason = Exit.isFailure(exit) ? exit.cause.reasons.find((r) => r._tag === "Fail") : undefined
  assert.isDefined(reason, `expected a rejection, got ${String(exit)}`)
  return (reason as any).error as { _tag: string; message: string }
}

layer(TestLayer, { excludeTestServices: true, timeout: 120_000 })("payment order actor: Refund", (it) => {
  it.effect(
    "a card order refunded cross-currency: Treasury +payoutAmount, Broker legs, PartiallyRefunded then Refunded",
    () =>
      Effect.gen(function* () {
        const { merchant, txId, actor } = yield* paidOrder("CardAcquiring")
        const before = {
          treasury: yield* ledgerOf(SystemWallet.Treasury, USDC),
          brokerUsdt: yield* ledgerOf(SystemWallet.Broker, USDT),
          brokerUsdc: yield* ledgerOf(SystemWallet.Broker, USDC),
          fees: yield* ledgerOf(SystemWallet.Fees, USDT),
          order: yield* orderRow(txId)
        }
        yield* actor.Refund(refundOf(4, `card-1-${txId}`))
        // payoutAmount = 4 × 11.000001 / 10 = 4.4000004 → 4.400000 (rounded down).
        assert.strictEqual((yield* ledgerOf(SystemWallet.Treasury, USDC)).free - before.treasury.free, micro(4.4))
        assert.strictEqual((yield* ledgerOf(SystemWallet.Broker, USDT)).free - before.brokerUsdt.free, micro(4))
        assert.strictEqual((yield* ledgerOf(SystemWallet.Broker, USDC)).free - before.brokerUsdc.free, -micro(4.4))
        assert.strictEqual((yield* ledgerOf(SystemWallet.Fees, USDT)).free - before.fees.free, micro(0.2))
        assert.strictEqual((yield* ledgerOf(merchant, USDT)).free, micro(100 - 4.2))
        const partial = yield* orderRow(txId)
        assert.deepInclude(partial, { state_code: 9, refunded_amount: String(micro(4)), refund_count: 1, tx_state: 8 })
        assert.isTrue(BigInt(partial.id_update) > BigInt(before.order.id_update), "the order's update tick moves")
        yield* actor.Refund(refundOf(6, `card-2-${txId}`))
        assert.deepInclude(yield* orderRow(txId), {
          state_code: 10,
          refunded_amount: String(micro(10)),
          refund_count: 2
        })
        assert.strictEqual((yield* ledgerOf(merchant, USDT)).free, micro(100 - 4.2 - 6.2))
        const rows = yield* refundRows(txId)
        assert.deepStrictEqual(
          rows.map((r) => [r.destination, r.payout_amount, r.payout_currency, r.state_code, r.type_tx, r.tx_state]),
          [
            ["Card", "4400000", USDC, 8, 19, 8],
            ["Card", "6600000", USDC, 8, 19, 8]
          ]
        )
        assert.deepInclude(rows[0], {
          wallet_from: String(merchant),
          wallet_to: String(SystemWallet.Treasury),
          amount: String(micro(4)),
          fee: String(micro(0.2)),
          app_id: String(appId)
        })
        const exit = yield* Effect.exit(actor.Refund(refundOf(1, `card-3-${txId}`)))
        assert.strictEqual(failureOf(exit)._tag, "RefundNotAllowed")
        yield* auditLedger("card refunds")
      })
  )

  it.effect("a crypto order: 10323 without refundAddress or its withdrawal; nothing moves", () =>
    Effect.gen(function* () {
      const { merchant, txId, actor } = yield* paidOrder("CryptoTransfer")
      const noAddress = yield* Effect.exit(actor.Refund(refundOf(1, `crypto-1-${txId}`)))
      assert.strictEqual(failureOf(noAddress)._tag, "RefundAddressRequired")
      const withAddress = yield* Effect.exit(actor.Refund(refundOf(1, `crypto-2-${txId}`, "0xabc")))
      assert.strictEqual(failureOf(withAddress)._tag, "RefundAddressRequired")
      assert.strictEqual((yield* ledgerOf(merchant, USDT)).free, micro(100))
      assert.deepInclude(yield* orderRow(txId), { state_code: 8, refund_count: 0 })
      assert.strictEqual((yield* refundRows(txId)).length, 0)
      yield* auditLedger("crypto refund refused")
    })
  )

  it.effect("a stale order row is decided again; a lost externalId race answers NonceExists", () =>
    Effect.gen(function* () {
      const faults = yield* LedgerFaults
      const { merchant, txId, actor } = yield* paidOrder("CardAcquiring")
      yield* faults.reset
      yield* faults.failNext(new StateConflict({ txIds: [txId] }), 1)
      yield* actor.Refund(refundOf(2, `stale-${txId}`))
      assert.strictEqual(faults.attempts(), 2, "the stale commit, then one on the fresh row")
      yield* faults.reset
      assert.deepInclude(yield* orderRow(txId), { state_code: 9, refunded_amount: String(micro(2)), refund_count: 1 })
      assert.strictEqual((yield* ledgerOf(merchant, USDT)).free, micro(100 - 2.2))

      yield* faults.failNext(new Duplicate({ constraint: "payment_refunds_app_id_external_id_key" }), 1)
      const lost = yield* Effect.exit(actor.Refund(refundOf(2, `race-${txId}`)))
      yield* faults.reset
      assert.strictEqual(failureOf(lost)._tag, "NonceExists")
      assert.deepInclude(yield* orderRow(txId), { refunded_amount: String(micro(2)), refund_count: 1 })
      assert.strictEqual((yield* ledgerOf(merchant, USDT)).free, micro(100 - 2.2))
      // The same externalId as a stored refund: NonceExists before anything is decided.
      const again = yield* Effect.exit(actor.Refund(refundOf(2, `stale-${txId}`)))
      assert.strictEqual(failureOf(again)._tag, "NonceExists")
      yield* auditLedger("stale and duplicate")
    })
  )
})
