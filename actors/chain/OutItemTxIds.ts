/**
 * C19 §10: an out item pushed without a txId binds, like one carrying it, the terminal's HandedOff or
 * Broadcast withdrawal or refund whose reported txHash is the item's txHash, when its `to` and amount
 * match. Pure: resolved before the engine plans (PushReads.ts), so Push.ts's binding rule is unchanged —
 * it sees the txId and checks terminal, stage, `to` and amount again.
 *
 * Exact by construction: same txHash, same `to` (address key), same amount in minor units; each candidate
 * is given to at most one item of the block, in the block's order; a candidate some item of the block
 * names by its txId is left to that item. An item that matches nothing keeps its null txId (today's
 * behaviour: recorded, moves no money, no event). A withdrawal bound in a block this push's reorg orphans
 * is back to HandedOff before the block's items are planned (Push.ts step 1), so it is a candidate too: the
 * same transaction mined again in the new block binds it again, as its txId would.
 */
import type { CryptoTx } from "../../sql/ChainRepo.ts"
import { Stage } from "../../sql/rows/CryptoRows.ts"
import type { PushItem } from "./Protocol.ts"
import { TxKind } from "./Push.ts"

export const resolveOutTxIds = (
  items: ReadonlyArray<PushItem>,
  candidates: ReadonlyArray<CryptoTx>,
  at: {
    readonly terminalId: bigint
    /** The height a reorg orphans from (null: no reorg). */
    readonly reorgFrom: bigint | null
    readonly addressKey: (address: string) => string
  }
): ReadonlyArray<PushItem> => {
  const { terminalId, reorgFrom, addressKey } = at
  const waiting = (tx: CryptoTx) =>
    tx.stage === Stage.HandedOff ||
    tx.stage === Stage.Broadcast ||
    (tx.stage === Stage.OnChain &&
      reorgFrom !== null &&
      !tx.orphaned &&
      tx.blockHeight !== null &&
      tx.blockHeight >= reorgFrom)
  const named = new Set(items.flatMap((i) => (i.txId === null ? [] : [i.txId])))
  const taken = new Set<bigint>()
  return items.map((item) => {
    if (item.direction !== "out" || item.txId !== null) return item
    const match = candidates.find(
      (tx) =>
        !taken.has(tx.txId) &&
        !named.has(tx.txId) &&
        tx.terminalId === terminalId &&
        (tx.typeTx === TxKind.Outcome || tx.typeTx === TxKind.Refund) &&
        waiting(tx) &&
        tx.txHash === item.txHash &&
        tx.toAddress !== null &&
        addressKey(tx.toAddress) === item.toKey &&
        tx.amount === item.amount
    )
    if (match === undefined) return item
    taken.add(match.txId)
    return { ...item, txId: match.txId }
  })
}
