/**
 * One block's items for tx_list_push (C15 AddressTxBatch items), pure: a native transfer (a
 * top-level transaction with value) or an ERC-20 Transfer log is an `in` item when it pays a watched
 * address, else an `out` item when it leaves one or carries the reference signer's withdrawal tag
 * (shared/TxTag.ts, which also names its txId). `index` is the block-level logIndex for token
 * transfers and 0 for a native transfer (C19 §10). Zero amounts are no items.
 */
import { formatUnits, getAddress } from "viem"
import { txIdOfInput } from "../shared/TxTag.ts"
import type { NodeBlock, NodeTransferLog } from "./NodeReader.ts"

export interface PushItem {
  readonly txHash: string
  readonly index: number
  readonly direction: "in" | "out"
  readonly from: string | null
  readonly to: string
  readonly memo: null
  readonly amount: string
  readonly txId: string | null
}

export interface Watched {
  readonly has: (address: string | null | undefined) => boolean
}

const item = (
  watch: Watched,
  transfer: { txHash: string; index: number; from: string; to: string; value: bigint; input: string },
  decimals: number
): PushItem | undefined => {
  if (transfer.value <= 0n) return undefined
  const txId = txIdOfInput(transfer.input)
  const direction = watch.has(transfer.to) ? "in" : watch.has(transfer.from) || txId !== null ? "out" : undefined
  if (direction === undefined) return undefined
  return {
    txHash: transfer.txHash,
    index: transfer.index,
    direction,
    from: getAddress(transfer.from),
    to: getAddress(transfer.to),
    memo: null,
    amount: formatUnits(transfer.value, decimals),
    txId: direction === "out" ? txId : null
  }
}

/** The native coin's items of a block. */
export const nativeItems = (block: NodeBlock, watch: Watched, decimals: number): ReadonlyArray<PushItem> =>
  block.txs.flatMap((tx) => {
    if (tx.to === null) return []
    const one = item(
      watch,
      { txHash: tx.hash, index: 0, from: tx.from, to: tx.to, value: tx.value, input: tx.input },
      decimals
    )
    return one === undefined ? [] : [one]
  })

/** A token's items of a block, from its Transfer logs (the tag is read from the sending transaction's input). */
export const tokenItems = (
  block: NodeBlock,
  logs: ReadonlyArray<NodeTransferLog>,
  watch: Watched,
  decimals: number
): ReadonlyArray<PushItem> => {
  const inputs = new Map(block.txs.map((tx) => [tx.hash.toLowerCase(), tx.input]))
  return logs.flatMap((log) => {
    const input = inputs.get(log.txHash.toLowerCase()) ?? "0x"
    const one = item(
      watch,
      { txHash: log.txHash, index: log.logIndex, from: log.from, to: log.to, value: log.value, input },
      decimals
    )
    return one === undefined ? [] : [one]
  })
}
