/**
 * The chain side of crypto payments as pure plans (actors/chain/OrderIncomes.ts over a working set,
 * actors/payment/CryptoIncomes.ts): which Incomes an order takes, the order's one operation (transition,
 * conditional row, postings, income links), the Incomes' own money dropped only for those taken, a
 * refused income left a plain deposit, partner-info holds not applied to order payments, and an order
 * found due expired in the same operation.
 */
import { assert, describe, it } from "@effect/vitest"
import { type OrderIncomeFacts, planOrderIncomes } from "../../actors/chain/OrderIncomes.ts"
import { incomeCredited, incomeSeen, makeWorkingSet } from "../../actors/chain/WorkingSet.ts"
import type { CryptoTx } from "../../sql/ChainRepo.ts"
import type { Posting } from "../../sql/Ledger.ts"
import type { PaymentOrderRow } from "../../sql/PaymentOrderRepo.ts"
import { Stage } from "../../sql/rows/CryptoRows.ts"

const TERMINAL = 7n
const MERCHANT = 1000n
const FEES = 2000n
const ORDER = 500n
const ADDRESS = "0xabc"

const order = (overrides: Partial<PaymentOrderRow> = {}): PaymentOrderRow =>
  ({
    txId: ORDER,
    kind: "PaymentOrder",
    merchantWallet: MERCHANT,
    stateCode: 2,
    txState: 1,
    currency: "ETH",
    orderAmount: 100n,
    terminalId: TERMINAL,
    method: "CryptoTransfer",
    payCurrency: "ETH",
    payAmount: 100n,
    fee: 1n,
    profitWallet: FEES,
    rate: "1",
    spreadPct: "0",
    expiresAt: new Date(Date.now() + 3_600_000),
    paidAmount: 0n,
    refundedAmount: 0n,
    pendingRefunds: 0n,
    refundCount: 0,
    payerWalletId: null,
    cardSessionPending: false,
    incomeSeen: 0n,
    incomeFinal: 0n,
    version: 3n,
    ...overrides
  }) as PaymentOrderRow

const income = (txId: bigint, amount: bigint, overrides: Partial<CryptoTx> = {}): CryptoTx => ({
  txId,
  typeTx: 1,
  txState: 1,
  walletFrom: -1n,
  walletTo: MERCHANT,
  currency: "ETH",
  amount,
  fee: 0n,
  profitWallet: null,
  terminalId: TERMINAL,
  stage: Stage.Confirming,
  networkFee: 0n,
  txHash: `h${txId}`,
  idx: 0n,
  fromAddress: null,
  toAddress: ADDRESS,
  memo: null,
  blockHeight: 10n,
  blockHash: "b10",
  orphaned: false,
  partnerInfo: null,
  description: null,
  refundTxId: null,
  incomeTxId: null,
  ...overrides
})

const facts = (row: PaymentOrderRow, linked: Array<[bigint, bigint]> = []): OrderIncomeFacts => ({
  orders: new Map([[ORDER, row]]),
  linked: new Map(linked),
  addresses: [{ orderTxId: ORDER, addressKey: ADDRESS, memo: null }],
  memoNetwork: false,
  now: Date.now(),
  finalIncomes: []
})

/** The Deposit tariff of these tests: 1% to the Fees wallet. */
const depositFee = (_holder: bigint, amount: bigint) => ({ fee: amount / 100n, profitWallet: FEES })

const sum = (postings: ReadonlyArray<Posting>, walletId: bigint, bucket: number) =>
  postings.filter((p) => p.walletId === walletId && p.bucket === bucket).reduce((s, p) => s + p.delta, 0n)

const rowOf = (op: any, kind: string) => op.rows.find((r: any) => r.kind.name === kind)?.rows ?? []

describe("crypto incomes of payment orders, planned in a push", () => {
  it("a new Income at the order's address: taken (fee 0, no money of its own), the order Processing with it", () => {
    const txs = makeWorkingSet([])
    txs.create(income(1n, 60n, { fee: 5n, profitWallet: FEES }), incomeSeen(MERCHANT, "ETH", 60n))
    const plan = planOrderIncomes(facts(order()), TERMINAL, txs, (a) => a, depositFee)
    const [incomeOp] = txs.operations()
    assert.deepStrictEqual(incomeOp.postings, [])
    assert.strictEqual(incomeOp.tx!.fee, 0n)
    assert.strictEqual(plan.operations.length, 1)
    const op = plan.operations[0]
    assert.deepStrictEqual(op.transition, { id: ORDER, from: 1, to: 1 })
    assert.strictEqual(sum(op.postings, -1n, 0), -60n)
    assert.strictEqual(sum(op.postings, MERCHANT, 2), 60n)
    const [update] = rowOf(op, "payment_order_update")
    assert.deepInclude(update, { fromState: 2, fromVersion: 3n, stateCode: 3, incomeSeen: 60n })
    assert.deepStrictEqual(rowOf(op, "payment_order_income"), [{ incomeTxId: 1n, orderTxId: ORDER, amount: 60n }])
    assert.deepStrictEqual(plan.credited, [])
  })

  it("a linked Income turned final completes Σ final ≥ totalToPay: Paid, merchant free +orderAmount + excess, fee", () => {
    const loaded = income(2n, 50n)
    const txs = makeWorkingSet([loaded])
    txs.change(2n, { txState: 8, stage: Stage.Credited }, incomeCredited(MERCHANT, FEES, "ETH", 50n, 0n))
    const row = order({ stateCode: 3, incomeSeen: 50n, incomeFinal: 60n })
    const plan = planOrderIncomes(facts(row, [[2n, ORDER]]), TERMINAL, txs, (a) => a, depositFee)
    assert.deepStrictEqual(txs.operations()[0].postings, [])
    const op = plan.operations[0]
    assert.deepStrictEqual(op.transition, { id: ORDER, from: 1, to: 8 })
    assert.strictEqual(sum(op.postings, MERCHANT, 2), -110n)
    assert.strictEqual(sum(op.postings, MERCHANT, 0), 100n + 9n)
    assert.strictEqual(sum(op.postings, FEES, 0), 1n)
    assert.sameMembers([...plan.credited], [MERCHANT, FEES])
    assert.deepStrictEqual(rowOf(op, "payment_order_income"), [])
  })

  it("partner-info holds apply to an order's Income too (C15 block rules): held, not final for the order", () => {
    const txs = makeWorkingSet([income(3n, 101n)])
    txs.change(3n, { txState: 3, stage: Stage.AwaitingPartnerInfo })
    const plan = planOrderIncomes(
      facts(order({ stateCode: 3, incomeSeen: 101n }), [[3n, ORDER]]),
      TERMINAL,
      txs,
      (a) => a,
      depositFee
    )
    assert.deepInclude(txs.get(3n)!, { txState: 3, stage: Stage.AwaitingPartnerInfo })
    assert.deepStrictEqual(plan.operations, [], "the order waits for the seal")
  })

  it("an orphaned Income the order took is reversed and the order is Started again", () => {
    const txs = makeWorkingSet([income(4n, 30n)])
    txs.change(4n, { txState: 16, stage: Stage.Canceled, orphaned: true }, [])
    const plan = planOrderIncomes(
      facts(order({ stateCode: 3, incomeSeen: 30n }), [[4n, ORDER]]),
      TERMINAL,
      txs,
      (a) => a,
      depositFee
    )
    const op = plan.operations[0]
    assert.strictEqual(sum(op.postings, MERCHANT, 2), -30n)
    assert.strictEqual(sum(op.postings, -1n, 0), 30n)
    assert.deepInclude(rowOf(op, "payment_order_update")[0], { stateCode: 2, incomeSeen: 0n })
  })

  it("a paid order, or one locked on another terminal, refuses: the Income stays a plain deposit", () => {
    for (const row of [order({ stateCode: 8, txState: 8, paidAmount: 100n }), order({ terminalId: 99n })]) {
      const txs = makeWorkingSet([])
      const own = incomeSeen(MERCHANT, "ETH", 70n)
      txs.create(income(5n, 70n, { fee: 2n, profitWallet: FEES }), own)
      const plan = planOrderIncomes(facts(row), TERMINAL, txs, (a) => a, depositFee)
      assert.deepStrictEqual(plan.operations, [])
      const [op] = txs.operations()
      assert.deepStrictEqual(op.postings, own)
      assert.strictEqual(op.tx!.fee, 2n)
    }
  })

  it("an order found due with nothing in flight is expired in the same operation; the Income stays plain", () => {
    const txs = makeWorkingSet([])
    txs.create(income(6n, 70n), incomeSeen(MERCHANT, "ETH", 70n))
    const row = order({ expiresAt: new Date(Date.now() - 1000) })
    const plan = planOrderIncomes(facts(row), TERMINAL, txs, (a) => a, depositFee)
    assert.deepStrictEqual(plan.operations[0].transition, { id: ORDER, from: 1, to: 16 })
    assert.deepInclude(rowOf(plan.operations[0], "payment_order_update")[0], { stateCode: 16 })
    assert.deepStrictEqual(rowOf(plan.operations[0], "payment_order_income"), [])
    assert.strictEqual(txs.operations()[0].postings.length, 2)
  })
})
