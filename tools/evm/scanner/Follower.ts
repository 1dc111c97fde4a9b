/**
 * The scanner's loop (C15 "Scanner pushes"): follow the node's chain and push each block of the
 * terminal to tx_list_push with its parent hash.
 *
 * - Resume: from the service's tip when scanner_terminal tells it; else by pushing the node's head
 *   block — the service's 10205 names its tip (or the scanner steps down), a replay answers it.
 * - Reorgs: before each round the last pushed blocks are compared with the node's by hash; a
 *   difference walks back to the fork point and pushes from there (the service orphans what it held
 *   above). A 10206 (parent not the service's block) walks back one more block, so a fork the scanner
 *   did not see itself (another scanner, a restart) is found too.
 * - The watch list is refreshed before every round; a node or service that is down backs off.
 */
import { log } from "../shared/Backoff.ts"
import { ServiceRefusal, type ServiceClient } from "../shared/ServiceClient.ts"
import type { TerminalInfo } from "../shared/TerminalInfo.ts"
import { nativeItems, tokenItems, type PushItem } from "./BlockItems.ts"
import type { ScannerMetrics } from "./Metrics.ts"
import type { NodeBlock, NodeReader } from "./NodeReader.ts"
import type { WatchList } from "./WatchList.ts"

interface PushAnswer {
  readonly tipHeight: number
  readonly replayed: boolean
  readonly orphaned: ReadonlyArray<number>
}

/** Pushed blocks remembered for the fork check (the service keeps 1000 headers). */
const keptHashes = 1000

export interface Follower {
  /** One round: refresh the watch list, check for a fork, push up to the node's head (or `maxBlocks`). */
  readonly round: (maxBlocks?: number) => Promise<number>
  /** The next height to push (undefined before the first round). */
  readonly next: () => number | undefined
}

export const makeFollower = (deps: {
  readonly node: NodeReader
  readonly service: ServiceClient
  readonly watch: WatchList
  readonly terminal: TerminalInfo
  readonly metrics: ScannerMetrics
}): Follower => {
  const { node, service, watch, terminal, metrics } = deps
  const pushed = new Map<number, string>()
  let next: number | undefined
  /** The size of the next step down while probing for the service's tip without a hint. */
  let probeStep = 1

  const remember = (height: number, hash: string) => {
    pushed.set(height, hash)
    pushed.delete(height - keptHashes)
  }

  const itemsOf = async (block: NodeBlock): Promise<ReadonlyArray<PushItem>> =>
    terminal.addressContract === null
      ? nativeItems(block, watch, terminal.decimals)
      : tokenItems(block, await node.transfers(block.hash, terminal.addressContract), watch, terminal.decimals)

  /** Walks back from `next − 1` while the node's hash differs from the pushed one; answers whether it moved. */
  const walkBackToFork = async (): Promise<boolean> => {
    if (next === undefined) return false
    let h = next - 1
    let moved = false
    for (;;) {
      const ours = pushed.get(h)
      if (ours === undefined) break
      const theirs = await node.hashAt(h)
      if (theirs !== null && theirs.toLowerCase() === ours.toLowerCase()) break
      pushed.delete(h)
      h--
      moved = true
    }
    if (moved) {
      log("scanner", `fork found by parent hash: pushing again from ${h + 1} (was at ${next})`)
      metrics.reorg()
      next = h + 1
    }
    return moved
  }

  /** Pushes one block; answers false when the round should stop (the position changed). */
  const pushOne = async (block: NodeBlock): Promise<boolean> => {
    const items = await itemsOf(block)
    try {
      const { result } = await service.post<PushAnswer>("tx_list_push", {
        tokenNetwork: terminal.tokenNetwork,
        height: block.height,
        hash: block.hash,
        parentHash: block.parentHash,
        items
      })
      metrics.pushed()
      metrics.tip(result.tipHeight)
      if (result.orphaned.length > 0) {
        metrics.reorg()
        log("scanner", `reorg at ${block.height}: the service orphaned ${result.orphaned.join(", ")}`)
      }
      remember(block.height, block.hash)
      probeStep = 1
      // A replay below the service's tip: the service holds the blocks above; go on after them
      // (a 10206 there walks back if they are not the node's).
      next = result.replayed ? Math.max(block.height + 1, result.tipHeight + 1) : block.height + 1
      if (items.length > 0) log("scanner", `block ${block.height}: ${items.length} item(s) pushed`)
      return true
    } catch (error) {
      if (!(error instanceof ServiceRefusal)) throw error
      switch (error.code) {
        case 10205: {
          const hint = /tip (\d+)/.exec(error.detail)
          next = hint !== null ? Number(hint[1]) + 1 : Math.max(0, block.height - probeStep)
          probeStep *= 2
          return false
        }
        case 10206:
          pushed.delete(block.height - 1)
          next = Math.max(0, block.height - 1)
          return false
        default:
          throw error
      }
    }
  }

  const round = async (maxBlocks = Number.POSITIVE_INFINITY): Promise<number> => {
    const head = await node.head()
    metrics.head(head)
    await watch.refresh()
    if (next === undefined) {
      const tip = terminal.tip
      if (tip === undefined) next = head
      else if (tip === null) next = head
      else {
        pushed.set(tip.height, tip.hash)
        next = tip.height + 1
        metrics.tip(tip.height)
      }
    }
    await walkBackToFork()
    let count = 0
    while (next <= head && count < maxBlocks) {
      const block = await node.block(next)
      if (block === null) break
      const parent = pushed.get(next - 1)
      if (parent !== undefined && parent.toLowerCase() !== block.parentHash.toLowerCase()) {
        // The node moved between two reads: check again next round unless the fork shows now.
        if (await walkBackToFork()) continue
        break
      }
      if (await pushOne(block)) count++
    }
    return count
  }

  return { round, next: () => next }
}
