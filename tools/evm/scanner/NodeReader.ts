/**
 * What the scanner reads from the JSON-RPC node, through viem: the head, a block with its
 * transactions, and the ERC-20 Transfer logs of one contract in one block (by the block's hash, so a
 * block and its logs always belong to the same branch).
 */
import { createPublicClient, http, parseAbiItem, type Hash } from "viem"

export const transferEvent = parseAbiItem("event Transfer(address indexed from, address indexed to, uint256 value)")

export interface NodeTx {
  readonly hash: string
  readonly from: string
  readonly to: string | null
  readonly value: bigint
  readonly input: string
}

export interface NodeTransferLog {
  readonly txHash: string
  readonly logIndex: number
  readonly from: string
  readonly to: string
  readonly value: bigint
}

export interface NodeBlock {
  readonly height: number
  readonly hash: string
  readonly parentHash: string
  readonly txs: ReadonlyArray<NodeTx>
}

export interface NodeReader {
  readonly head: () => Promise<number>
  /** The block at a height of the node's current chain, or null when the node has none there (yet). */
  readonly block: (height: number) => Promise<NodeBlock | null>
  readonly hashAt: (height: number) => Promise<string | null>
  readonly transfers: (blockHash: string, contract: string) => Promise<ReadonlyArray<NodeTransferLog>>
}

export const makeNodeReader = (rpcUrl: string): NodeReader => {
  const client = createPublicClient({ transport: http(rpcUrl, { retryCount: 0, timeout: 20_000 }) })
  return {
    head: async () => Number(await client.getBlockNumber({ cacheTime: 0 })),
    block: async (height) => {
      try {
        const b = await client.getBlock({ blockNumber: BigInt(height), includeTransactions: true })
        return {
          height: Number(b.number),
          hash: b.hash!,
          parentHash: b.parentHash,
          txs: b.transactions.map((t) => ({ hash: t.hash, from: t.from, to: t.to, value: t.value, input: t.input }))
        }
      } catch (error) {
        if ((error as Error).name === "BlockNotFoundError") return null
        throw error
      }
    },
    hashAt: async (height) => {
      try {
        return (await client.getBlock({ blockNumber: BigInt(height) })).hash
      } catch (error) {
        if ((error as Error).name === "BlockNotFoundError") return null
        throw error
      }
    },
    transfers: async (blockHash, contract) => {
      const logs = await client.getLogs({
        address: contract as `0x${string}`,
        event: transferEvent,
        blockHash: blockHash as Hash
      })
      return logs.flatMap((l) =>
        l.args.from === undefined || l.args.to === undefined || l.args.value === undefined || l.logIndex === null
          ? []
          : [
              {
                txHash: l.transactionHash!,
                logIndex: l.logIndex,
                from: l.args.from,
                to: l.args.to,
                value: l.args.value
              }
            ]
      )
    }
  }
}
