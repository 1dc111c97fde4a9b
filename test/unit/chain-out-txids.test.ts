/**
 * C19 §10 as a pure rule (actors/chain/OutItemTxIds.ts): an out item without a txId is given the id of
 * the terminal's HandedOff or Broadcast withdrawal or refund reported with its txHash, only when `to`
 * and amount match exactly; one withdrawal to one item; a withdrawal another item names is left to it;
 * an OnChain one only when the push's reorg orphans its block. The HTTP proofs are in
 * test/integration/trust-scanner-reads.test.ts.
 */
import { assert, describe, it } from "@effect/vitest"
import { resolveOutTxIds } from "../../actors/chain/OutItemTxIds.ts"
import type { PushItem } from "../../actors/chain/Protocol.ts"
import type { CryptoTx } from "../../sql/ChainRepo.ts"
import { Stage } from "../../sql/rows/CryptoRows.ts"

const TERMINAL = 7n
const TO = "0xAbC0000000000000000000000000000000000001"
const key = (address: string) => address.toLowerCase()

const withdrawal = (txId: bigint, overrides: Partial<CryptoTx> = {}): CryptoTx => ({
  txId,
  typeTx: 2,
  txState: 3,
  walletFrom: 1000n,
  walletTo: -1n,
  currency: "USDT",
  amount: 500n,
  fee: 10n,
  profitWallet: null,
  terminalId: TERMINAL,
  stage: Stage.Broadcast,
  networkFee: 5n,
  txHash: "H",
  idx: null,
  fromAddress: null,
  toAddress: TO,
  memo: null,
  blockHeight: null,
  blockHash: null,
  orphaned: false,
  partnerInfo: null,
  description: null,
  refundTxId: null,
  incomeTxId: null,
  ...overrides
})

const out = (index: bigint, overrides: Partial<PushItem> = {}): PushItem => ({
  txHash: "H",
  index,
  direction: "out",
  from: null,
  fromKey: null,
  to: TO,
  toKey: key(TO),
  memo: null,
  amount: 500n,
  txId: null,
  ...overrides
})

const resolve = (
  items: ReadonlyArray<PushItem>,
  candidates: ReadonlyArray<CryptoTx>,
  reorgFrom: bigint | null = null
) => resolveOutTxIds(items, candidates, { terminalId: TERMINAL, reorgFrom, addressKey: key }).map((i) => i.txId)

describe("resolveOutTxIds", () => {
  it("binds only on the same txHash, `to` (by address key), amount, terminal, kind and a waiting stage", () => {
    assert.deepStrictEqual(resolve([out(0n)], [withdrawal(1n)]), [1n])
    assert.deepStrictEqual(resolve([out(0n)], [withdrawal(1n, { toAddress: TO.toLowerCase() })]), [1n])
    assert.deepStrictEqual(resolve([out(0n)], [withdrawal(1n, { stage: Stage.HandedOff, typeTx: 19 })]), [1n])
    const misses: Array<[string, PushItem, CryptoTx]> = [
      ["amount", out(0n, { amount: 499n }), withdrawal(1n)],
      ["to", out(0n, { toKey: "0xother" }), withdrawal(1n)],
      ["txHash", out(0n, { txHash: "G" }), withdrawal(1n)],
      ["no reported hash", out(0n), withdrawal(1n, { txHash: null, stage: Stage.HandedOff })],
      ["terminal", out(0n), withdrawal(1n, { terminalId: 8n })],
      ["an Income", out(0n), withdrawal(1n, { typeTx: 1 })],
      ["Queued", out(0n), withdrawal(1n, { stage: Stage.Queued })],
      ["Failed", out(0n), withdrawal(1n, { stage: Stage.Failed })],
      ["OnChain without a reorg", out(0n), withdrawal(1n, { stage: Stage.OnChain, blockHeight: 5n })],
      ["an in item", out(0n, { direction: "in" }), withdrawal(1n)]
    ]
    for (const [label, item, tx] of misses) assert.deepStrictEqual(resolve([item], [tx]), [null], label)
  })

  it("one withdrawal to one item; two withdrawals of one hash to two items; a named one left to its item", () => {
    assert.deepStrictEqual(resolve([out(0n), out(1n)], [withdrawal(1n)]), [1n, null])
    assert.deepStrictEqual(resolve([out(0n), out(1n)], [withdrawal(1n), withdrawal(2n)]), [1n, 2n])
    assert.deepStrictEqual(resolve([out(0n), out(1n, { txId: 1n })], [withdrawal(1n)]), [null, 1n])
  })

  it("an OnChain withdrawal binds again only when this push's reorg orphans its block", () => {
    const bound = withdrawal(1n, { stage: Stage.OnChain, blockHeight: 5n })
    assert.deepStrictEqual(resolve([out(3n)], [bound], 5n), [1n])
    assert.deepStrictEqual(resolve([out(3n)], [bound], 6n), [null])
    assert.deepStrictEqual(resolve([out(3n)], [{ ...bound, orphaned: true }], 5n), [null])
  })
})
