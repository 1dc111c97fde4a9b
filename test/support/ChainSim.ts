/**
 * A seeded chain simulator for CONTRACT C15 scanner pushes on one EVM terminal: it grows a block tree
 * and answers the sequence of blocks a scanner would push (`tx_list_push` bodies without
 * tokenNetwork), with appends, replays (some carrying a new item), reorgs of depth 1..8 (some at
 * least the confirmations: deep), flips back to an orphaned branch, out-of-order pushes followed by
 * the scanner's walk back (refused 10205 / 10206, then the fork point first), gaps, and blocks too
 * old (10207). It never decides an outcome: ChainModel does, from the pushes alone.
 *
 * Items: deposits to the given wallets' addresses (as given, lower-cased or with upper-case hex),
 * to unknown valid addresses (unattributed), a few out items (no txId: they move nothing), and items
 * of orphaned blocks carried into the fork that replaces them (the same (txHash, index) seen again).
 */
import { seeded } from "../unit/Random.ts"
import type { ChainBlock, ChainItem } from "./ChainModel.ts"

export interface SimWallet {
  readonly id: string
  /** Its derived address as create_address answers it (EIP-55). */
  readonly address: string
}

export interface SimOptions {
  readonly seed: number
  /** Stop after at least this many pushes (the step under way completes). */
  readonly pushes: number
  readonly wallets: ReadonlyArray<SimWallet>
  readonly confirmations: number
  /** The asset's decimals (amounts never carry more). */
  readonly decimals: number
  /** Height of the first block (default: random in 1_000_000..9_000_000). */
  readonly startHeight?: number
}

export type SimStep = "first" | "append" | "replay" | "reorg" | "walk-back" | "flip-back" | "gap" | "too-old"

export interface SimPush {
  readonly block: ChainBlock
  /** What the scanner meant by it (the model decides the answer). */
  readonly step: SimStep
}

const HEX = "0123456789abcdef"
const ALNUM = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

export const simulateChain = (options: SimOptions): Array<SimPush> => {
  const rng = seeded(options.seed)
  const pick = <T>(xs: ReadonlyArray<T>): T => xs[rng.int(0, xs.length - 1)]!
  const chance = (p: number) => rng.next() < p
  const text = (alphabet: string, length: number) =>
    Array.from({ length }, () => alphabet[rng.int(0, alphabet.length - 1)]).join("")
  const used = new Set<string>()
  const unique = (make: () => string) => {
    for (;;) {
      const value = make()
      if (!used.has(value)) {
        used.add(value)
        return value
      }
    }
  }
  /** Block hashes: mostly 64 hex, sometimes 1..128 of [0-9A-Za-z]. */
  const blockHash = () => unique(() => (chance(0.7) ? text(HEX, 64) : text(ALNUM, rng.int(1, 128))))
  const txHash = () => unique(() => "0x" + text(HEX, 64))
  const unknownAddress = () => "0x" + text(HEX, 40)
  const casing = (address: string) => {
    const roll = rng.next()
    if (roll < 0.5) return address
    if (roll < 0.75) return address.toLowerCase()
    return "0x" + address.slice(2).toUpperCase()
  }
  const amount = () => {
    if (chance(0.1)) return "0." + "0".repeat(options.decimals - 3) + String(rng.int(1, 999)).padStart(3, "0")
    const whole = String(rng.int(0, 2))
    const places = rng.int(0, options.decimals)
    const fraction = rng.digits(places).replace(/0+$/, "")
    const result = fraction === "" ? whole : `${whole}.${fraction}`
    return /^[0.]+$/.test(result) ? "1" : result
  }
  const newItems = (): Array<ChainItem> => {
    const items: Array<ChainItem> = []
    const count = rng.int(0, 4)
    for (let i = 0; i < count; i++) {
      const previous = items.at(-1)
      // Several logs of one transaction: the same txHash, the next index.
      const sameTx = previous !== undefined && chance(0.2)
      const hash = sameTx ? previous.txHash : txHash()
      const index = sameTx ? previous.index + 1 : rng.int(0, 3)
      const roll = rng.next()
      if (roll < 0.1 && options.wallets.length > 0) {
        items.push({
          txHash: hash,
          index,
          direction: "out",
          from: pick(options.wallets).address.toLowerCase(),
          to: unknownAddress(),
          memo: null,
          amount: amount(),
          txId: null
        })
        continue
      }
      const known = roll < 0.7 && options.wallets.length > 0
      items.push({
        txHash: hash,
        index,
        direction: "in",
        from: chance(0.3) ? null : unknownAddress(),
        to: known ? casing(pick(options.wallets).address) : unknownAddress(),
        memo: null,
        amount: amount(),
        txId: null
      })
    }
    return items
  }
  const blockOn = (parent: ChainBlock, items = newItems()): ChainBlock => ({
    height: parent.height + 1,
    hash: blockHash(),
    parentHash: parent.hash,
    items
  })

  const pushes: Array<SimPush> = []
  const push = (block: ChainBlock, step: SimStep) => pushes.push({ block, step })
  const first: ChainBlock = {
    height: options.startHeight ?? rng.int(1_000_000, 9_000_000),
    hash: blockHash(),
    parentHash: blockHash(),
    items: newItems()
  }
  /** The chain as the node sees it (and, once each step completes, as the service holds it). */
  let canonical: Array<ChainBlock> = [first]
  /** Segments a reorg replaced: a flip back may bring one back. */
  const orphanedBranches: Array<Array<ChainBlock>> = []
  push(first, "first")
  const tipOf = () => canonical.at(-1)!

  /** A fork replacing the last `depth` blocks, `extra` longer, carrying some of their items. */
  const fork = (depth: number, extra: number): Array<ChainBlock> => {
    const replaced = canonical.slice(canonical.length - depth)
    const blocks: Array<ChainBlock> = []
    let parent = canonical[canonical.length - depth - 1]!
    const length = depth + extra
    const carried: Array<Array<ChainItem>> = Array.from({ length }, () => [])
    const keys = new Set<string>()
    for (const item of replaced.flatMap((b) => b.items)) {
      const key = `${item.txHash}#${item.index}`
      if (keys.has(key) || !chance(0.5)) continue
      keys.add(key)
      carried[rng.int(0, length - 1)]!.push(item)
    }
    for (let i = 0; i < length; i++) {
      const block = blockOn(parent, [...carried[i]!, ...newItems()])
      blocks.push(block)
      parent = block
    }
    orphanedBranches.push(replaced)
    canonical = [...canonical.slice(0, canonical.length - depth), ...blocks]
    return blocks
  }

  while (pushes.length < options.pushes) {
    const roll = rng.next()
    if (roll < 0.45 || canonical.length < 3) {
      const block = blockOn(tipOf())
      canonical.push(block)
      push(block, "append")
    } else if (roll < 0.55) {
      const at = rng.int(Math.max(0, canonical.length - 30), canonical.length - 1)
      let block = canonical[at]!
      if (chance(0.25)) {
        // A replay that carries a new item besides the recorded ones.
        const extra = newItems().filter((item) => !block.items.some((b) => b.txHash === item.txHash))
        block = { ...block, items: [...block.items, ...extra] }
        canonical[at] = block
      }
      push(block, "replay")
    } else if (roll < 0.77) {
      // Depth 1..8, about a third at least the confirmations (a deep reorg).
      const conf = options.confirmations
      const deep = chance(0.35) || conf === 1
      const wanted = deep ? rng.int(conf, Math.max(conf, 8)) : rng.int(1, Math.min(conf - 1, 8))
      const depth = Math.min(wanted, canonical.length - 1)
      const blocks = fork(depth, rng.int(0, 2))
      if (blocks.length > 1 && chance(0.4)) {
        // Out of order: the fork's newest block first, then the scanner walks back to the fork point.
        for (let i = blocks.length - 1; i >= 1; i--) push(blocks[i]!, "walk-back")
        push(blocks[0]!, "reorg")
        for (let i = 1; i < blocks.length; i++) push(blocks[i]!, "append")
      } else {
        push(blocks[0]!, "reorg")
        for (let i = 1; i < blocks.length; i++) push(blocks[i]!, "append")
      }
    } else if (roll < 0.85) {
      const candidates = orphanedBranches.filter((branch) => {
        const start = branch[0]!.height - canonical[0]!.height
        return start >= 1 && start < canonical.length && canonical[start - 1]!.hash === branch[0]!.parentHash
      })
      if (candidates.length === 0) continue
      const branch = pick(candidates)
      const start = branch[0]!.height - canonical[0]!.height
      orphanedBranches.splice(orphanedBranches.indexOf(branch), 1)
      orphanedBranches.push(canonical.slice(start))
      canonical = [...canonical.slice(0, start), ...branch]
      for (const [i, block] of branch.entries()) push(block, i === 0 ? "flip-back" : "append")
    } else if (roll < 0.95) {
      // A gap: the scanner pushes a block whose parent it has not pushed yet, then the missing ones.
      const blocks: Array<ChainBlock> = []
      for (let i = rng.int(2, 4); i > 0; i--) blocks.push(blockOn(blocks.at(-1) ?? tipOf()))
      canonical.push(...blocks)
      push(blocks.at(-1)!, "walk-back")
      for (const block of blocks) push(block, "append")
    } else {
      // Too old: a different block at the first height (its parent was never kept), or below it.
      const below = chance(0.5)
      const height = canonical[0]!.height - (below ? rng.int(1, 5) : 0)
      push({ height, hash: blockHash(), parentHash: blockHash(), items: newItems() }, "too-old")
    }
  }
  return pushes
}
