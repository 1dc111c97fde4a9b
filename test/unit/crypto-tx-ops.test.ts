/**
 * The operations that change a queued or handed-off withdrawal or deposit refund
 * (src/services/crypto/CryptoTxOps.ts, docs/CRYPTO.md "The one rule for changes"): each carries a
 * transition and a crypto_tx_update naming the stages it may leave; an Outcome's end returns
 * amount + fee to free, a Refund's to lock_in with its Income back to AwaitingPartnerInfo in the
 * same operation. The Refund rows here are the only proof of that path until init_refund exists on
 * this branch. No service is started.
 */
import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import { ReserveTransfer } from "../../actors/wallet/Protocol.ts"
import { Bucket } from "../../sql/Ledger.ts"
import { CryptoTxInserts, CryptoTxUpdates, Stage } from "../../sql/rows/CryptoRows.ts"
import { TxState, TxType } from "../../schema/Transfer.ts"
import { endUnsent, handOff, type QueuedTx, restage } from "../../src/services/crypto/CryptoTxOps.ts"

const outcome: QueuedTx = {
  txId: 100n,
  typeTx: TxType.Outcome,
  txState: 3,
  walletFrom: 7n,
  currency: "USDT",
  amount: 10_000_000n,
  fee: 1_600_000n,
  incomeTxId: null
}
const refund: QueuedTx = {
  ...outcome,
  txId: 200n,
  typeTx: TxType.Refund,
  amount: 9_000_000n,
  fee: 1_000_000n,
  incomeTxId: 150n
}

const updatesOf = (op: { rows?: ReadonlyArray<{ kind: unknown; rows: ReadonlyArray<any> }> }) =>
  (op.rows ?? []).filter((r) => r.kind === CryptoTxUpdates).flatMap((r) => r.rows)

describe("CryptoTxOps", () => {
  it("handOff: 3 → 3, Queued → HandedOff, no money", () => {
    const op = handOff(outcome)
    assert.deepStrictEqual(op.transition, { id: 100n, from: 3, to: 3 })
    assert.deepStrictEqual(op.postings, [])
    assert.deepStrictEqual(updatesOf(op), [
      { txId: 100n, fromStages: [Stage.Queued], stage: Stage.HandedOff, patch: {} }
    ])
  })

  it("restage keeps the txState and carries the patch (a broadcast's hash)", () => {
    const op = restage(outcome, [Stage.HandedOff, Stage.Broadcast], Stage.Broadcast, { txHash: "ab" })
    assert.deepStrictEqual(op.transition, { id: 100n, from: 3, to: 3 })
    assert.deepStrictEqual(updatesOf(op)[0].patch, { txHash: "ab" })
  })

  it("an Outcome's end: → 16, amount + fee lock_out → free of its wallet", () => {
    const op = endUnsent(outcome, [Stage.Queued], Stage.Canceled)
    assert.deepStrictEqual(op.transition, { id: 100n, from: 3, to: TxState.Canceled })
    assert.deepStrictEqual(op.postings, [
      { walletId: 7n, currency: "USDT", bucket: Bucket.lockOut, delta: -11_600_000n },
      { walletId: 7n, currency: "USDT", bucket: Bucket.free, delta: 11_600_000n }
    ])
    assert.deepStrictEqual(updatesOf(op), [
      { txId: 100n, fromStages: [Stage.Queued], stage: Stage.Canceled, patch: {} }
    ])
    assert.isUndefined(op.extra)
  })

  it("a Refund's end: → 16, the Income's A lock_out → lock_in, the Income Refunding → AwaitingPartnerInfo with no refund", () => {
    const op = endUnsent(refund, [Stage.HandedOff, Stage.Broadcast], Stage.Failed, { message: "m" })
    assert.deepStrictEqual(op.transition, { id: 200n, from: 3, to: TxState.Canceled })
    assert.deepStrictEqual(op.postings, [
      { walletId: 7n, currency: "USDT", bucket: Bucket.lockOut, delta: -10_000_000n },
      { walletId: 7n, currency: "USDT", bucket: Bucket.lockIn, delta: 10_000_000n }
    ])
    assert.deepStrictEqual(updatesOf(op), [
      { txId: 200n, fromStages: [Stage.HandedOff, Stage.Broadcast], stage: Stage.Failed, patch: { message: "m" } }
    ])
    assert.strictEqual(op.extra?.length, 1)
    const income = op.extra![0]
    assert.deepStrictEqual(income.transition, { id: 150n, from: 3, to: 3 })
    assert.deepStrictEqual(income.postings, [])
    assert.deepStrictEqual(updatesOf(income), [
      { txId: 150n, fromStages: [Stage.Refunding], stage: Stage.AwaitingPartnerInfo, patch: { refundTxId: null } }
    ])
  })

  it("ReserveTransfer's crypto part (the Outcome's record) survives the mailbox's wire form", () => {
    const crypto = {
      txId: 100n,
      terminalId: 3n,
      typeTx: TxType.Outcome,
      stage: Stage.AwaitingConfirmation,
      networkFee: 1_000_000n,
      txHash: null,
      index: null,
      fromAddress: null,
      toAddress: "0x9858EfFD232B4033E47d90003D41EC34EcaEda94",
      memo: null,
      blockHeight: null,
      blockHash: null,
      sourceAddress: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
      sourceIndex: 4,
      incomeTxId: null,
      queued: false
    } as const
    const schema = CryptoTxInserts.schema
    assert.deepStrictEqual(Schema.decodeUnknownSync(schema)(Schema.encodeSync(schema)(crypto)), crypto)
    const payload = ReserveTransfer.payloadSchema
    const message = {
      txId: "100",
      typeTx: TxType.Outcome,
      recipientId: "-1",
      profitWalletId: "-2",
      currency: "USDT",
      amount: 10n,
      fee: 1n,
      tag: null,
      clientNonce: null,
      channel: "Inline",
      codeHash: null,
      expiresAt: new Date(0),
      attempts: 5,
      codeForEvent: null,
      crypto
    }
    const back = Schema.decodeUnknownSync(payload)(Schema.encodeSync(payload)(message as any)) as any
    assert.deepStrictEqual(back.crypto, crypto)
  })
})
